#version 450 core
// One triangle covering the viewport: (-1,-1), (3,-1), (-1,3) from gl_VertexID, no vertex
// buffer. Window row y is texture row y of every attachment (no flip anywhere).

void main() {
  vec2 pos = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
  gl_Position = vec4(pos, 0.0, 1.0);
}
