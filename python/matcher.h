#pragma once
/// \file python/matcher.h
/// stereo.Matcher: one method on one backend over one disparity range, callable from Python
/// with NumPy arrays or DLPack tensors, the GIL released while it runs.

#include <pybind11/pybind11.h>

namespace stereo::python {
namespace py = pybind11;

/// Registers stereo.Matcher; its docstring lists every method's parameters (the registry's).
void bind_matcher(py::module_& m);
/// Registers stereo._testing: the binding's and the CUDA frame's copy counts, and the C++
/// timing of a matcher's call for the overhead benchmark.
void bind_testing(py::module_& testing);

}  // namespace stereo::python
