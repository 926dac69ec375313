#pragma once
/// \file reference/cpu_matcher.h
/// What the `cpu` matchers have alike behind the Matcher interface: the paper's parameters and
/// the backend's own knobs bound from the user's overrides and validated once, at
/// construction, the pass inspector (core/inspect.h) and their registry entry.
///
/// The inspector is the frame's: keep_passes(), inspector() and forgetting the last run's
/// stages when a new run starts live here; a method only shows, per stage, the host image or
/// volume that holds its output (show(), a copy made only while keep_passes(true) holds, so a
/// plain run pays nothing), named as its clock's lap or "lap.buffer".

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/matcher.h"
#include "core/params.h"
#include "core/pass_table.h"
#include "core/registry.h"
#include "reference/cost_volume.h"

namespace stereo::reference {

/// The Options of a `cpu` backend without knobs of its own.
struct NoOptions {
  template <class B>
  void describe(B& /*binder*/) {}
  void validate(const std::string& /*component*/) const {}
};

/// How a host image's or volume's element type reads in a PassLayout's storage line.
template <class T>
constexpr const char* host_type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  else static_assert(sizeof(T) == 0, "host_type_name: add the element type");
}

/// `image` widened to float, value for value.
template <class T>
ImageF widened(const Image<T>& image) {
  ImageF out(image.width, image.height, image.channels);
  for (std::size_t i = 0; i < image.data.size(); ++i) out.data[i] = static_cast<float>(image.data[i]);
  return out;
}

/// A `cpu` Matcher's bound and validated Params (the paper's parameters) and Options (the
/// backend's knobs: threads, precision models; each with describe() and validate()), its
/// component name, the host CPU as device, and its pass inspector.
template <class Params, class Options = NoOptions>
class CpuMatcher : public Matcher {
 public:
  using ParamsType = Params;
  using OptionsType = Options;

  /// Binds `overrides` to Params and Options in one binder (a key of neither is an error) and
  /// validates both; errors name `component` ("esaw/cpu").
  CpuMatcher(std::string component, const Overrides& overrides) : component_(std::move(component)) {
    params_json_ = bind_params(component_, overrides, params_, options_);
    validate_params(params_, component_);
    validate_params(options_, component_);
  }

  [[nodiscard]] nlohmann::json params() const override { return params_json_; }
  [[nodiscard]] std::string component() const override { return component_; }
  [[nodiscard]] std::string device() const override { return cpu_name(); }

  /// Every later run keeps what its stages show (show(), the method's kept_stages()).
  void keep_passes(bool keep) override {
    keep_ = keep;
    kept_.clear();
  }
  /// The stages of the last run, while keep_passes(true) holds; empty before the first run.
  PassInspector* inspector() override { return keep_ ? &kept_ : nullptr; }

 protected:
  /// The method itself, on a pair compute() has validated: its stages, each output shown
  /// through show() (which keeps it only while keep_passes(true) holds).
  virtual StereoResult run(const ImageU8& left, const ImageU8& right, DisparityRange range) = 0;

  /// Whether this run keeps its stages: for a method whose stages are costly to gather.
  [[nodiscard]] bool keeping() const { return keep_; }
  /// The table a run fills, for a method that lays its stages out itself (kept in order).
  [[nodiscard]] PassTable& kept_stages() { return kept_; }

  /// Keeps `image` (any element type, any channels) as stage `name`'s output, one slice.
  template <class T>
  void show(const std::string& name, const std::string& what, const Image<T>& image) {
    if (!keep_) return;
    kept_.add_kept(image_layout(name, what, std::string(host_type_name<T>()) + " host image", image.width,
                                image.height, image.channels),
                   {widened(image)});
  }
  /// Keeps `volume` (disparity fastest) as stage `name`'s output, one disparity level a slice.
  template <class T>
  void show(const std::string& name, const std::string& what, const Volume<T>& volume) {
    if (!keep_) return;
    auto kept = std::make_shared<const Volume<T>>(volume);
    kept_.add(level_layout(name, what, std::string(host_type_name<T>()) + " host volume, disparity fastest",
                           volume.width, volume.height, volume.range),
              [kept](int k) {
                ImageF out(kept->width, kept->height, 1);
                for (int y = 0; y < kept->height; ++y)
                  for (int x = 0; x < kept->width; ++x) out.at(x, y) = static_cast<float>(kept->at(x, y, k));
                return out;
              });
  }

 private:
  /// Forgets the last run's stages, then run(): a run that throws leaves none of its own.
  StereoResult match(const ImageU8& left, const ImageU8& right, DisparityRange range) final {
    kept_.clear();
    return run(left, right, range);
  }

 protected:
  Params params_;
  Options options_;

 private:
  std::string component_;
  nlohmann::json params_json_;
  bool keep_ = false;
  PassTable kept_{component_};
};

/// The registry entry of the `cpu` matcher `M` (a CpuMatcher whose constructor takes the
/// overrides) of `method`: always available, its Options described where it has any.
template <class M>
BackendEntry cpu_backend_entry(const std::string& method, std::string summary) {
  BackendEntry entry;
  entry.method = method;
  entry.backend = "cpu";
  entry.summary = std::move(summary);
  entry.unavailable = [] { return std::optional<std::string>{}; };
  entry.create = [](const Overrides& overrides) -> std::unique_ptr<Matcher> { return std::make_unique<M>(overrides); };
  using Options = typename M::OptionsType;
  if constexpr (!std::is_same_v<Options, NoOptions>)
    entry.describe_options = [component = method + "/cpu"] { return describe_defaults<Options>(component); };
  return entry;
}

}  // namespace stereo::reference
