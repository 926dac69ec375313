#version 450 core
// `eval`'s figures and error picture for a map that stays on the GPU (the CUDA-GL interop):
// app/metrics.cpp's evaluate() and error_map() on the map as the scene's benchmark received it
// (app/protocol.cpp as_submitted), one work group per image row: its invocations take every
// LOCAL_X-th pixel of the row, then add their counts and sums in shared memory in a fixed tree
// order (so a map always gives the same sum). Each row's counts and its sum of |d - gt| go to
// two buffers; the host adds the rows in order (app/view/gl_figures.cpp).
//
// Exactly the host's arithmetic: the submitted value's float steps in the host's order, with
// `precise` so that no multiply and add fuse into one FMA; the submission scales are powers of
// two (x16, x8, x4, x256), so v * (1 / s) is v / s exactly; |d - gt| and its comparisons in
// double, as the host computes them. What the host decides once per scene (the masks, the
// grey of a correct pixel) comes in as textures.

#define LOCAL_X 256
layout(local_size_x = LOCAL_X) in;

layout(binding = 0) uniform sampler2D u_disparity;  // r32f, the map as computed; inf = none
layout(binding = 1) uniform sampler2D u_gt;         // r32f, ground truth; inf = unknown
layout(binding = 2) uniform usampler2D u_flags;     // r8ui, FLAG_* below
layout(binding = 3) uniform usampler2D u_grey;      // r8ui, error_map_grey() of the left image
layout(binding = 0, rgba8) uniform writeonly image2D u_error;

layout(std430, binding = 0) writeonly buffer Counts { uint counts[]; };     // COUNTS per row
layout(std430, binding = 1) writeonly buffer ErrorSums { double sums[]; };  // one per row

uniform ivec2 u_size;
uniform int u_rule;          // 0: the map as it is, 1: Middlebury v2's byte, 2: KITTI's 16-bit PNG
uniform float u_step;        // v2: the ground truth's scale; KITTI: 256
uniform float u_inv_step;    // 1 / u_step, exact (a power of two)
uniform double u_threshold;  // |d - gt| > threshold is bad
uniform int u_kitti;         // 1: count KITTI's D1 outliers

// app/metrics.h's MaskFlag, as mask_flags() sets them.
const uint FLAG_NONOCC = 1u;      // in the non-occluded mask (evaluate)
const uint FLAG_ALL = 2u;         // in the all mask
const uint FLAG_DISC = 4u;        // in the discontinuity mask
const uint FLAG_PICTURE_NONOCC = 8u;  // error_map's "non-occluded": no mask, or in it
const uint FLAG_AVERAGE = 16u;    // counts for the average error

// The counts of one row, in this order (gl_figures.cpp reads them so).
const int COUNTS = 10;

bool finite(float v) { return !isinf(v) && !isnan(v); }

const float NONE = uintBitsToFloat(0x7f800000u);  // +inf, as the host marks no disparity

float submitted(float d) {
  if (u_rule == 1) {  // round half up to a byte; none and negative are 0, the top is 255
    precise float x = d * u_step + 0.5;
    precise float v = finite(d) ? clamp(floor(x), 0.0, 255.0) : 0.0;
    return v * u_inv_step;
  }
  if (u_rule == 2) {  // round half away from zero to 16 bits; 0 is none
    if (!finite(d) || !(d > 0.0)) return NONE;
    precise float x = d * u_step;  // exact: a power of two
    precise float whole = floor(x);
    precise float v = min(65535.0, x - whole >= 0.5 ? whole + 1.0 : whole);
    return v == 0.0 ? NONE : v * u_inv_step;
  }
  return d;
}

shared uint s_counts[COUNTS][LOCAL_X];
shared double s_sums[LOCAL_X];

void main() {
  const int y = int(gl_WorkGroupID.x);
  const uint lane = gl_LocalInvocationID.x;
  uint c[COUNTS] = uint[COUNTS](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
  double sum = 0.0LF;
  for (int x = int(lane); x < u_size.x && y < u_size.y; x += LOCAL_X) {
    const ivec2 p = ivec2(x, y);
    const float d = submitted(texelFetch(u_disparity, p, 0).r);
    const float g = texelFetch(u_gt, p, 0).r;
    const uint flags = texelFetch(u_flags, p, 0).r;
    if (finite(d)) ++c[8];
    if (!finite(g)) {
      imageStore(u_error, p, vec4(0.0, 0.0, 0.0, 1.0));  // black: no ground truth
      continue;
    }
    const bool known = finite(d);
    const double err = known ? abs(double(d) - double(g)) : 0.0LF;
    const bool bad = !known || err > u_threshold;
    if ((flags & FLAG_NONOCC) != 0u) { ++c[0]; c[1] += bad ? 1u : 0u; }
    if ((flags & FLAG_ALL) != 0u) { ++c[2]; c[3] += bad ? 1u : 0u; }
    if ((flags & FLAG_DISC) != 0u) { ++c[4]; c[5] += bad ? 1u : 0u; }
    if (u_kitti == 1 && (flags & FLAG_ALL) != 0u) {
      ++c[6];
      c[7] += (!known || (err > 3.0LF && err > 0.05LF * abs(double(g)))) ? 1u : 0u;
    }
    if ((flags & FLAG_AVERAGE) != 0u && known) { sum += err; ++c[9]; }
    vec3 rgb;
    if (!bad) rgb = vec3(float(texelFetch(u_grey, p, 0).r) / 255.0);
    else if ((flags & FLAG_PICTURE_NONOCC) != 0u) rgb = vec3(230.0, 20.0, 20.0) / 255.0;
    else rgb = vec3(250.0, 160.0, 30.0) / 255.0;
    imageStore(u_error, p, vec4(rgb, 1.0));
  }
  for (int k = 0; k < COUNTS; ++k) s_counts[k][lane] = c[k];
  s_sums[lane] = sum;
  barrier();
  for (uint half_width = LOCAL_X / 2; half_width > 0u; half_width /= 2u) {
    if (lane < half_width) {
      for (int k = 0; k < COUNTS; ++k) s_counts[k][lane] += s_counts[k][lane + half_width];
      s_sums[lane] += s_sums[lane + half_width];
    }
    barrier();
  }
  if (lane == 0u && y < u_size.y) {
    for (int k = 0; k < COUNTS; ++k) counts[y * COUNTS + k] = s_counts[k][0];
    sums[y] = s_sums[0];
  }
}
