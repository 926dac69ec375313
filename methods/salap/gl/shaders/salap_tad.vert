#version 450 core
// TAD pass, vertex stage: the right-image coordinates x-d0-k (k = 0..3) of the four
// disparities of this group, d0 = u_dmin + the group's first level index, in texel units of the rectangle textures, so the rasteriser
// interpolates them (Lu et al. Sec. 3: support coordinates in VS + rasteriser, not in PS).
// At a fragment centre the interpolated value is x + 0.5 - d0 - k exactly: the vertex values
// are 0 and 2 * size, so the plane has slope 1 and the NEAREST fetch lands on a texel centre.

uniform vec2 u_size;  // width, height in pixels
uniform int u_d0;     // first level index of this group (0, 4, 8, ...)
uniform int u_dmin;   // the smallest disparity searched: level index i is disparity u_dmin + i

noperspective out vec4 v_right01;  // .xy: x-d0, .zw: x-d0-1
noperspective out vec4 v_right23;  // .xy: x-d0-2, .zw: x-d0-3

void main() {
  vec2 pos = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
  gl_Position = vec4(pos, 0.0, 1.0);
  vec2 centre = (pos * 0.5 + 0.5) * u_size;
  float d = float(u_d0 + u_dmin);
  v_right01 = vec4(centre.x - d, centre.y, centre.x - d - 1.0, centre.y);
  v_right23 = vec4(centre.x - d - 2.0, centre.y, centre.x - d - 3.0, centre.y);
}
