#version 450 core
// Vertical SA-LAP pass (Lu et al. eq. 6, Fig. 1): the four quadrant costs of a group,
//   C0 = down(C_L), C1 = up(C_L), C2 = down(C_R), C3 = up(C_R),
// down = sum_l C[y+l] w_l / F1, up = sum_l C[y-l] w_l / F1, in image row indices (texture
// row y = image row y = window row y; nothing is flipped). One pass, four colour
// attachments: both inputs are read at the same coordinates, so the eight varyings serve
// 2 * (1 + 2 * SIDE_TAPS) fetches. Tap layout, bilinear pairing and border handling are
// those of salap_horizontal.frag, along y (AXIS = (0, 1)).

#ifndef SIDE_TAPS
#error "AXIS, STORE_UNORM8, SIDE_TAPS, TAP_VARYINGS, TAP_OFFSETS, TAP_WEIGHTS, CENTRE_WEIGHT are injected by gl/salap_gl.cpp"
#endif

uniform sampler2DRect u_left;   // C_L of the group
uniform sampler2DRect u_right;  // C_R of the group

noperspective in vec4 v_tap[TAP_VARYINGS];

layout(location = 0) out vec4 o_c0;  // down(C_L)
layout(location = 1) out vec4 o_c1;  // up(C_L)
layout(location = 2) out vec4 o_c2;  // down(C_R)
layout(location = 3) out vec4 o_c3;  // up(C_R)

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
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec4 l_centre = texelFetch(u_left, p) * CENTRE_WEIGHT;
  vec4 r_centre = texelFetch(u_right, p) * CENTRE_WEIGHT;
  vec4 l_down = l_centre, l_up = l_centre, r_down = r_centre, r_up = r_centre;
  for (int j = 0; j < TAP_VARYINGS; ++j) {
    l_down += texture(u_left, v_tap[j].xy) * weights[j];
    l_up += texture(u_left, v_tap[j].zw) * weights[j];
    r_down += texture(u_right, v_tap[j].xy) * weights[j];
    r_up += texture(u_right, v_tap[j].zw) * weights[j];
  }
  for (int j = TAP_VARYINGS; j < SIDE_TAPS; ++j) {
    vec2 o = offsets[j] * AXIS;
    l_down += texture(u_left, gl_FragCoord.xy + o) * weights[j];
    l_up += texture(u_left, gl_FragCoord.xy - o) * weights[j];
    r_down += texture(u_right, gl_FragCoord.xy + o) * weights[j];
    r_up += texture(u_right, gl_FragCoord.xy - o) * weights[j];
  }
  o_c0 = storage(l_down);
  o_c1 = storage(l_up);
  o_c2 = storage(r_down);
  o_c3 = storage(r_up);
}
