#version 450 core
// Horizontal SA-LAP pass, compute form (Lu et al. eq. 5-6, Fig. 1; the fragment form is
// salap_horizontal.frag): C_L = sum_k D[x-k] w_k / F1 and C_R = sum_k D[x+k] w_k / F1,
// k = 0..W, w_k = exp(-k / gamma), four disparities per RGBA texel. Both one-sided filters
// in one dispatch (they share the centre tap): 1 + 2 * SIDE_TAPS fetches per invocation.
//
// Alignment: invocation (x, y) owns texel (x, y) and samples the rectangle texture at
// (x + 0.5 +/- TAP_OFFSETS[j], y + 0.5). The off-axis coordinate sits on a texel centre, so
// its bilinear weight is exactly zero. Compute has no rasteriser, so the tap coordinates
// the fragment backend takes from its eight interpolated varyings (Sec. 3) are formed here
// by one add per tap; every tap is computed the same way (no varying limit).
//
// Bilinear taps (gl_taps=bilinear, Sec. 3): taps i and i+1 (i = 1, 3, ..., W-1) are one
// GL_LINEAR fetch at i + w_{i+1} / (w_i + w_{i+1}) texels, weighted by (w_i + w_{i+1}) / F1,
// which gives w_i D[x+i] + w_{i+1} D[x+i+1] / F1 up to the sampler's sub-texel weight
// precision; tap 0 is a texelFetch of the pixel's own texel, weighted w_0 / F1. CLAMP_TO_EDGE
// clamps both texel indices of a pair, which is the reference's at_clamped() sum.
// gl_taps=nearest: TAP_OFFSETS = 1..W, TAP_WEIGHTS = w_k / F1, NEAREST filtering.
// The rgba8 store rounds like the fragment output (see salap_tad.comp).

#ifndef SIDE_TAPS
#error "SIDE_TAPS, TAP_OFFSETS, TAP_WEIGHTS, CENTRE_WEIGHT, IMAGE_FORMAT, STORE_UNORM8, LOCAL_X, LOCAL_Y are injected"
#endif

layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;

layout(binding = 0) uniform sampler2DRect u_cost;  // TAD of the group
layout(binding = 0, IMAGE_FORMAT) writeonly uniform image2DRect o_left;   // C_L: taps x - k
layout(binding = 1, IMAGE_FORMAT) writeonly uniform image2DRect o_right;  // C_R: taps x + k

uniform ivec2 u_size;

const float offsets[SIDE_TAPS] = TAP_OFFSETS;
const float weights[SIDE_TAPS] = TAP_WEIGHTS;

// rgba8 stores: round to the 8-bit grid here, half up (floor(v * 255 + 0.5)), so the
// normalised conversion of imageStore only sees values already on k / 255 and its own tie
// rule cannot matter. Mesa llvmpipe converts image stores with round-half-to-even but
// fragment outputs with round-half-up; TAD values such as 14/20 * 255 = 178.5 sit exactly
// on a tie, so without this the two backends' 8-bit intermediates differ. Half up is also
// reference::quantize8's std::round. `precise` keeps v * 255 a rounded product: fused into
// the + 0.5 (an fma, as LLVM emits it), 0.7 * 255 = 178.4999... would round down where
// quantize8 and the fragment path give 179.
vec4 storage(vec4 v) {
#if STORE_UNORM8
  precise vec4 scaled = clamp(v, 0.0, 1.0) * 255.0;
  return floor(scaled + 0.5) / 255.0;
#else
  return v;
#endif
}

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(p, u_size))) return;
  vec2 centre = vec2(p) + 0.5;
  vec4 c = texelFetch(u_cost, p) * CENTRE_WEIGHT;
  vec4 plus = c;
  vec4 minus = c;
  for (int j = 0; j < SIDE_TAPS; ++j) {
    plus += texture(u_cost, vec2(centre.x + offsets[j], centre.y)) * weights[j];
    minus += texture(u_cost, vec2(centre.x - offsets[j], centre.y)) * weights[j];
  }
  imageStore(o_left, p, storage(minus));
  imageStore(o_right, p, storage(plus));
}
