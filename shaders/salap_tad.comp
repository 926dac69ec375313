#version 450 core
// TAD pass, compute form (Lu et al. Sec. 2, Fig. 1 "TAD"; the fragment form is
// salap_tad.frag): channel k = min(|I_L(x,y) - I_R(x-d0-k,y)|, tau) / tau, four disparities
// per RGBA texel (Sec. 3).
//
// Alignment: invocation (x, y) = gl_GlobalInvocationID.xy owns pixel (x, y) = texel (x, y)
// of every image (row 0 = image row 0, nothing flipped) and samples the rectangle textures
// at texel centres (x + 0.5 - d0 - k, y + 0.5): the coordinate the fragment pass's
// interpolated varyings hold at its fragment centre. Both images are RGBA8 with NEAREST and
// CLAMP_TO_EDGE, so x-d0-k < 0 reads column 0, the reference's clamp-to-edge; texelFetch is
// used only for the pixel's own (always valid) left texel, since it has no border clamping.
//
// Intensities go back to integer levels (round(v * 255) undoes the unorm8 conversion
// exactly), then COST_MODE 0 rgb_mean / 1 luma / 2 grey as in reference/salap.cpp.
// rgba8 (STORE_UNORM8 1): the value is put on the 8-bit grid before imageStore (storage()
// below), rounding half up as the fragment backend's RGBA8 outputs do on Mesa, so the
// 8-bit intermediates of the two backends are the same.

#ifndef COST_MODE
#error "COST_MODE, TAU, IMAGE_FORMAT, STORE_UNORM8, LOCAL_X, LOCAL_Y are injected by gl/salap_glcompute.cpp"
#endif

layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;

layout(binding = 0) uniform sampler2DRect u_left;
layout(binding = 1) uniform sampler2DRect u_right;
layout(binding = 0, IMAGE_FORMAT) writeonly uniform image2DRect o_cost;

uniform ivec2 u_size;  // width, height in pixels
uniform int u_d0;      // first disparity of this group

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

float difference(vec3 l, vec4 right_texel) {
  vec3 r = round(right_texel.rgb * 255.0);
#if COST_MODE == 0
  vec3 d = abs(l - r);
  return (d.r + d.g + d.b) / 3.0;
#elif COST_MODE == 1
  return abs(dot(l, vec3(0.299, 0.587, 0.114)) - dot(r, vec3(0.299, 0.587, 0.114)));
#else
  return abs(l.r - r.r);
#endif
}

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(p, u_size))) return;  // the partial groups at the right/top edges
  vec2 centre = vec2(p) + 0.5;
  float d = float(u_d0);
  vec3 l = round(texelFetch(u_left, p).rgb * 255.0);
  vec4 diff = vec4(difference(l, texture(u_right, vec2(centre.x - d, centre.y))),
                   difference(l, texture(u_right, vec2(centre.x - d - 1.0, centre.y))),
                   difference(l, texture(u_right, vec2(centre.x - d - 2.0, centre.y))),
                   difference(l, texture(u_right, vec2(centre.x - d - 3.0, centre.y))));
  imageStore(o_cost, p, storage(min(diff, vec4(TAU)) / TAU));
}
