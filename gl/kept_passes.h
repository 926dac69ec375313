#pragma once
/// \file gl/kept_passes.h
/// The pass inspector of the GL matchers (core/inspect.h): what a backend's passes name as
/// their targets (InspectTarget), and how the shell (gl/matcher_shell.h) keeps them during a
/// run that was asked to (Matcher::keep_passes(true)).
///
/// Kept, not re-run: after each group the targets that group wrote are read back with
/// glGetTextureImage of the pass's own texture (the FBO attachment or the image the dispatch
/// stored to, the depth attachment included), before the next group overwrites them. A re-run
/// of the chain for the quad asked would need the uploaded pair and the selection state of
/// that moment, and would show a second execution rather than the run's; keeping costs a
/// read-back per target per group (host memory: 4 floats per texel per target per quad, so
/// 7 x 16 quads x 640x480 ~ 550 MB at 64 levels) and only when asked.

#include <GL/glew.h>

#include <concepts>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/pass_table.h"
#include "gl/objects.h"

namespace stereo::gl {

/// One texture a backend's passes write, as the inspector shows it.
struct InspectTarget {
  std::string name;  ///< "<timed stage>[.<target>]": "tad", "horizontal.c_left", "select.depth"
  std::string what;  ///< one line, in the paper's terms
  const Texture* texture = nullptr;
  /// What glGetTextureImage reads: GL_RGBA (4 channels), GL_RED or GL_GREEN (one component
  /// of a wider texture), GL_DEPTH_COMPONENT.
  GLenum format = GL_RGBA;
  int channels = 4;
  /// Rewritten by every group: one slice per group, channel c = level d0 + c. Otherwise a
  /// plane that accumulates over the groups (the selection), read once after the last group.
  bool per_group = true;
  const char* held_as = "render target";  ///< "render target", "depth attachment", "image"
};

/// Passes that show their targets to the inspector; the shell's keep_passes(true) needs it.
template <class P>
concept InspectablePasses = requires(const P& passes) {
  { passes.inspect_targets() } -> std::same_as<std::vector<InspectTarget>>;
};

/// "rgba8", "r32f", "depth24", ...: the internal format as the storage line names it.
std::string format_name(GLenum internal_format);

/// The read-backs of one run. start() before the first group, keep_group() after each group
/// (the passes' writes made readable), finish() after the last, which hands the passes to
/// `table` with their layouts.
class PassKeeper {
 public:
  void start(std::vector<InspectTarget> targets);
  void keep_group();
  /// `first_disparity`: range.min (level 0); `levels_per_group`: the channels of one slice.
  void finish(PassTable& table, int first_disparity, int levels_per_group);

 private:
  static ImageF read(const InspectTarget& target);
  std::vector<InspectTarget> targets_;
  std::vector<std::vector<ImageF>> slices_;  // per target, per group
};

}  // namespace stereo::gl
