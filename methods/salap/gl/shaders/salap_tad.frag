#version 450 core
// TAD pass (Lu et al. Sec. 2, Fig. 1 "TAD"): channel k = min(|I_L(x,y) - I_R(x-d0-k,y)|, tau) / tau,
// four disparities per RGBA texel (Sec. 3). Both images are RGBA8 rectangle textures with
// NEAREST filtering and CLAMP_TO_EDGE, so x-d0-k < 0 reads column 0 and x-d0-k >= width (a
// negative disparity) the last column, as the reference's clamp-to-edge does. d0 includes the
// range's minimum disparity (salap_tad.vert). The left texel is the fragment's own (texelFetch at gl_FragCoord).
//
// The difference follows reference/salap.cpp: intensities are taken back to integer levels
// 0..255 (round(v * 255) undoes the unorm8 -> float conversion exactly), then
//   COST_MODE 0 rgb_mean: mean over R, G, B of the per-channel |difference|
//   COST_MODE 1 luma:     |BT.601 luma difference| (0.299, 0.587, 0.114)
//   COST_MODE 2 grey:     the single channel (grey input uploaded to .r)
// The result lies in [0, 1]: what an RGBA8 target stores (Sec. 3), tau scaling the range.

#ifndef COST_MODE
#error "COST_MODE, TAU and STORE_UNORM8 are injected by gl/salap_gl.cpp"
#endif

uniform sampler2DRect u_left;
uniform sampler2DRect u_right;

noperspective in vec4 v_right01;
noperspective in vec4 v_right23;

layout(location = 0) out vec4 o_cost;

#if COST_MODE == 0
#define DIFF_SCALE 3.0
#else
#define DIFF_SCALE 1.0
#endif

float difference(vec3 l, vec4 right_texel) {
  vec3 r = round(right_texel.rgb * 255.0);
#if COST_MODE == 0
  vec3 d = abs(l - r);
  return d.r + d.g + d.b;  // 3x the mean: DIFF_SCALE folds the / 3 into the one division below
#elif COST_MODE == 1
  return abs(dot(l, vec3(0.299, 0.587, 0.114)) - dot(r, vec3(0.299, 0.587, 0.114)));
#else
  return abs(l.r - r.r);
#endif
}

void main() {
  vec3 l = round(texelFetch(u_left, ivec2(gl_FragCoord.xy)).rgb * 255.0);
  vec4 diff = vec4(difference(l, texture(u_right, v_right01.xy)),
                   difference(l, texture(u_right, v_right01.zw)),
                   difference(l, texture(u_right, v_right23.xy)),
                   difference(l, texture(u_right, v_right23.zw)));
#if STORE_UNORM8
  // 8-bit target: store round-half-up(v * 255) / 255 of the correctly rounded v, as the
  // reference's quantize8 does. The rgb_mean cost is s/3 with an integer s, so many costs sit
  // exactly on a half code (s = 2 mod 4 at tau = 20); the target's own float -> unorm8
  // conversion may break those ties the other way (round-half-even). Dividing integers once,
  // and rounding with floor + step on the exact fraction, keeps the ties the reference's.
  precise vec4 v = min(diff, vec4(DIFF_SCALE * TAU)) / (DIFF_SCALE * TAU);
  precise vec4 t = v * 255.0;
  vec4 code = floor(t);
  code += step(vec4(0.5), t - code);
  o_cost = code / 255.0;
#else
  o_cost = min(diff, vec4(DIFF_SCALE * TAU)) / (DIFF_SCALE * TAU);
#endif
}
