#pragma once
/// \file gl/program.h
/// Shaders from the embedded shaders/ files, programs, the full-screen pass runner and the
/// pass timer shared by the GL backends.
///
/// Compile-time constants (sizes, tap offsets, weights) are injected as `#define`s placed
/// right after the source's `#version` line, so a shader file stays valid GLSL with its own
/// defaults (the way Magnum's DistanceFieldGL injects its radius).

#include <GL/glew.h>
#include <glm/glm.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gl/objects.h"

namespace stereo::gl {

/// Text of an embedded shader file by its name in shaders/ ("salap_tad.frag"); throws when
/// the build embedded no such file.
std::string_view shader_source(std::string_view file_name);

/// Ordered `#define NAME VALUE` lines.
using Defines = std::vector<std::pair<std::string, std::string>>;

/// GLSL float literal of `v` that survives a round trip ("1.00000000e+00").
std::string glsl_float(double v);
/// GLSL `float[n](...)` array constructor of `values`.
std::string glsl_float_array(const std::vector<double>& values);

/// `source` with `defines` inserted after its `#version` line (which must be the first line).
std::string inject_defines(std::string_view source, const Defines& defines);

void delete_shader(GLuint id);
void delete_program(GLuint id);

class Shader : public Handle<delete_shader> {
 public:
  Shader() = default;
  Shader(Shader&& other) noexcept { swap(other); }
  Shader& operator=(Shader&& other) noexcept {
    swap(other);
    return *this;
  }
  void swap(Shader& other) noexcept { swap_name(other); }
  /// Compiles `source` as it stands; throws stereo::Error with `file_name` and the info log.
  static Shader compile(GLenum stage, std::string_view source, const std::string& file_name);
  /// Compiles the embedded file `file_name` with `defines` injected.
  static Shader from_file(GLenum stage, std::string_view file_name, const Defines& defines);

 private:
  using Handle::Handle;
};

class Program : public Handle<delete_program> {
 public:
  Program() = default;
  Program(Program&& other) noexcept { swap(other); }
  Program& operator=(Program&& other) noexcept {
    swap(other);
    return *this;
  }
  void swap(Program& other) noexcept {
    swap_name(other);
    label_.swap(other.label_);
    locations_.swap(other.locations_);
  }
  /// Links the shaders; throws stereo::Error with `label` and the info log.
  static Program link(const std::vector<const Shader*>& shaders, const std::string& label);
  /// A vertex + fragment program from two embedded files with the same defines.
  static Program from_files(std::string_view vertex_file, std::string_view fragment_file, const Defines& defines,
                            const std::string& label);
  /// Compute program (for the glcompute backend).
  static Program from_compute_file(std::string_view compute_file, const Defines& defines, const std::string& label);

  /// Location of the active uniform `name`, cached. Throws stereo::Error naming the program
  /// and the uniform when it has none: a misspelt name, or one the compiler removed because
  /// the program never reads it. Either way a value set there would be lost silently.
  GLint location(const std::string& name);
  /// The same, but -1 instead of an error when the program has no such active uniform.
  GLint optional_location(const std::string& name);

  /// Sets uniform `name` (glProgramUniform*); throws as location() when there is none.
  void set(const std::string& name, int v) { set_at(location(name), v); }
  void set(const std::string& name, float v) { set_at(location(name), v); }
  void set(const std::string& name, glm::vec2 v) { set_at(location(name), v); }
  void set(const std::string& name, glm::ivec2 v) { set_at(location(name), v); }
  void set(const std::string& name, glm::vec4 v) { set_at(location(name), v); }
  /// Sets `name` when the program has it, else does nothing. Only for a uniform that some
  /// compile-time variant of the shader legitimately does not read (say so at the call);
  /// everywhere else use set(), which catches a misspelt name.
  template <class T>
  void set_optional(const std::string& name, T v) {
    if (const GLint loc = optional_location(name); loc >= 0) set_at(loc, v);
  }
  [[nodiscard]] const std::string& label() const { return label_; }

