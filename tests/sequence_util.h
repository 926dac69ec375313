#pragma once
// Shared by the sequence tests (tests/test_cuda_sequences.cpp, the methods' own stream tests):
// pairs of different content and a source that streams them through match_sequence.

#include <cstddef>
#include <functional>
#include <vector>

#include "core/disparity_range.h"
#include "core/image.h"
#include "core/matcher.h"
#include "tests/test_util.h"

namespace stereo::test {

struct Pairs {
  std::vector<ImageU8> left, right;
};

/// `count` pairs at this size, pair i a texture of seed `seed + i` shifted by 3 + 2 i.
inline Pairs make_pairs(int count, int width, int height, unsigned seed, int channels = 3) {
  Pairs p;
  for (int i = 0; i < count; ++i) {
    p.left.push_back(random_texture(width, height, seed + unsigned(i), channels));
    p.right.push_back(shifted(p.left.back(), 3 + 2 * i));
  }
  return p;
}

/// Streams `frames` frames cycling over `pairs` through match_sequence; `each` sees every result.
inline void stream(Matcher& m, const Pairs& pairs, DisparityRange range, std::size_t frames,
                   const std::function<void(FrameResult&&)>& each) {
  std::size_t given = 0;
  m.match_sequence(
      range,
      [&](FramePair& pair) {
        if (given == frames) return false;
        pair.left = pairs.left[given % pairs.left.size()];
        pair.right = pairs.right[given % pairs.right.size()];
        ++given;
        return true;
      },
      each);
}

}  // namespace stereo::test
