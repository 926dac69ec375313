#pragma once
/// \file methods/salap/cuda/fused_shape.h
/// The fused kernel's block shapes (fused.cu) and what the host plans from them
/// (fused_plan.cpp: shared memory per block, chunking): one definition for both, so the plan
/// sizes the very blocks the kernel launches. Internal to salap/cuda.

#include <cstddef>

#include "methods/salap/cuda/stages.h"

namespace stereo::cu::salap::fused {

inline constexpr int G = 8;  // rows per group: vertical outputs per thread per recursion block
inline constexpr int P = 8;  // columns per horizontal item: outputs per recursion block
inline constexpr int MAX_FUSED_W = 32;
// Threads per SM that __launch_bounds__ asks room for: 512 caps either tile at 128 registers
// per thread (65536 / 512), so both compile under the same register budget.
inline constexpr int MIN_THREADS_PER_SM = 512;

// The block shapes (FusedTile): NT threads = region columns (TX = NT - 2W outputs + the
// halo), BH output rows per block (a band of BH / G groups). Maps do not depend on the tile:
// TX and BH are multiples of 8, so every recursion block, vertical and horizontal, starts at
// the same absolute row and column in every tile, and each output is the same sequence of
// float operations. Only the shared memory (ring and row buffers scale with NT) and the
// halo overhead (NT / TX) differ.
template <FusedTile T>
struct TileShape;
template <>
struct TileShape<FusedTile::wide> {
  static constexpr int NT = 256;
  static constexpr int BH = 32;
};
template <>
struct TileShape<FusedTile::narrow> {  // <= 63488 B at W = 32: fits every GPU from Turing on
  static constexpr int NT = 128;
  static constexpr int BH = 32;
};

template <int W_, FusedTile T>
struct Shape {
  static constexpr int W = W_;
  static constexpr int NT = TileShape<T>::NT;
  static constexpr int BH = TileShape<T>::BH;
  static constexpr int MIN_BLOCKS = MIN_THREADS_PER_SM / NT;
  static_assert(W % G == 0 && W >= G && W <= MAX_FUSED_W, "fused SA-LAP: W must be a multiple of 8, <= 32");
  static constexpr int TX = NT - 2 * W;         // output columns per block
  static constexpr int HG = W / G;              // halo groups above and below the band
  static constexpr int RING_GROUPS = 2 * HG + 1;  // D rows y-W .. y+7+W of one output group
  static constexpr int V = G + 2 * W;           // values one recursion block reads
  static constexpr int ITEMS_PER_ROW = TX / P;
  static constexpr int ITEMS = ITEMS_PER_ROW * G;
  // Row strides of the row buffers and of the running best: one 16-byte quad past a whole
  // number of 32-byte items, so the 8 rows one LDS.128 phase reads start in 8 different bank
  // quads (see the item mapping in the kernel).
  static constexpr int ROW_STRIDE = NT + 4;
  static constexpr int BEST_STRIDE = TX + 4;
  static constexpr std::size_t RING_FLOATS = std::size_t(RING_GROUPS) * G * NT;
  static constexpr std::size_t ROWS_FLOATS = std::size_t(2) * 2 * G * ROW_STRIDE;  // (down, up) x double buffer
  static constexpr std::size_t BEST_FLOATS = std::size_t(BH) * BEST_STRIDE;
  static constexpr std::size_t SHARED_BYTES =
      (RING_FLOATS + ROWS_FLOATS + BEST_FLOATS) * sizeof(float) + std::size_t(BH) * TX;  // + u8 best d
  static_assert(TX > 0 && TX % P == 0 && ITEMS <= NT, "fused SA-LAP: horizontal items must fit the block");
  static_assert(BH % G == 0, "fused SA-LAP: band must be whole groups");
};

/// Region columns (= threads) and output rows of a tile's block.
struct TileDims {
  int columns;  // region columns = threads
  int rows;     // output rows
};

inline TileDims tile_dims(FusedTile tile) {
  return tile == FusedTile::wide ? TileDims{TileShape<FusedTile::wide>::NT, TileShape<FusedTile::wide>::BH}
                                 : TileDims{TileShape<FusedTile::narrow>::NT, TileShape<FusedTile::narrow>::BH};
}

}  // namespace stereo::cu::salap::fused
