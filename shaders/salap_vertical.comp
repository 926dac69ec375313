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
#error "SIDE_TAPS, TAP_OFFSETS, TAP_WEIGHTS, CENTRE_WEIGHT, IMAGE_FORMAT, LOCAL_X, LOCAL_Y are injected"
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
  imageStore(o_c0, p, l_down);
  imageStore(o_c1, p, l_up);
  imageStore(o_c2, p, r_down);
  imageStore(o_c3, p, r_up);
}
