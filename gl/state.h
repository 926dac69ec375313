#pragma once
/// \file gl/state.h
/// The GL state contract between passes and between the two GL backends, which share one
/// context (gl/STATE.md has the whole of it): the state "at rest" that every pass may assume
/// on entry and must leave on exit, and a check of it.

#include <string>

namespace stereo::gl {

/// True in builds without NDEBUG and where STEREO_GL_DEBUG is 1 or 2: the run sequence then
/// checks the contract around each group (a handful of glGet calls, which can stall a
/// pipelined driver, so release runs skip it).
bool contract_checks_enabled();

/// Throws stereo::Error "gl: state contract broken after <where>: GL_BLEND enabled, ..." unless
/// the context is at rest: GL_BLEND, GL_DEPTH_TEST, GL_STENCIL_TEST, GL_SCISSOR_TEST,
/// GL_CULL_FACE, GL_RASTERIZER_DISCARD and GL_FRAMEBUFFER_SRGB disabled, colour and depth
/// writes on, no buffer bound to GL_PIXEL_PACK_BUFFER or GL_PIXEL_UNPACK_BUFFER, and no GL
/// error pending.
void check_state_at_rest(const std::string& where);

/// check_state_at_rest(where) when contract_checks_enabled().
inline void check_state_if_enabled(const std::string& where) {
  if (contract_checks_enabled()) check_state_at_rest(where);
}

}  // namespace stereo::gl
