#version 450 core
// Fetch-ceiling pass, vertex stage: nine tap coordinates along x, packed two per varying
// like the SA-LAP passes. Offsets (2j - 8) + 0.45 texels put every tap between two texel
// centres, so each is a genuine bilinear fetch.

uniform vec2 u_size;

noperspective out vec4 v_tap[5];

void main() {
  vec2 pos = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
  gl_Position = vec4(pos, 0.0, 1.0);
  vec2 centre = (pos * 0.5 + 0.5) * u_size;
  for (int j = 0; j < 5; ++j) {
    float a = float(4 * j - 8) + 0.45;
    float b = float(4 * j - 6) + 0.45;
    v_tap[j] = vec4(centre.x + a, centre.y, centre.x + b, centre.y);
  }
}
