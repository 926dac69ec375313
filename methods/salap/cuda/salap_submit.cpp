// salap/cuda: one frame enqueued on a slot (salap_cuda.h), whole or in row slabs. Nothing here
// waits for the device; the matcher (salap_cuda.cpp) waits on the slot's clock and copies out.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "cuda/matcher_frame.h"
#include "methods/salap/cuda/salap_cuda.h"

namespace stereo::salap_cuda {
namespace {

namespace cs = cu::salap;

/// The raw images' rows r0 .. r1 - 1 as pack_pair reads them.
cs::RawPair raw_rows(const SlotBuffers& b, int r0, int r1) {
  const std::size_t offset = static_cast<std::size_t>(r0) * static_cast<std::size_t>(b.width) *
                             static_cast<std::size_t>(b.channels);
  return cs::RawPair{b.raw_left.get() + offset, b.raw_right.get() + offset, b.width, r1 - r0, b.channels};
}

/// One frame in SLABS row slabs, so that the matching starts while the rest still uploads:
/// slab k's rows are staged, copied and packed on the slot's stream; then the bands whose
/// rows and the W rows below them are on the device (all remaining ones after the last slab)
/// run on one of two lane streams, which take turns so that one launch's last wave shares
/// the SMs with the next one's first; the same lane merges those bands' key planes and reads
/// their indices back. Band launches give the same keys as the whole launch (every block
/// computes its own rows), so the map is bit-identical to submit without slabs (tested
/// against the stream, which submits whole frames). Clock: upload = the first slab;
/// algorithm = from there to the last band's keys, one lap (lap::SLABBED: the packs, the
/// kernels and the merges of the groups before the last run on three streams at once, beside
/// the other slabs' upload and the earlier bands' read-back); read-back = the last merge and
/// copy.
void submit_slabs(Slot& slot, SlotBuffers& b, const ImageView& left, const ImageView& right, DisparityRange range,
                  const Method& method) {
  cudaStream_t s = slot.stream.get();
  const int width = b.width, height = b.height;
  const std::size_t row_bytes = static_cast<std::size_t>(width) * static_cast<std::size_t>(b.channels);
  const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  const bool wide_index = DisparityMap::index_form(range.count) == DisparityMap::Form::index_u16;
  const std::size_t index_bytes = wide_index ? 2 : 1;
  const int band_rows = cs::fused_band_rows(slot.plan.tile);
  const std::array<SlabLaunch, SLABS> slabs = slab_launches(height, band_rows, method.params.radius());
  slot.clock.start(s);
  std::size_t staged = 0;
  int groups = 0;
  for (int k = 0; k < SLABS; ++k) {
    const SlabLaunch& slab = slabs[static_cast<std::size_t>(k)];
    const int r0 = slab.first_row, r1 = slab.end_row;
    if (r1 <= r0) continue;
    // The frame's upload; host views through the slab's part of the pinned staging.
    const cu::Staging staging{b.h_staging.get() + staged, &method.pool};
    cu::upload_rows(b, left, right, cu::RowSpan{r0, r1}, &staging, s);
    staged += 2 * static_cast<std::size_t>(r1 - r0) * row_bytes;
    if (k == 0) slot.clock.uploaded();
    const std::size_t first_pixel = static_cast<std::size_t>(r0) * static_cast<std::size_t>(width);
    cs::pack_pair(raw_rows(b, r0, r1), b.pair.code, b.pair.left.get() + first_pixel, b.pair.right.get() + first_pixel,
                  s);
    const cudaEvent_t packed = slot.slab_events[static_cast<std::size_t>(3 * k)].get();
    CUDA_CHECK(cudaEventRecord(packed, s));
    if (slab.end_band <= slab.first_band) continue;
    const int launched = slab.first_band, ready = slab.end_band;
    cudaStream_t lane = slot.lanes[static_cast<std::size_t>(groups % 2)].get();
    CUDA_CHECK(cudaStreamWaitEvent(lane, packed, 0));
    cs::salap_fused_bands(b.pair, range, method.params, slot.plan, launched, ready - launched, b.keys.get(), lane);
    CUDA_CHECK(cudaEventRecord(slot.slab_events[static_cast<std::size_t>(3 * groups + 1)].get(), lane));
    const std::size_t p0 = static_cast<std::size_t>(launched) * static_cast<std::size_t>(band_rows * width);
    const std::size_t p1 =
        std::min(static_cast<std::size_t>(ready) * static_cast<std::size_t>(band_rows * width), pixels);
    if (wide_index)
      cs::merge_chunks_index(b.keys.get(), slot.plan.chunks, pixels, p0, p1 - p0,
                             reinterpret_cast<std::uint16_t*>(b.d_index.get()), lane);
    else
      cs::merge_chunks_index(b.keys.get(), slot.plan.chunks, pixels, p0, p1 - p0, b.d_index.get(), lane);
    CUDA_CHECK(cudaMemcpyAsync(b.h_index.get() + p0 * index_bytes, b.d_index.get() + p0 * index_bytes,
                               (p1 - p0) * index_bytes, cudaMemcpyDeviceToHost, lane));
    CUDA_CHECK(cudaEventRecord(slot.slab_events[static_cast<std::size_t>(3 * groups + 2)].get(), lane));
    ++groups;
  }
  for (int g = 0; g < groups; ++g)
    CUDA_CHECK(cudaStreamWaitEvent(s, slot.slab_events[static_cast<std::size_t>(3 * g + 1)].get(), 0));
  slot.clock.lap(lap::SLABBED);
  slot.clock.matched();  // every band's keys
  for (int g = 0; g < groups; ++g)
    CUDA_CHECK(cudaStreamWaitEvent(s, slot.slab_events[static_cast<std::size_t>(3 * g + 2)].get(), 0));
  slot.clock.read_back();
}

}  // namespace

std::array<SlabLaunch, SLABS> slab_launches(int height, int band_rows, int radius) {
  const int bands = cu::div_up(height, band_rows);
  std::array<SlabLaunch, SLABS> out{};
  int launched = 0;
  for (int k = 0; k < SLABS; ++k) {
    SlabLaunch& slab = out[static_cast<std::size_t>(k)];
    slab.first_row = std::min(height, band_rows * (bands * k / SLABS));
    slab.end_row = k + 1 == SLABS ? height : std::min(height, band_rows * (bands * (k + 1) / SLABS));
    slab.first_band = slab.end_band = launched;
    if (slab.end_row <= slab.first_row) continue;
    // Bands whose rows and the W rows below them are packed.
    const int ready = slab.end_row == height ? bands : std::max(0, (slab.end_row - radius) / band_rows);
    if (ready > launched) slab.end_band = launched = ready;
  }
  return out;
}

bool slabs_apply(int height, const cs::FusedPlan& plan) {
  return cu::div_up(height, cs::fused_band_rows(plan.tile)) >= 2 * SLABS;
}

void submit(Slot& slot, const ImageView& left, const ImageView& right, DisparityRange range, bool slabs,
            const Method& method, const DisparityView* device_out) {
  SlotBuffers& b = *slot.work.held();
  slot.slabbed = slabs && device_out == nullptr && method.fused && slabs_apply(b.height, slot.plan);
  if (slot.slabbed) {
    submit_slabs(slot, b, left, right, range, method);
    return;
  }
  cudaStream_t s = slot.stream.get();
  const std::size_t pixels = static_cast<std::size_t>(b.width) * static_cast<std::size_t>(b.height);
  const bool wide_index = DisparityMap::index_form(range.count) == DisparityMap::Form::index_u16;
  slot.clock.start(s);
  // Both images in one pipeline of slices (the right image's first slices are copied while
  // the left image's last ones are on the link).
  const cu::Staging staging{b.h_staging.get(), &method.pool};
  cu::upload_rows(b, left, right, cu::RowSpan{0, b.height}, &staging, s);
  slot.clock.uploaded();
  cs::pack_pair(raw_rows(b, 0, b.height), b.pair.code, b.pair.left.get(), b.pair.right.get(), s);
  slot.clock.lap(lap::PACK);
  if (device_out != nullptr) {
    // The float map on the device (d_min + the level index, the floats the host widening
    // gives), copied into the caller's memory: the read-back never reaches the host.
    if (method.fused) {
      cs::salap_fused(b.pair, range, method.params, slot.plan, b.keys.get(), s);
      slot.clock.lap(lap::FUSED);
      cs::merge_chunks(b.keys.get(), slot.plan.chunks, range.min, b.disparity, s);
      slot.clock.lap(lap::MERGE);
    } else {
      cs::salap_stages(b.pair, range, method.params, *b.stages, b.disparity, s);
      slot.clock.lap(lap::STAGES);
    }
    slot.clock.matched();
    cu::read_back(b.disparity.get(), b.width, b.height, *device_out, s);
    slot.clock.read_back();
    return;
  }
  if (method.fused) {
    cs::salap_fused(b.pair, range, method.params, slot.plan, b.keys.get(), s);
    slot.clock.lap(lap::FUSED);
    if (wide_index)
      cs::merge_chunks_index(b.keys.get(), slot.plan.chunks, pixels, reinterpret_cast<std::uint16_t*>(b.d_index.get()),
                             s);
    else
      cs::merge_chunks_index(b.keys.get(), slot.plan.chunks, pixels, b.d_index.get(), s);
    slot.clock.lap(lap::MERGE);
  } else {
    cs::salap_stages(b.pair, range, method.params, *b.stages, b.disparity, s);
    slot.clock.lap(lap::STAGES);
    if (wide_index)
      cs::disparity_to_index(b.disparity, range.min, reinterpret_cast<std::uint16_t*>(b.d_index.get()), s);
    else
      cs::disparity_to_index(b.disparity, range.min, b.d_index.get(), s);
    slot.clock.lap(lap::LEVEL_INDEX);
  }
  slot.clock.matched();
  CUDA_CHECK(cudaMemcpyAsync(b.h_index.get(), b.d_index.get(), pixels * (wide_index ? 2 : 1), cudaMemcpyDeviceToHost,
                             s));
  slot.clock.read_back();
}

}  // namespace stereo::salap_cuda
