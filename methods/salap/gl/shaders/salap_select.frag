#version 450 core
// Selection pass (Lu et al. eq. 3-4, Sec. 3 "Z-test"): per channel k (disparity d0+k)
//   Ca = (C0+C1+C2+C3) / 4,  Cb = min(C0+C1, C0+C2, C2+C3, C1+C3) / 2 + alpha,
//   Cc = min(C0, C1, C2, C3) + beta,  Cmin = min(Ca, Cb, Cc)   (NINE_WINDOWS 1)
//   Cmin = Cc                                                  (NINE_WINDOWS 0, 4-window)
// on costs already normalised by tau and F (methods/salap/params.h), as reference::window_cost.
// Within the texel the smallest Cmin of the valid channels (d0+k < levels) wins, the first
// channel on a tie; it goes to gl_FragDepth and its disparity to the R32F target. The depth
// test (GL_LESS, depth cleared to 1.0 once per run, groups drawn in increasing d0) does the
// winner-takes-all across groups and keeps the smaller disparity on a tie. Cmin <= 1 +
// max(alpha, beta), so DEPTH_SCALE = 1 / (1 + max(alpha, beta)) maps it into [0, 1]; the
// clamp keeps it below the cleared 1.0. A 24-bit depth buffer quantises Cmin to about
// 6e-8 * (1 + max(alpha, beta)): costs closer than that tie and the smaller disparity wins.

#ifndef NINE_WINDOWS
#error "NINE_WINDOWS, ALPHA, BETA, DEPTH_SCALE, DEPTH_MAX are injected by gl/salap_gl.cpp"
#endif

uniform sampler2DRect u_c0;
uniform sampler2DRect u_c1;
uniform sampler2DRect u_c2;
uniform sampler2DRect u_c3;
uniform int u_d0;
uniform int u_levels;

layout(location = 0) out float o_disparity;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
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
  gl_FragDepth = clamp(best * DEPTH_SCALE, 0.0, DEPTH_MAX);
  o_disparity = float(u_d0 + k);
}
