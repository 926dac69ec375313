#pragma once
/// \file methods/adcensus/stage_names.h
/// What the pass inspectors of adcensus/cpu and adcensus/cuda say a stage holds, once for both
/// (the names are "<timed stage of adcensus/cuda>.<buffer>": cuda/adcensus_inspect.h).

namespace stereo::adcensus {

inline constexpr const char* CENSUS_WHAT = "the census transform's 64-bit string (Sec. 2.1), 16 bits a channel";
inline constexpr const char* ARMS_WHAT = "the cross arms' lengths (Sec. 2.2): left, right, up, down";
inline constexpr const char* C1_RIGHT_WHAT = "C1 of the right view: the left view's aggregated cost, skewed (Sec. 2.2)";
inline constexpr const char* C2_WHAT = "C2: the mean of the four paths (eq. 5), the left view's volume after the scanline stage";
inline constexpr const char* WTA_WHAT = "the winner-takes-all of the view's C2, disparity in pixels";

}  // namespace stereo::adcensus
