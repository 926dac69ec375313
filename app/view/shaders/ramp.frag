#version 450 core
// The project's colour ramp (app/metrics.cpp colorize_disparity, through app/measure.cpp
// colorize_range) on the GPU, so that a map that never leaves the GPU (the CUDA-GL interop
// path) is drawn exactly as `stereo run --color` writes it. Every step is the host's float
// arithmetic in the host's order, and `precise` keeps the compiler from fusing a multiply and
// an add into one FMA, whose single rounding the host does not have. The host rounds with
// lround (half away from zero); for the non-negative values here that is "up when the
// fraction is >= 0.5", and the fraction x - floor(x) is exact for x in [0, 255].
// Texel centres: the target has the map's size and gl_FragCoord.xy - 0.5 is the texel read,
// fetched with texelFetch (no filtering). Row 0 of the map is row 0 of the target.

layout(binding = 0) uniform sampler2D u_disparity;  // r32f, disparity in pixels, inf = none
uniform float u_min;    // the searched range's smallest disparity
uniform float u_scale;  // 1 / (levels - 1) as the host computes it in float (1 for one level)

layout(location = 0) out vec4 o_colour;

const vec3 RAMP[9] = vec3[9](vec3(0.19, 0.07, 0.23), vec3(0.27, 0.35, 0.84), vec3(0.16, 0.64, 0.98),
                             vec3(0.11, 0.89, 0.71), vec3(0.45, 0.99, 0.37), vec3(0.83, 0.91, 0.21),
                             vec3(0.99, 0.65, 0.19), vec3(0.89, 0.27, 0.04), vec3(0.48, 0.02, 0.01));

float unorm_of(precise float v) {
  precise float x = v * 255.0;
  precise float whole = floor(x);
  return (x - whole >= 0.5 ? whole + 1.0 : whole) / 255.0;
}

void main() {
  const float d = texelFetch(u_disparity, ivec2(gl_FragCoord.xy), 0).r;
  if (isinf(d) || isnan(d)) {
    o_colour = vec4(0.0, 0.0, 0.0, 1.0);  // black: no disparity
    return;
  }
  precise float shifted = d - u_min;
  precise float t = clamp(shifted * u_scale, 0.0, 1.0) * 8.0;
  const int k = min(int(t), 7);
  precise float f = t - float(k);
  precise float one_minus_f = 1.0 - f;
  precise vec3 v = RAMP[k] * one_minus_f + RAMP[k + 1] * f;
  o_colour = vec4(unorm_of(v.r), unorm_of(v.g), unorm_of(v.b), 1.0);
}
