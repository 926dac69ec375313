#version 450 core
// Fetch-ceiling pass, compute form (the fragment form: fetch_ceiling.vert, fetch_ceiling.frag):
// nine bilinear RGBA8 fetches per invocation along x, summed with constant weights and stored
// into an rgba8 image; no other work. Its texel rate is the roof the bench measures the
// glcompute SA-LAP passes against (methods/salap/gl/salap_glcompute.cpp fetch_stats()).
//
// Alignment: invocation (x, y) owns texel (x, y) and samples at (x + 0.5 + 2m - 8 + 0.45,
// y + 0.5), m = 0..8: the fragment pass's offsets, each between two texel centres, so every
// tap is a genuine bilinear fetch.

#ifndef LOCAL_X
#error "LOCAL_X, LOCAL_Y are injected by gl/salap_glcompute.cpp"
#endif

layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;

layout(binding = 0) uniform sampler2DRect u_source;
layout(binding = 0, rgba8) writeonly uniform image2DRect o_target;

uniform ivec2 u_size;

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(p, u_size))) return;
  vec2 centre = vec2(p) + 0.5;
  vec4 sum = vec4(0.0);
  for (int m = 0; m < 9; ++m) sum += texture(u_source, vec2(centre.x + float(2 * m - 8) + 0.45, centre.y));
  imageStore(o_target, p, sum * (1.0 / 9.0));
}
