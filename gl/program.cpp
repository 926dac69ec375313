#include "gl/program.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>

#include "gl/check.h"
#include "core/error.h"

namespace stereo::gl {
namespace detail {
const std::map<std::string, std::string_view, std::less<>>& embedded_shaders();  // generated
}

std::string_view shader_source(std::string_view file_name) {
  const auto& shaders = detail::embedded_shaders();
  const auto it = shaders.find(file_name);
  if (it == shaders.end()) throw Error("gl: no embedded shader named '" + std::string(file_name) + "'");
  return it->second;
}

std::string glsl_float(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.9e", v);
  return buffer;
}

std::string glsl_float_array(const std::vector<double>& values) {
  std::string s = "float[" + std::to_string(values.size()) + "](";
  for (std::size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + glsl_float(values[i]);
  return s + ")";
}

std::string inject_defines(std::string_view source, const Defines& defines) {
  if (source.substr(0, 8) != "#version") throw Error("gl: shader source must start with #version");
  const std::size_t eol = source.find('\n');
  std::string out(source.substr(0, eol == std::string_view::npos ? source.size() : eol + 1));
  if (eol == std::string_view::npos) out += '\n';
  for (const auto& [name, value] : defines) out += "#define " + name + " " + value + "\n";
  // Keep the file's own line numbers in compiler messages.
  out += "#line 2\n";
  if (eol != std::string_view::npos) out += source.substr(eol + 1);
  return out;
}

void delete_shader(GLuint id) { glDeleteShader(id); }
void delete_program(GLuint id) { glDeleteProgram(id); }

Shader Shader::compile(GLenum stage, std::string_view source, const std::string& file_name) {
  const GLuint id = glCreateShader(stage);
  check_gl_error("glCreateShader(" + file_name + ")");
  if (id == 0) throw Error("gl: glCreateShader failed for " + file_name);
  Shader shader(id);
  label_object(GL_SHADER, id, file_name);
  const GLchar* text = source.data();
  require(source.size() <= std::size_t(std::numeric_limits<GLint>::max()),
          "gl: shader " + file_name + " is longer than GLint can count");
  const auto length = GLint(source.size());
  GL_CHECK(glShaderSource(id, 1, &text, &length));
  GL_CHECK(glCompileShader(id));
  GLint ok = GL_FALSE;
  glGetShaderiv(id, GL_COMPILE_STATUS, &ok);
  if (ok != GL_TRUE) {
    GLint log_length = 0;
    glGetShaderiv(id, GL_INFO_LOG_LENGTH, &log_length);
    std::string log(std::size_t(log_length > 1 ? log_length : 1), '\0');
    glGetShaderInfoLog(id, GLsizei(log.size()), nullptr, log.data());
    log.resize(log.find('\0') == std::string::npos ? log.size() : log.find('\0'));
    throw Error("gl: shader " + file_name + " failed to compile:\n" + log);
  }
  return shader;
}

Shader Shader::from_file(GLenum stage, std::string_view file_name, const Defines& defines) {
  return compile(stage, inject_defines(shader_source(file_name), defines), std::string(file_name));
}

Program Program::link(const std::vector<const Shader*>& shaders, const std::string& label) {
  const GLuint id = glCreateProgram();
  if (id == 0) throw Error("gl: glCreateProgram failed for " + label);
  Program program(id);
  program.label_ = label;
  label_object(GL_PROGRAM, id, label);
  for (const Shader* s : shaders) GL_CHECK(glAttachShader(id, s->id()));
  GL_CHECK(glLinkProgram(id));
  GLint ok = GL_FALSE;
  glGetProgramiv(id, GL_LINK_STATUS, &ok);
  for (const Shader* s : shaders) glDetachShader(id, s->id());
  if (ok != GL_TRUE) {
    GLint log_length = 0;
    glGetProgramiv(id, GL_INFO_LOG_LENGTH, &log_length);
    std::string log(std::size_t(log_length > 1 ? log_length : 1), '\0');
    glGetProgramInfoLog(id, GLsizei(log.size()), nullptr, log.data());
    log.resize(log.find('\0') == std::string::npos ? log.size() : log.find('\0'));
    throw Error("gl: program " + label + " failed to link:\n" + log);
  }
  return program;
}

Program Program::from_files(std::string_view vertex_file, std::string_view fragment_file, const Defines& defines,
                            const std::string& label) {
  const Shader vs = Shader::from_file(GL_VERTEX_SHADER, vertex_file, defines);
  const Shader fs = Shader::from_file(GL_FRAGMENT_SHADER, fragment_file, defines);
  return link({&vs, &fs}, label);
}

Program Program::from_compute_file(std::string_view compute_file, const Defines& defines, const std::string& label) {
  const Shader cs = Shader::from_file(GL_COMPUTE_SHADER, compute_file, defines);
  return link({&cs}, label);
}

GLint Program::optional_location(const std::string& name) {
  const auto it = locations_.find(name);
  if (it != locations_.end()) return it->second;
  const GLint loc = glGetUniformLocation(id(), name.c_str());
  check_gl_error("glGetUniformLocation(program '" + label_ + "', '" + name + "')");
  locations_.emplace(name, loc);
  return loc;
}

GLint Program::location(const std::string& name) {
  const GLint loc = optional_location(name);
  if (loc < 0)
    throw Error("gl: program '" + label_ + "' has no active uniform '" + name +
                "' (misspelt, or removed by the compiler because the shader never reads it)");
  return loc;
}

void Program::set_at(GLint loc, int v) { GL_CHECK(glProgramUniform1i(id(), loc, v)); }
void Program::set_at(GLint loc, float v) { GL_CHECK(glProgramUniform1f(id(), loc, v)); }
void Program::set_at(GLint loc, glm::vec2 v) { GL_CHECK(glProgramUniform2f(id(), loc, v.x, v.y)); }
void Program::set_at(GLint loc, glm::ivec2 v) { GL_CHECK(glProgramUniform2i(id(), loc, v.x, v.y)); }
void Program::set_at(GLint loc, glm::vec4 v) { GL_CHECK(glProgramUniform4f(id(), loc, v.x, v.y, v.z, v.w)); }

FullscreenPass::FullscreenPass(std::string name, Program program)
    : name_(std::move(name)), program_(std::move(program)), vao_(VertexArray::create(name_ + " vao")) {}

FullscreenPass& FullscreenPass::texture(const std::string& sampler, GLuint unit, const Texture& texture) {
  texture.bind(unit);
  program_.set(sampler, int(unit));
  return *this;
}

void FullscreenPass::draw(const Framebuffer& target, int width, int height) {
  target.check_complete();
  GL_CHECK(glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target.id()));
  GL_CHECK(glViewport(0, 0, width, height));
  GL_CHECK(glUseProgram(program_.id()));
  GL_CHECK(glBindVertexArray(vao_.id()));
  GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, 3));
}

