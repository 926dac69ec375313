#pragma once
/// \file reference/winner_takes_all.h
/// The winner-takes-all of the references' cost volumes (AD-Census's winner_takes_all, ESAW's
/// select_disparity, the cross-based method's wta): the lowest cost per pixel, the smallest
/// disparity winning a tie, as the kernels' strict `<` scans in increasing disparity do.

#include <cstddef>

#include "core/image.h"
#include "core/thread_pool.h"
#include "reference/cost_volume.h"

namespace stereo::reference {

/// The level k of the lowest cost at (x, y); the lowest k wins a tie.
template <class T>
int lowest_cost_level(const Volume<T>& cost, int x, int y) {
  int best = 0;
  for (int k = 1; k < cost.range.count; ++k)
    if (cost.at(x, y, k) < cost.at(x, y, best)) best = k;  // strict: the smallest d keeps a tie
  return best;
}

/// Per pixel, the disparity (range.min + level) of the lowest cost, rows spread over the CPU.
template <class T>
ImageF lowest_cost_disparity(const Volume<T>& cost) {
  ImageF disparity(cost.width, cost.height, 1);
  parallel_for(std::size_t(cost.height), 0, [&](std::size_t item) {
    const int y = int(item);
    for (int x = 0; x < cost.width; ++x) disparity.at(x, y) = float(cost.range.min + lowest_cost_level(cost, x, y));
  });
  return disparity;
}

}  // namespace stereo::reference
