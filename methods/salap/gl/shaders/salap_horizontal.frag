#version 450 core
// Horizontal SA-LAP pass (Lu et al. eq. 5-6, Fig. 1): C_L = sum_k D[x-k] w_k / F1 and
// C_R = sum_k D[x+k] w_k / F1, k = 0..W, w_k = exp(-k / gamma), for the four disparities of
// a group at once. Both one-sided filters in one pass with two colour attachments (MRT):
// they share the centre tap and their coordinates pack pairwise into the same eight
// varyings (+o in .xy, -o in .zw), so one pass issues 1 + 2 * SIDE_TAPS fetches where two
// passes would issue 2 + 2 * SIDE_TAPS and rasterise twice.
//
// Bilinear taps (gl_taps=bilinear, Sec. 3): taps i and i+1 (i = 1, 3, ..., W-1) are one
// GL_LINEAR fetch at i + w_{i+1} / (w_i + w_{i+1}) texels from the centre, weighted by
// (w_i + w_{i+1}) / F1: the filter returns (1-f) D[x+i] + f D[x+i+1] with
// f = w_{i+1} / (w_i + w_{i+1}), which times (w_i + w_{i+1}) is w_i D[x+i] + w_{i+1} D[x+i+1].
// f is the same for every pair (w_{i+1} / w_i = exp(-1/gamma)), so the hardware's
// sub-texel weight precision (8 fractional bits on most GPUs) costs the same relative error
// on every pair. Tap 0 is a plain texelFetch of the fragment's own texel.
// Borders: CLAMP_TO_EDGE clamps both texel indices of a pair, so a pair straddling or beyond
// the edge reads the edge texel for the clamped tap(s) with the same weights: exactly the
// reference's at_clamped() sum. The off-axis coordinate sits on a texel centre: weight 0.
// gl_taps=nearest: TAP_OFFSETS = 1..W, TAP_WEIGHTS = w_k / F1, NEAREST filtering.
// Taps beyond the eight varyings (W > 16 bilinear, W > 8 nearest) take their coordinate
// from gl_FragCoord, the only fragment-side coordinate arithmetic.

#ifndef SIDE_TAPS
#error "AXIS, STORE_UNORM8, SIDE_TAPS, TAP_VARYINGS, TAP_OFFSETS, TAP_WEIGHTS, CENTRE_WEIGHT are injected by gl/salap_gl.cpp"
#endif

uniform sampler2DRect u_cost;  // TAD of the group

noperspective in vec4 v_tap[TAP_VARYINGS];

layout(location = 0) out vec4 o_left;   // C_L: taps x - k
layout(location = 1) out vec4 o_right;  // C_R: taps x + k

const float offsets[SIDE_TAPS] = TAP_OFFSETS;
const float weights[SIDE_TAPS] = TAP_WEIGHTS;

// rgba8 targets (STORE_UNORM8 1): round to the 8-bit grid here, half up, as
// reference::quantize8 does, so the target's own float -> unorm8 conversion only sees values
// already on k / 255. That conversion's rounding is the implementation's choice: measured on
// an NVIDIA H100 (driver 580) it left 2-4% of these filter outputs one code below the
// correctly rounded value (also with gl_taps=nearest, so not the bilinear weights), where
// Mesa llvmpipe rounds half up. `precise` keeps v * 255 a rounded product (no fma).
vec4 storage(vec4 v) {
#if STORE_UNORM8
  precise vec4 scaled = clamp(v, 0.0, 1.0) * 255.0;
  return floor(scaled + 0.5) / 255.0;
#else
  return v;
#endif
}

void main() {
  vec4 centre = texelFetch(u_cost, ivec2(gl_FragCoord.xy)) * CENTRE_WEIGHT;
  vec4 plus = centre;
  vec4 minus = centre;
  for (int j = 0; j < TAP_VARYINGS; ++j) {
    plus += texture(u_cost, v_tap[j].xy) * weights[j];
    minus += texture(u_cost, v_tap[j].zw) * weights[j];
  }
  for (int j = TAP_VARYINGS; j < SIDE_TAPS; ++j) {
    vec2 o = offsets[j] * AXIS;
    plus += texture(u_cost, gl_FragCoord.xy + o) * weights[j];
    minus += texture(u_cost, gl_FragCoord.xy - o) * weights[j];
  }
  o_left = storage(minus);
  o_right = storage(plus);
}
