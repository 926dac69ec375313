#include "gl/kept_passes.h"

#include <utility>

#include "core/error.h"
#include "gl/check.h"

namespace stereo::gl {

std::string format_name(GLenum internal_format) {
  switch (internal_format) {
    case GL_RGBA8: return "rgba8";
    case GL_RGBA16F: return "rgba16f";
    case GL_RGBA32F: return "rgba32f";
    case GL_R32F: return "r32f";
    case GL_RG32F: return "rg32f";
    case GL_DEPTH_COMPONENT24: return "depth24";
    case GL_DEPTH_COMPONENT32F: return "depth32f";
    default: return "GL format " + std::to_string(internal_format);
  }
}

void PassKeeper::start(std::vector<InspectTarget> targets) {
  targets_ = std::move(targets);
  slices_.assign(targets_.size(), {});
}

// glGetTextureImage into host memory, not through the shell's read-back buffers: the sequence
// path may have a map in flight in them.
ImageF PassKeeper::read(const InspectTarget& target) {
  const Texture& t = *target.texture;
  ImageF out(t.width(), t.height(), target.channels);
  GL_CHECK(glBindBuffer(GL_PIXEL_PACK_BUFFER, 0));
  t.download(target.format, GL_FLOAT, out.data.data(), out.data.size() * sizeof(float));
  return out;
}

void PassKeeper::keep_group() {
  for (std::size_t i = 0; i < targets_.size(); ++i)
    if (targets_[i].per_group) slices_[i].push_back(read(targets_[i]));
}

void PassKeeper::finish(PassTable& table, int first_disparity, int levels_per_group) {
  table.clear();
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    const InspectTarget& t = targets_[i];
    if (!t.per_group) slices_[i].push_back(read(t));
    PassLayout layout;
    layout.name = t.name;
    layout.what = t.what;
    layout.storage = format_name(t.texture->internal_format()) + " " + t.held_as;
    layout.width = t.texture->width();
    layout.height = t.texture->height();
    layout.channels = t.channels;
    layout.slices = int(slices_[i].size());
    layout.disparities_per_slice = t.per_group ? levels_per_group : 0;
    layout.first_disparity = first_disparity;
    table.add_kept(std::move(layout), std::move(slices_[i]));
  }
  targets_.clear();
  slices_.clear();
}

}  // namespace stereo::gl
