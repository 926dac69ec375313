#pragma once
/// \file methods/salap/cuda/salap_inspect.h
/// salap/cuda's pass inspector. Neither path keeps a volume: the fused kernel keeps no
/// intermediate at all, the stage path one level's images, overwritten by the next. So the
/// inspector re-runs the stage kernels (stages.h: tad_cost, filter_horizontal/vertical,
/// window_cost) on the run's packed pair, still in the slot's workspace, for the one level a
/// read() asks for, and copies that stage's image to the host: one level costs seven small
/// launches and no volume is ever held. The names are the CPU reference's and the GL passes'
/// (methods/salap/stage_names.h); "select" is the run's own map, in level indices.

#include <memory>
#include <string>
#include <vector>

#include "core/disparity_range.h"
#include "core/image.h"
#include "core/inspect.h"
#include "core/pass_table.h"
#include "methods/salap/cuda/salap_cuda.h"
#include "methods/salap/cuda/stages.h"
#include "methods/salap/params.h"

namespace stereo::salap_cuda {

class SalapCudaInspector final : public PassInspector {
 public:
  explicit SalapCudaInspector(const SalapParams& params) : params_(params) {}

  /// The frame `slot` ran last over `range`, on device `ordinal`; reads wait for the slot's
  /// stream and read its workspace, so they see this frame until the slot runs another.
  void attach(Slot& slot, DisparityRange range, int ordinal);
  /// Shows nothing (a sequence ran: its slots hold other frames).
  void detach() { table_.clear(); }

  [[nodiscard]] std::vector<PassLayout> passes() const override { return table_.passes(); }
  [[nodiscard]] ImageF read(const std::string& name, int slice) override { return table_.read(name, slice); }

 private:
  ImageF stage_at(int stage, int d);
  ImageF select() const;

  SalapParams params_;
  Slot* slot_ = nullptr;
  DisparityRange range_;
  int ordinal_ = 0;
  PassTable table_{COMPONENT};
  std::unique_ptr<cu::salap::StageBuffers> buffers_;
};

}  // namespace stereo::salap_cuda
