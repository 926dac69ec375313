#version 450 core
// Selection pass, compute form (Lu et al. eq. 3-4; the fragment form is salap_select.frag):
// per channel k (disparity d0+k)
//   Ca = (C0+C1+C2+C3) / 4,  Cb = min(C0+C1, C0+C2, C2+C3, C1+C3) / 2 + alpha,
//   Cc = min(C0, C1, C2, C3) + beta,  Cmin = min(Ca, Cb, Cc)   (NINE_WINDOWS 1)
//   Cmin = Cc                                                  (NINE_WINDOWS 0, 4-window)
// on costs normalised by tau and F (methods/salap/params.h), as reference::window_cost. Within the
// texel the smallest Cmin of the valid channels (d0+k < levels) wins, the first on a tie.
//
// Winner-takes-all across groups: compute has no depth test, so the fragment backend's
// GL_LESS Z-test (Sec. 3) becomes a running minimum in an rg32f image, (best Cmin, its
// disparity), cleared to (+inf, 0) once per run. Only the invocation that owns pixel (x, y)
// touches texel (x, y), so a plain imageLoad / compare / imageStore needs no atomics; the
// host issues the groups in increasing d0 with a GL_SHADER_IMAGE_ACCESS_BARRIER_BIT between
// them, and the comparison is strict, so a tie keeps the smaller disparity, as GL_LESS and
// the reference do. The cost stays a 32-bit float: no 24-bit depth quantisation.
//
// Alignment: invocation (x, y) owns texel (x, y) of C0..C3 and of the selection image.

#ifndef NINE_WINDOWS
#error "NINE_WINDOWS, ALPHA, BETA, LOCAL_X, LOCAL_Y are injected by gl/salap_glcompute.cpp"
#endif

layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;

layout(binding = 0) uniform sampler2DRect u_c0;
layout(binding = 1) uniform sampler2DRect u_c1;
layout(binding = 2) uniform sampler2DRect u_c2;
layout(binding = 3) uniform sampler2DRect u_c3;
layout(binding = 0, rg32f) uniform image2D u_best;  // .x best Cmin so far, .y its disparity

uniform ivec2 u_size;
uniform int u_d0;
uniform int u_levels;

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(p, u_size))) return;
  vec4 q0 = texelFetch(u_c0, p);
  vec4 q1 = texelFetch(u_c1, p);
  vec4 q2 = texelFetch(u_c2, p);
  vec4 q3 = texelFetch(u_c3, p);
  vec4 cc = min(min(q0, q1), min(q2, q3)) + BETA;
#if NINE_WINDOWS
  vec4 ca = (q0 + q1 + q2 + q3) / 4.0;
  vec4 cb = min(min(q0 + q1, q0 + q2), min(q2 + q3, q1 + q3)) / 2.0 + ALPHA;
  vec4 cmin = min(ca, min(cb, cc));
#else
  vec4 cmin = cc;
#endif
  float best = cmin.x;
  int k = 0;
  if (u_d0 + 1 < u_levels && cmin.y < best) { best = cmin.y; k = 1; }
  if (u_d0 + 2 < u_levels && cmin.z < best) { best = cmin.z; k = 2; }
  if (u_d0 + 3 < u_levels && cmin.w < best) { best = cmin.w; k = 3; }
  vec2 previous = imageLoad(u_best, p).xy;
  if (best < previous.x) imageStore(u_best, p, vec4(best, float(u_d0 + k), 0.0, 0.0));
}
