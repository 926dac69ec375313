// The extension stereo._stereo: the error translation, then the parts (python/matcher.h,
// data.cpp, cuda_io.h). The package stereo (python/stereo/__init__.py) re-exports it.

#include <pybind11/pybind11.h>

#include <exception>

#include "core/error.h"
#include "python/cuda_io.h"
#include "python/matcher.h"

namespace stereo::python {
void bind_data(py::module_& m);  // data.cpp
}  // namespace stereo::python

namespace {

// stereo::Error's kind picks Python's own type; the text is the CLI's one line.
void translate(std::exception_ptr error) {
  try {
    if (error) std::rethrow_exception(error);
  } catch (const stereo::Error& e) {
    PyObject* type = PyExc_RuntimeError;
    switch (e.kind()) {
      case stereo::ErrorKind::invalid_argument: type = PyExc_ValueError; break;
      case stereo::ErrorKind::out_of_memory: type = PyExc_MemoryError; break;
      case stereo::ErrorKind::unavailable:
      case stereo::ErrorKind::failure: type = PyExc_RuntimeError; break;
    }
    PyErr_SetString(type, e.what());
  }
}

}  // namespace

PYBIND11_MODULE(_stereo, m) {
  m.doc() = "stereo: GPU dense stereo matching reference suite (the compiled part of the package stereo)";
  pybind11::register_exception_translator(&translate);
  stereo::python::bind_matcher(m);
  stereo::python::bind_data(m);
  stereo::python::bind_cuda_io(m);
  auto testing = m.def_submodule("_testing", "What the tests and the overhead benchmark read; not the API");
  stereo::python::bind_testing(testing);
  m.attr("cuda_built") = stereo::python::cuda_built();
}
