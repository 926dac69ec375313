// The public library (include/stereo/stereo.h, testing.h) over the builtin registry: the one
// translation unit where the installed headers meet the implementation's types. Parameters
// leave as text (Param::value, StereoMatcher::params()) in the form `--set` reads back.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/matcher.h"
#include "core/params.h"
#include "core/registry.h"
#include "methods/builtin.h"
#include "stereo/stereo.h"
#include "stereo/testing.h"

#ifdef STEREO_WITH_CUDA
#include "cuda/matcher_frame.h"
#endif

namespace stereo {
namespace {

/// A parameter's JSON value as `--set` takes it: a string as itself, a bool as true/false,
/// a number as JSON writes it.
std::string as_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::vector<Param> as_params(const std::vector<ParamDoc>& rows) {
  std::vector<Param> out;
  out.reserve(rows.size());
  for (const ParamDoc& row : rows) out.push_back(Param{row.key, as_text(row.value), row.doc});
  return out;
}

}  // namespace

std::vector<Backend> list() {
  std::vector<Backend> out;
  for (const BackendEntry& e : builtin_registry().entries()) {
    const std::optional<std::string> why = e.unavailable ? e.unavailable() : std::nullopt;
    out.push_back(Backend{e.method, e.backend, e.summary, !why.has_value(), why.value_or("")});
  }
  return out;
}

std::vector<Param> params(const std::string& method) {
  const MethodInfo& info = builtin_registry().method(method);
  return info.describe_params ? as_params(parse_param_table(info.describe_params())) : std::vector<Param>{};
}

std::vector<Param> options(const std::string& method, const std::string& backend) {
  const BackendEntry& e = builtin_registry().find(method, backend);
  return e.describe_options ? as_params(parse_param_table(e.describe_options())) : std::vector<Param>{};
}

MethodSummary method_info(const std::string& method) {
  const MethodInfo& info = builtin_registry().method(method);
  MethodSummary out{info.name, info.title, info.citation, info.accuracy_source, info.speed_source, {}};
  for (const ParamPreset& p : info.presets) out.presets.push_back(p.name);
  return out;
}

StereoMatcher create(const std::string& method, const std::string& backend, const Overrides& overrides) {
  return StereoMatcher(create_matcher(method, backend, overrides));
}

StereoMatcher::StereoMatcher(std::unique_ptr<Matcher> impl) : impl_(std::move(impl)) {}
StereoMatcher::StereoMatcher(StereoMatcher&& other) noexcept = default;
StereoMatcher& StereoMatcher::operator=(StereoMatcher&& other) noexcept = default;
StereoMatcher::~StereoMatcher() = default;

StereoResult StereoMatcher::compute(const ImageU8& left, const ImageU8& right, DisparityRange range) {
  return impl_->compute(left, right, range);
}
StereoResult StereoMatcher::compute(const ImageU8& left, const ImageU8& right, int levels) {
  return impl_->compute(left, right, levels);
}
StereoResult StereoMatcher::compute(const ImageView& left, const ImageView& right, DisparityRange range) {
  return impl_->compute(left, right, range);
}
DisparityMap StereoMatcher::compute_compact(const ImageU8& left, const ImageU8& right, DisparityRange range,
                                            Timing* timing) {
  return impl_->compute_compact(left, right, range, timing);
}
DisparityMap StereoMatcher::compute_compact(const ImageView& left, const ImageView& right, DisparityRange range,
                                            Timing* timing) {
  return impl_->compute_compact(left, right, range, timing);
}
Timing StereoMatcher::compute_into(const ImageView& left, const ImageView& right, DisparityRange range,
                                   const DisparityView& out) {
  return impl_->compute_into(left, right, range, out);
}
void StereoMatcher::match_sequence(DisparityRange range, const FrameSource& next, const FrameSink& done) {
  impl_->match_sequence(range, next, done);
}
void StereoMatcher::request_cost_volume(bool keep) { impl_->request_cost_volume(keep); }

ParamValues StereoMatcher::params() const {
  const nlohmann::json in_force = impl_->params();
  ParamValues out;
  for (const auto& [key, value] : in_force.items()) out.emplace_back(key, as_text(value));
  return out;
}
std::string StereoMatcher::component() const { return impl_->component(); }
std::string StereoMatcher::device() const { return impl_->device(); }

namespace testing {
std::optional<ImageCopies> image_copies() {
#ifdef STEREO_WITH_CUDA
  return cu::testing::image_copies();
#else
  return std::nullopt;
#endif
}
}  // namespace testing

}  // namespace stereo