ComputePass::ComputePass(std::string_view file, Defines defines, LocalSize local, const std::string& label)
    : local_(local) {
  defines.emplace_back("LOCAL_X", std::to_string(local.x));
  defines.emplace_back("LOCAL_Y", std::to_string(local.y));
  program_ = Program::from_compute_file(file, defines, label);
  GL_CHECK(glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &max_groups_x_));
  GL_CHECK(glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 1, &max_groups_y_));
}

void ComputePass::dispatch(int width, int height) {
  const GLuint groups_x = GLuint((width + local_.x - 1) / local_.x);
  const GLuint groups_y = GLuint((height + local_.y - 1) / local_.y);
  require(groups_x <= GLuint(max_groups_x_) && groups_y <= GLuint(max_groups_y_),
          "gl: " + program_.label() + ": " + std::to_string(groups_x) + " x " + std::to_string(groups_y) +
              " work groups exceed the driver's " + std::to_string(max_groups_x_) + " x " +
              std::to_string(max_groups_y_));
  program_.set("u_size", glm::ivec2(width, height));
  GL_CHECK(glUseProgram(program_.id()));
  GL_CHECK(glDispatchCompute(groups_x, groups_y, 1));
}

void PassTimer::begin(const std::string& kind) {
  current_kind_ = sums_.size();
  for (std::size_t i = 0; i < sums_.size(); ++i)
    if (sums_[i].first == kind) current_kind_ = i;
  if (current_kind_ == sums_.size()) sums_.emplace_back(kind, 0.0);
  if (use_queries_) {
    const std::size_t index = pending_.size();
    if (index == pool_.size()) pool_.push_back(Query::create(GL_TIME_ELAPSED, "pass timer " + std::to_string(index)));
    pool_[index].begin();
    pending_.emplace_back(index, current_kind_);
  } else {
    GL_CHECK(glFinish());
    start_ = std::chrono::steady_clock::now();
  }
}

void PassTimer::end() {
  if (use_queries_) {
    pool_[pending_.back().first].end();
  } else {
    GL_CHECK(glFinish());
    sums_[current_kind_].second +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }
}

std::vector<std::pair<std::string, double>> PassTimer::results() {
  for (const auto& [query, kind] : pending_) sums_[kind].second += double(pool_[query].result()) * 1e-6;
  pending_.clear();
  auto out = sums_;
  for (auto& s : sums_) s.second = 0.0;
  return out;
}

std::string PassTimer::clock() const { return use_queries_ ? "GL timer queries" : "host clock (glFinish per pass)"; }

BatchTime time_batched(bool use_queries, int batch, const std::function<void()>& issue) {
  require(batch >= 1, "gl: time_batched needs batch >= 1, got " + std::to_string(batch));
  Query query = use_queries ? Query::create(GL_TIME_ELAPSED, "batch timer") : Query();
  auto sample = [&]() -> double {
    if (use_queries) {
      query.begin();
      for (int i = 0; i < batch; ++i) issue();
      query.end();
      return double(query.result()) * 1e-6;
    }
    GL_CHECK(glFinish());
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) issue();
    GL_CHECK(glFinish());
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  for (int i = 0; i < 2; ++i) sample();  // warm-up
  std::vector<double> times;
  double total = 0.0;
  while (times.size() < 5 || (total < 200.0 && times.size() < 50)) {
    times.push_back(sample());
    total += times.back();
  }
  std::sort(times.begin(), times.end());
  return {times[times.size() / 2] / double(batch), int(times.size())};
}

}  // namespace stereo::gl
