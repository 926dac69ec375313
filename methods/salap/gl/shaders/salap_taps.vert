#version 450 core
// SA-LAP 1D filter passes, vertex stage: the support coordinates of one-sided truncated
// Laplacian filters along AXIS, computed per vertex and interpolated by the rasteriser
// (Lu et al. Sec. 3: "we shift the computation of support pixel coordinates from pixel
// shaders to vertex shaders and the rasterizer"). v_tap[j] packs two coordinates:
//   .xy = centre + TAP_OFFSETS[j] * AXIS    (x+k, or y+l: the "right"/"down" side)
//   .zw = centre - TAP_OFFSETS[j] * AXIS    (x-k, or y-l: the "left"/"up" side)
// TAP_VARYINGS = min(SIDE_TAPS, 8) vec4s: the paper's eight interpolators; with the default
// W = 16 all eight bilinear pairs of each side fit. Coordinates are in texel units of the
// rectangle textures; the centre is x + 0.5 exactly at a fragment centre (vertex values
// 0 and 2 * size, slope 1), so the off-axis bilinear weight is exactly zero.

#ifndef SIDE_TAPS
#error "AXIS, SIDE_TAPS, TAP_VARYINGS, TAP_OFFSETS, TAP_WEIGHTS, CENTRE_WEIGHT are injected by gl/salap_gl.cpp"
#endif

uniform vec2 u_size;

noperspective out vec4 v_tap[TAP_VARYINGS];

void main() {
  vec2 pos = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
  gl_Position = vec4(pos, 0.0, 1.0);
  vec2 centre = (pos * 0.5 + 0.5) * u_size;
  const float offsets[SIDE_TAPS] = TAP_OFFSETS;
  for (int j = 0; j < TAP_VARYINGS; ++j) {
    vec2 o = offsets[j] * AXIS;
    v_tap[j] = vec4(centre + o, centre - o);
  }
}
