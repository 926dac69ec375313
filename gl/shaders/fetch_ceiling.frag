#version 450 core
// Fetch-ceiling pass: nine bilinear RGBA8 fetches per fragment from varyings, summed with
// constant weights into an RGBA8 target; no other work. Its texel rate is the roof the
// bench measures the SA-LAP passes against (methods/salap/gl/salap_gl.cpp fetch_stats()).

uniform sampler2DRect u_source;

noperspective in vec4 v_tap[5];

layout(location = 0) out vec4 o_colour;

void main() {
  vec4 sum = vec4(0.0);
  for (int j = 0; j < 4; ++j) {
    sum += texture(u_source, v_tap[j].xy);
    sum += texture(u_source, v_tap[j].zw);
  }
  sum += texture(u_source, v_tap[4].xy);
  o_colour = sum * (1.0 / 9.0);
}
