#pragma once
/// \file methods/salap/cuda/salap_cuda.h
/// What salap/cuda's matcher (salap_cuda.cpp: binding, path choice, compute, the three-slot
/// stream, the compact maps) shares with the enqueueing of one frame (salap_submit.cpp): the
/// backend's Options, one frame slot (stream, stage clock, workspace) and submit(), the names
/// of its laps, and what each lap moves through device memory (salap_bytes.cpp, for bench).

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/error.h"
#include "core/image.h"
#include "core/image_view.h"
#include "core/thread_pool.h"
#include "cuda/common.h"
#include "cuda/matcher_frame.h"
#include "cuda/stage_clock.h"
#include "cuda/workspace.h"
#include "methods/salap/cuda/stages.h"
#include "methods/salap/params.h"

namespace stereo::salap_cuda {

inline constexpr const char* COMPONENT = "salap/cuda";

/// Options of this backend only (bound beside SalapParams).
struct SalapCudaOptions {
  std::string path = "fused";  // the fused kernel; "stages" runs one kernel per stage and level
  int d_chunk = 0;             // levels per fused block; 0 = enough chunks for ~4 waves of blocks
  int smem_limit = 0;          // bytes; 0 = the GPU's opt-in limit (cudaDevAttrMaxSharedMemoryPerBlockOptin)
  std::string arithmetic = "float";  // the method's numbers; "half" trades precision for speed (NOTES.md)

  template <class B>
  void describe(B& b) {
    b.choice("path", path, {"fused", "stages"},
             "fused kernel (W in 8,16,24,32) or the unfused per-stage kernels (any W)");
    b.choice("arithmetic", arithmetic, {"float", "half"},
             "fused kernel: float, or half2 (two levels per thread, half-precision filters and eq. 3-4: "
             "faster, near ties may rank differently); the stage path is always float");
    b.field("d_chunk", d_chunk, "disparity levels per fused block, <= 256; 0 = automatic");
    b.field("smem_limit", smem_limit,
            "for tests: caps the shared memory per block (bytes) below the GPU's opt-in limit, to force the "
            "narrow fused tile or the stage path as a smaller GPU would; 0 = the GPU's limit");
  }

  void validate(const std::string& component) const {
    require(d_chunk >= 0 && d_chunk <= 256, component + ": d_chunk must be in 0..256, got " + std::to_string(d_chunk));
    require(smem_limit >= 0, component + ": smem_limit must be >= 0, got " + std::to_string(smem_limit));
  }
};

/// Every buffer one frame in flight needs (cuda/workspace.h): pinned staging and read-back, the
/// raw and packed images, the level indices (1 or 2 bytes a pixel), and the fused path's keys
/// or the stage path's images; the float map also on the fused path once a caller asked for
/// the map in device memory (compute_into).
struct SlotBuffers : cu::InputPair {
  struct Key {
    int width = 0, height = 0, channels = 0;
    std::size_t keys = 0;  // fused path: the per-chunk WTA key words (FusedPlan::key_count)
    bool stages = false;   // stage path: its images and float map
    bool float_map = false;  // the float map on either path (a map asked for in device memory)
    int levels = 0, chunks = 0;  // named in the memory check's message only
    bool operator==(const Key& o) const {
      return width == o.width && height == o.height && channels == o.channels && keys == o.keys &&
             stages == o.stages && float_map == o.float_map;
    }
  };
  cu::HostBuffer<std::uint8_t> h_staging;  // pinned: left image, then right image
  cu::HostBuffer<std::uint8_t> h_index;    // pinned: the read-back level indices
  cu::salap::DevicePair pair;
  cu::DeviceBuffer<std::uint8_t> d_index;  // width * height indices of 1 or 2 bytes
  cu::DeviceBuffer<std::uint64_t> keys;    // fused path
  std::unique_ptr<cu::salap::StageBuffers> stages;  // stage path
  cu::DeviceImage<float> disparity;                 // stage path, or Key::float_map

  static std::string describe(const Key& k) {
    return std::to_string(k.width) + "x" + std::to_string(k.height) + "x" + std::to_string(k.channels) + " with " +
           std::to_string(k.levels) + " levels (" +
           (k.stages ? std::string("stage path") : "fused, " + std::to_string(k.chunks) + " chunks") + ")";
  }