 private:
  using Handle::Handle;
  void set_at(GLint location, int v);
  void set_at(GLint location, float v);
  void set_at(GLint location, glm::vec2 v);
  void set_at(GLint location, glm::ivec2 v);
  void set_at(GLint location, glm::vec4 v);
  std::string label_;
  std::unordered_map<std::string, GLint> locations_;
};

/// One full-screen fragment pass: owns its program and an empty VAO, and draws one triangle
/// covering the viewport (vertices from gl_VertexID: (-1,-1), (3,-1), (-1,3)) into a
/// framebuffer. Window row y is texture row y of every attachment: nothing is flipped.
class FullscreenPass {
 public:
  FullscreenPass() = default;
  FullscreenPass(std::string name, Program program);

  Program& program() { return program_; }
  [[nodiscard]] const std::string& name() const { return name_; }
  template <class T>
  FullscreenPass& set(const std::string& uniform, T value) {
    program_.set(uniform, value);
    return *this;
  }
  /// Binds `texture` to unit `unit` and points sampler uniform `sampler` at it.
  FullscreenPass& texture(const std::string& sampler, GLuint unit, const Texture& texture);
  /// Checks `target` is complete, then draws over (0, 0, width, height).
  void draw(const Framebuffer& target, int width, int height);

 private:
  std::string name_;
  Program program_;
  VertexArray vao_;
};

/// A compute work-group shape (the LOCAL_X, LOCAL_Y defines of a compute shader).
struct LocalSize {
  int x = 16, y = 16;
};

/// One compute dispatch over a width x height pixel grid: owns its program, one invocation
/// per pixel, ceil-divided into work groups of the given shape (injected as LOCAL_X, LOCAL_Y).
class ComputePass {
 public:
  ComputePass() = default;
  ComputePass(std::string_view file, Defines defines, LocalSize local, const std::string& label);

  explicit operator bool() const { return bool(program_); }
  template <class T>
  ComputePass& set(const std::string& uniform, T value) {
    program_.set(uniform, value);
    return *this;
  }
  /// Sets uniform u_size to (width, height) and dispatches; throws stereo::Error naming the
  /// program when the grid needs more work groups than the driver allows.
  void dispatch(int width, int height);

 private:
  Program program_;
  LocalSize local_;
  GLint max_groups_x_ = 0, max_groups_y_ = 0;  // GL_MAX_COMPUTE_WORK_GROUP_COUNT
};

/// Sums the GPU time of passes by kind ("tad", "vertical", ...): GL_TIME_ELAPSED queries,
/// read back once at the end, or (Mesa llvmpipe, whose timer queries do not cover a pass)
/// glFinish around each pass and a host clock.
class PassTimer {
 public:
  explicit PassTimer(bool use_queries) : use_queries_(use_queries) {}
  void begin(const std::string& kind);
  void end();
  /// Waits for outstanding queries; milliseconds per kind in first-use order.
  std::vector<std::pair<std::string, double>> results();
  [[nodiscard]] std::string clock() const;

 private:
  bool use_queries_;
  std::vector<Query> pool_;
  std::vector<std::pair<std::size_t, std::size_t>> pending_;  // (query index, kind index)
  std::vector<std::pair<std::string, double>> sums_;
  std::size_t current_kind_ = 0;
  std::chrono::steady_clock::time_point start_;
};

/// Times `batch` back-to-back calls of `issue` as one sample (a GL_TIME_ELAPSED query around
/// them, or glFinish and a host clock) and returns the median milliseconds per call over at
/// least 5 samples (more while they add up to under 200 ms, at most 50), after 2 warm-up
/// samples. Batching as many passes as a real run issues amortises the per-dispatch cost the
/// same way, so a fetch ceiling measured this way is comparable with the run's fetch rate.
struct BatchTime {
  double ms_per_call = 0.0;
  int samples = 0;
};
BatchTime time_batched(bool use_queries, int batch, const std::function<void()>& issue);

}  // namespace stereo::gl
