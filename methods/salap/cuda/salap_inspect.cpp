#include "methods/salap/cuda/salap_inspect.h"

#include <cstdint>

#include "methods/salap/stage_names.h"

namespace stereo::salap_cuda {
namespace {

namespace cs = cu::salap;

// In pipeline order; stage_at() runs the kernels up to the one asked.
constexpr int STAGES = 8;
constexpr salap::StageName STAGE_NAMES[STAGES] = {
    salap::TAD_STAGE,          salap::HORIZONTAL_STAGES[0], salap::HORIZONTAL_STAGES[1], salap::VERTICAL_STAGES[0],
    salap::VERTICAL_STAGES[1], salap::VERTICAL_STAGES[2],   salap::VERTICAL_STAGES[3],   salap::WINDOW_COST_STAGE};

}  // namespace

void SalapCudaInspector::attach(Slot& slot, DisparityRange range, int ordinal) {
  slot_ = &slot;
  range_ = range;
  ordinal_ = ordinal;
  const SlotBuffers& b = *slot.work.held();
  table_.clear();
  for (int s = 0; s < STAGES; ++s)
    table_.add(level_layout(STAGE_NAMES[s].name,
                            std::string(STAGE_NAMES[s].what) +
                                " (the stage kernel, re-run for the level read: no path keeps it)",
                            "float device image", b.width, b.height, range),
               [this, s](int k) { return stage_at(s, range_.min + k); });
  const bool wide = DisparityMap::index_form(range.count) == DisparityMap::Form::index_u16;
  table_.add(image_layout(salap::SELECT_STAGE.name, std::string(salap::SELECT_STAGE.what) + " (the run's map, as read back)",
                          wide ? "uint16 level indices" : "uint8 level indices", b.width, b.height),
             [this](int) { return select(); });
}

ImageF SalapCudaInspector::stage_at(int stage, int d) {
  const cu::DeviceScope scope(ordinal_);
  const SlotBuffers& b = *slot_->work.held();
  const cudaStream_t s = slot_->stream.get();
  CUDA_CHECK(cudaStreamSynchronize(s));
  if (!buffers_ || buffers_->tad.width != b.width || buffers_->tad.height != b.height)
    buffers_ = std::make_unique<cs::StageBuffers>(b.width, b.height);
  cs::StageBuffers& t = *buffers_;
  cs::tad_cost(b.pair, d, params_, t.tad, s);
  if (stage >= 1) {
    cs::filter_horizontal(t.tad, cs::Side::left, params_, t.cl, s);
    cs::filter_horizontal(t.tad, cs::Side::right, params_, t.cr, s);
  }
  if (stage >= 3) {
    cs::filter_vertical(t.cl, cs::Side::down, params_, t.c0, s);
    cs::filter_vertical(t.cl, cs::Side::up, params_, t.c1, s);
    cs::filter_vertical(t.cr, cs::Side::down, params_, t.c2, s);
    cs::filter_vertical(t.cr, cs::Side::up, params_, t.c3, s);
  }
  if (stage == 7) cs::window_cost(t.c0, t.c1, t.c2, t.c3, params_, t.cost, s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  const cu::DeviceImage<float>* images[STAGES] = {&t.tad, &t.cl, &t.cr, &t.c0, &t.c1, &t.c2, &t.c3, &t.cost};
  return cu::download(*images[stage]);
}

ImageF SalapCudaInspector::select() const {
  const SlotBuffers& b = *slot_->work.held();
  CUDA_CHECK(cudaStreamSynchronize(slot_->stream.get()));
  ImageF out(b.width, b.height, 1);
  const std::uint8_t* h = b.h_index.get();
  const bool wide = DisparityMap::index_form(range_.count) == DisparityMap::Form::index_u16;
  for (std::size_t i = 0; i < out.data.size(); ++i)
    out.data[i] = wide ? float(reinterpret_cast<const std::uint16_t*>(h)[i]) : float(h[i]);
  return out;
}

}  // namespace stereo::salap_cuda
