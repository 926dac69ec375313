#version 450 core
// TAD pass, compute form (Lu et al. Sec. 2, Fig. 1 "TAD"; the fragment form is
// salap_tad.frag): channel k = min(|I_L(x,y) - I_R(x-d0-k,y)|, tau) / tau, four disparities
// per RGBA texel (Sec. 3).
//
// Alignment: invocation (x, y) = gl_GlobalInvocationID.xy owns pixel (x, y) = texel (x, y)
// of every image (row 0 = image row 0, nothing flipped) and samples the rectangle textures
// at texel centres (x + 0.5 - d0 - k, y + 0.5): the coordinate the fragment pass's
// interpolated varyings hold at its fragment centre. Both images are RGBA8 with NEAREST and
// CLAMP_TO_EDGE, so x-d0-k < 0 reads column 0 and x-d0-k >= width (a negative disparity) the
// last column, the reference's clamp-to-edge; texelFetch is
// used only for the pixel's own (always valid) left texel, since it has no border clamping.
//
// Intensities go back to integer levels (round(v * 255) undoes the unorm8 conversion
// exactly), then COST_MODE 0 rgb_mean / 1 luma / 2 grey as in reference/salap.cpp.
// rgba8 (STORE_UNORM8 1): the value is put on the 8-bit grid before imageStore, rounding
// half up as reference::quantize8 and the fragment backend's RGBA8 outputs (on Mesa) do.

#ifndef COST_MODE
#error "COST_MODE, TAU, IMAGE_FORMAT, STORE_UNORM8, LOCAL_X, LOCAL_Y are injected by gl/salap_glcompute.cpp"
#endif

layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;

layout(binding = 0) uniform sampler2DRect u_left;
layout(binding = 1) uniform sampler2DRect u_right;
layout(binding = 0, IMAGE_FORMAT) writeonly uniform image2DRect o_cost;

uniform ivec2 u_size;  // width, height in pixels
uniform int u_d0;      // first level index of this group (0, 4, 8, ...)
uniform int u_dmin;    // the smallest disparity searched: level index i is disparity u_dmin + i

// rgb_mean keeps the integer sum of the three |differences| and divides by 3 together with
// tau (RANGE = 3 tau): one division of exact values, see main().
#if COST_MODE == 0
const float RANGE = 3.0 * TAU;
#else
const float RANGE = TAU;
#endif

float difference(vec3 l, vec4 right_texel) {
  vec3 r = round(right_texel.rgb * 255.0);
#if COST_MODE == 0
  vec3 d = abs(l - r);
  return d.r + d.g + d.b;
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
  float d = float(u_d0 + u_dmin);
  vec3 l = round(texelFetch(u_left, p).rgb * 255.0);
  vec4 diff = vec4(difference(l, texture(u_right, vec2(centre.x - d, centre.y))),
                   difference(l, texture(u_right, vec2(centre.x - d - 1.0, centre.y))),
                   difference(l, texture(u_right, vec2(centre.x - d - 2.0, centre.y))),
                   difference(l, texture(u_right, vec2(centre.x - d - 3.0, centre.y))));
  diff = min(diff, vec4(RANGE));
#if STORE_UNORM8
  // Rounded to the 8-bit grid here, half up, so the driver's float -> unorm8 tie rule for
  // image stores never decides (Mesa llvmpipe rounds image stores half to even, fragment
  // outputs half up). The grid level diff * 255 / RANGE is formed from exact operands
  // (diff * 255 is an integer for rgb_mean and grey) so an exact tie such as
  // 14 * 255 / 60 = 59.5 stays a tie and rounds up, as reference::quantize8 rounds it;
  // (14 / 3) / 20 * 255 in float is 59.4999962 and would round down. `precise` keeps the
  // compiler from reordering it.
  precise vec4 level = diff * 255.0 / RANGE;
  imageStore(o_cost, p, floor(level + 0.5) / 255.0);
#else
  imageStore(o_cost, p, diff / RANGE);
#endif
}