  void declare(cu::BufferList& list, const Key& k) {
    declare_inputs(list, k.width, k.height, k.channels);
    const std::size_t pixels = std::size_t(k.width) * std::size_t(k.height);
    list.pinned(h_staging, 2 * pixels * std::size_t(k.channels), "the image staging buffer");
    list.pinned(h_index, pixels * sizeof(std::uint16_t), "the disparity read-back buffer");
    pair.width = k.width;
    pair.height = k.height;
    list.buffer(pair.left, pixels, "the packed left image");
    list.buffer(pair.right, pixels, "the packed right image");
    list.buffer(d_index, pixels * sizeof(std::uint16_t), "the disparity level indices");
    if (k.keys > 0) list.buffer(keys, k.keys, "the per-chunk WTA keys");
    if (k.stages) {
      const int w = k.width, h = k.height;  // StageBuffers allocates its 9 float images itself
      list.external(9, [pixels] { return 9 * pixels * sizeof(float); },
                    [&] { stages = std::make_unique<cu::salap::StageBuffers>(w, h); });
    }
    if (k.stages || k.float_map) list.image(disparity, k.width, k.height, "the disparity map");
  }
};

/// Row slabs of a single frame (submit with slabs): the first slab's upload is all the upload
/// that nothing overlaps.
inline constexpr int SLABS = 4;

/// The names of the laps submit() marks on a slot's clock (Timing::stages), one definition for
/// the laps and for their bytes (stage_bytes).
namespace lap {
inline constexpr const char* PACK = "pack";
inline constexpr const char* FUSED = "fused tad+aggregate+wta";
inline constexpr const char* MERGE = "merge chunks";
/// A frame in row slabs: the packs, every band's fused launch and the merges of the groups
/// before the last, on the slot's and two lane streams at once, so not separable into laps.
inline constexpr const char* SLABBED = "row slabs: pack, fused tad+aggregate+wta, merge";
inline constexpr const char* STAGES = "stages (all levels)";
inline constexpr const char* LEVEL_INDEX = "level index";
}  // namespace lap

/// One slab of a frame in row slabs: its rows, and the bands launched once it is packed (those
/// whose rows and the W rows below them are on the device; none where first == end).
struct SlabLaunch {
  int first_row = 0, end_row = 0;
  int first_band = 0, end_band = 0;
};
/// The SLABS slabs of a frame of `height` rows in bands of `band_rows` rows at window radius
/// `radius` (band-aligned rows; the last slab launches every band left).
std::array<SlabLaunch, SLABS> slab_launches(int height, int band_rows, int radius);
/// Whether submit() with slabs cuts a frame of `height` rows into slabs under `plan`: at least
/// two bands a slab.
bool slabs_apply(int height, const cu::salap::FusedPlan& plan);

/// The fewest bytes each lap of a frame at `size` moves through device memory, by lap name:
/// on the fused path (`plan`: the matcher's plan for the size) the whole frame's laps and, where
/// the frame goes in slabs, the slabbed one; on the stage path (`plan` null) its three.
/// `channels`: the images' (the pack reads them); `radius`: W (which bands a slab launches).
/// Host arithmetic only (salap_bytes.cpp).
cu::StageBytes stage_bytes(const cu::ProblemSize& size, int channels, const cu::salap::FusedPlan* plan,
                           int radius);

/// Everything one frame in flight needs, made on the current device.
struct Slot {
  cu::Stream stream = cu::make_stream();
  cu::StageClock clock;
  // The slab pipeline (submit with slabs): two streams that take turns with the band launches,
  // and per slab the events "packed", "matched" and "read back".
  std::array<cu::Stream, 2> lanes{cu::make_stream(), cu::make_stream()};
  std::array<cu::Event, 3 * SLABS> slab_events;
  cu::Workspace<SlotBuffers> work{COMPONENT};  // reused while the image size stays the same
  cu::salap::FusedPlan plan;                   // of the frame submitted last
  bool slabbed = false;                        // how the slot's last frame was submitted

  Slot() {
    for (auto& e : slab_events) e = cu::make_event();
  }
};

/// What submit() needs of the matcher.
struct Method {
  const SalapParams& params;
  bool fused;         // the fused kernel (else the stage path)
  ThreadPool& pool;   // the host threads of the staged upload
};

/// Queues frame (left, right) on the slot's stream (its buffers prepared for the pair, its plan
/// made for `range`): upload, pack, match, indices, read-back into the slot's pinned buffer,
/// each step marked on the slot's clock. Returns without waiting for the device. With `slabs`
/// (and the fused path on a frame of at least 2 SLABS bands) the frame goes in SLABS row
/// slabs, so that the matching starts while the rest still uploads (salap_submit.cpp).
/// The images go up by the frame's upload (cu::upload_rows), whole or by slab: host views (any
/// pitch) through the slot's pinned staging, their rows gathered by the host threads; views in
/// device memory device to device. With `device_out` (a map in device memory, the slot's buffers made with
/// Key::float_map) the frame is whole, its float map is made on the device and copied into
/// *device_out as the read-back, and no index reaches the host.
void submit(Slot& slot, const ImageView& left, const ImageView& right, DisparityRange range, bool slabs,
            const Method& method, const DisparityView* device_out = nullptr);

}  // namespace stereo::salap_cuda
