#pragma once
/// \file include/stereo/params.h
/// Parameters as text, the form the CLI's `--set key=value` and the Python module take: the
/// overrides a matcher is created with, and the rows of a parameter table. Each method's typed
/// parameter struct (stereo/<method>.h, e.g. stereo::adcensus::Params) is the other form; both
/// reach a matcher through the same binding of the method's keys.

#include <string>
#include <utility>
#include <vector>

namespace stereo {

/// ("key", "value") pairs applied in order, as `--set key=value` (a later pair wins). A key the
/// method or backend does not have, or a value it cannot take, makes create() throw
/// stereo::Error naming both. ("preset", NAME) stands for a method's named parameter set.
using Overrides = std::vector<std::pair<std::string, std::string>>;

/// One parameter: its key, its value as `--set` takes it ("5", "true", "rgb_mean"; a float in
/// the fewest digits that read back to it) and what it is (for a choice, the doc ends with the
/// allowed values, "(a|b)"), with the paper's table or section its default comes from.
struct Param {
  std::string key;
  std::string value;
  std::string doc;
};

/// The parameters in force in a matcher, by key: ("gamma", "5"), as Param::value writes values.
using ParamValues = std::vector<std::pair<std::string, std::string>>;

}  // namespace stereo
