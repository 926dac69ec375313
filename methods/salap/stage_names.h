#pragma once
/// \file methods/salap/stage_names.h
/// The names under which every backend of SA-LAP shows its stages to the pass inspector
/// (core/inspect.h), with what each holds: "<timed stage>.<target>" where one timed stage
/// writes several targets (Timing::stages names "tad", "horizontal", "vertical", "select"), so
/// a GL pass and the CPU reference's stage of one name hold the same quantity and a test
/// compares them in one loop over names.

namespace stereo::salap {

struct StageName {
  const char* name;
  const char* what;
};

inline constexpr StageName TAD_STAGE{"tad", "D = min(|I_L(x,y) - I_R(x-d,y)|, tau) / tau: the truncated absolute difference"};
inline constexpr StageName HORIZONTAL_STAGES[2] = {
    {"horizontal.c_left", "C_L: D through the one-sided horizontal kernel, taps x-k (weights exp(-k/gamma) / F1)"},
    {"horizontal.c_right", "C_R: D through the one-sided horizontal kernel, taps x+k"}};
inline constexpr StageName VERTICAL_STAGES[4] = {
    {"vertical.c0", "C0: C_L through the one-sided vertical kernel, taps y+l (down)"},
    {"vertical.c1", "C1: C_L through the one-sided vertical kernel, taps y-l (up)"},
    {"vertical.c2", "C2: C_R through the one-sided vertical kernel, taps y+l (down)"},
    {"vertical.c3", "C3: C_R through the one-sided vertical kernel, taps y-l (up)"}};
inline constexpr StageName WINDOW_COST_STAGE{"window_cost", "Cmin: eq. 3-4 over C0..C3, the cost the winner-takes-all compares"};
inline constexpr StageName SELECT_STAGE{"select", "the winner-takes-all's level index (disparity - range min), all levels done"};

}  // namespace stereo::salap
