#version 450 core
// Vertical SA-LAP pass, compute form (Lu et al. eq. 6, Fig. 1; the fragment form is
// salap_vertical.frag): the four quadrant costs of a group,
//   C0 = down(C_L), C1 = up(C_L), C2 = down(C_R), C3 = up(C_R),
// down = sum_l C[y+l] w_l / F1, up = sum_l C[y-l] w_l / F1, in image row indices (texel
// row y = image row y; nothing is flipped). One dispatch, four image stores, both inputs
// read at the same coordinates: 2 * (1 + 2 * SIDE_TAPS) fetches per invocation.
//
// Alignment: invocation (x, y) owns texel (x, y) and samples at (x + 0.5, y + 0.5 +/-
// TAP_OFFSETS[j]); tap layout, bilinear pairing and border handling are those of
// salap_horizontal.comp along y. The rgba8 stores round like the fragment outputs.

#ifndef SIDE_TAPS
#error "SIDE_TAPS, TAP_OFFSETS, TAP_WEIGHTS, CENTRE_WEIGHT, IMAGE_FORMAT, STORE_UNORM8, LOCAL_X, LOCAL_Y are injected"
#endif

layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;

layout(binding = 0) uniform sampler2DRect u_left;   // C_L of the group
layout(binding = 1) uniform sampler2DRect u_right;  // C_R of the group
layout(binding = 0, IMAGE_FORMAT) writeonly uniform image2DRect o_c0;  // down(C_L)
layout(binding = 1, IMAGE_FORMAT) writeonly uniform image2DRect o_c1;  // up(C_L)
layout(binding = 2, IMAGE_FORMAT) writeonly uniform image2DRect o_c2;  // down(C_R)
layout(binding = 3, IMAGE_FORMAT) writeonly uniform image2DRect o_c3;  // up(C_R)

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
  vec4 l_centre = texelFetch(u_left, p) * CENTRE_WEIGHT;
  vec4 r_centre = texelFetch(u_right, p) * CENTRE_WEIGHT;
  vec4 l_down = l_centre, l_up = l_centre, r_down = r_centre, r_up = r_centre;
  for (int j = 0; j < SIDE_TAPS; ++j) {
    vec2 down = vec2(centre.x, centre.y + offsets[j]);
    vec2 up = vec2(centre.x, centre.y - offsets[j]);
    l_down += texture(u_left, down) * weights[j];
    l_up += texture(u_left, up) * weights[j];
    r_down += texture(u_right, down) * weights[j];
    r_up += texture(u_right, up) * weights[j];
  }
  imageStore(o_c0, p, storage(l_down));
  imageStore(o_c1, p, storage(l_up));
  imageStore(o_c2, p, storage(r_down));
  imageStore(o_c3, p, storage(r_up));
}
