// The kept stage volumes of esaw/cuda and esmp/cuda (esaw_inspect.h): the copies a run makes
// while keep_passes(true) holds, and the inspector's reads of one plane of them.

#include "methods/esaw/cuda/esaw_inspect.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "cuda/shared/inspect_reads.h"

namespace stereo::cu::esaw {
namespace {

// Plane k of a kept volume (one disparity), widened to float without changing a value.
ImageF kept_plane(const DeviceVolume& v, int k, int ordinal) {
  const DeviceScope scope(ordinal);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint16_t> bits(v.plane_cells());
  CUDA_CHECK(cudaMemcpy(bits.data(), v.plane(k), bits.size() * sizeof(std::uint16_t), cudaMemcpyDeviceToHost));
  ImageF out(v.width, v.height, 1);
  for (std::size_t i = 0; i < bits.size(); ++i) out.data[i] = half_bits_to_float(bits[i]);
  return out;
}

}  // namespace

std::uint16_t* StageKeeper::slot(const std::string& name, int first_plane) {
  if (!on()) return nullptr;
  require(kept_.size() == plan_.size(), [&] {
    return component_ + ": keep_passes holds " + std::to_string(kept_.size()) + " volumes for " +
           std::to_string(plan_.size()) + " kept stages";
  });
  for (std::size_t i = 0; i < plan_.size(); ++i)
    if (plan_[i].name == name) {
      require(first_plane >= 0 && first_plane < kept_[i].planes, [&] {
        return component_ + ": kept stage " + name + " has " + std::to_string(kept_[i].planes) + " planes, plane " +
               std::to_string(first_plane) + " asked for";
      });
      return kept_[i].plane(first_plane);
    }
  throw Error(component_ + ": no kept stage '" + name + "' in the plan of keep_passes");
}

void StageKeeper::copy(const std::string& name, const std::uint16_t* src, int first_plane, int planes,
                       cudaStream_t stream) {
  std::uint16_t* dst = slot(name, first_plane);
  if (dst == nullptr) return;
  const std::size_t plane_bytes = kept_.front().plane_cells() * sizeof(std::uint16_t);
  CUDA_CHECK(cudaMemcpyAsync(dst, src, plane_bytes * std::size_t(planes), cudaMemcpyDeviceToDevice, stream));
  if (clock_) clock_->lap(KEEP_LAP);
}

void show_kept(StageShow& show, const std::vector<KeptStage>& plan, const std::vector<DeviceVolume>& kept,
               DisparityRange range, const std::string& note) {
  if (kept.size() != plan.size()) return;  // not kept (keep_passes was off when the workspace was made)
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const DeviceVolume* v = &kept[i];
    show.add(level_layout(plan[i].name, plan[i].what + (plan[i].stored_by_pass ? "" : note), "fp16 device volume, disparity planes (kept copy)",
                          v->width, v->height, range),
             [v, ordinal = show.ordinal()](int k) { return kept_plane(*v, k, ordinal); });
  }
}

}  // namespace stereo::cu::esaw
