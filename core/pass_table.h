#pragma once
/// \file core/pass_table.h
/// The PassInspector every backend fills the same way: a table of passes, each a PassLayout and
/// a reader of one slice. A backend that copies its passes to the host during the run adds
/// them with their slices (add_kept); one that keeps them on the device adds a reader that
/// copies the slice asked for (add). The table checks the name and the slice, so every
/// backend refuses an unknown pass or a slice out of range with the same one-line error.

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/disparity_range.h"
#include "core/error.h"
#include "core/image.h"
#include "core/inspect.h"

namespace stereo {

/// The layout of an image shown as one slice (not per disparity).
inline PassLayout image_layout(std::string name, std::string what, std::string storage, int width, int height,
                               int channels = 1) {
  PassLayout l;
  l.name = std::move(name);
  l.what = std::move(what);
  l.storage = std::move(storage);
  l.width = width;
  l.height = height;
  l.channels = channels;
  return l;
}

/// The layout of a volume (or a per-level stage) shown one disparity level per slice over `range`.
inline PassLayout level_layout(std::string name, std::string what, std::string storage, int width, int height,
                               DisparityRange range) {
  PassLayout l = image_layout(std::move(name), std::move(what), std::move(storage), width, height);
  l.slices = range.count;
  l.disparities_per_slice = 1;
  l.first_disparity = range.min;
  return l;
}

class PassTable final : public PassInspector {
 public:
  /// Slice `slice` (already checked against the layout) as width x height x channels floats.
  using Reader = std::function<ImageF(int slice)>;

  /// `component` prefixes every error ("salap/gl").
  explicit PassTable(std::string component) : component_(std::move(component)) {}

  /// Forgets every pass (a new run starts, or inspection was switched off).
  void clear() { entries_.clear(); }
  /// Adds a pass read through `read`, after the ones added before (pipeline order).
  void add(PassLayout layout, Reader read) { entries_.push_back({std::move(layout), std::move(read)}); }
  /// Adds a pass whose slices the backend copied to the host: layout.slices of them, each
  /// width x height x channels.
  void add_kept(PassLayout layout, std::vector<ImageF> slices) {
    require(int(slices.size()) == layout.slices,
            component_ + ": pass " + layout.name + " kept " + std::to_string(slices.size()) + " slices, its layout has " +
                std::to_string(layout.slices));
    auto kept = std::make_shared<std::vector<ImageF>>(std::move(slices));
    add(std::move(layout), [kept](int slice) { return (*kept)[std::size_t(slice)]; });
  }

  [[nodiscard]] std::vector<PassLayout> passes() const override {
    std::vector<PassLayout> out;
    out.reserve(entries_.size());
    for (const Entry& e : entries_) out.push_back(e.layout);
    return out;
  }

  [[nodiscard]] ImageF read(const std::string& name, int slice) override {
    const Entry& e = find(name);
    require(slice >= 0 && slice < e.layout.slices,
            component_ + ": pass " + name + " has slices 0.." + std::to_string(e.layout.slices - 1) + ", asked for " +
                std::to_string(slice),
            ErrorKind::invalid_argument);
    return e.read(slice);
  }

 private:
  struct Entry {
    PassLayout layout;
    Reader read;
  };
  const Entry& find(const std::string& name) const {
    std::string known;
    for (const Entry& e : entries_) {
      if (e.layout.name == name) return e;
      known += (known.empty() ? "" : ", ") + e.layout.name;
    }
    throw Error(component_ + ": no pass '" + name + "' in the last run (" +
                    (known.empty() ? std::string("none kept: keep_passes(true) before the run") : "passes: " + known) + ")",
                ErrorKind::invalid_argument);
  }

  std::string component_;
  std::vector<Entry> entries_;
};

}  // namespace stereo
