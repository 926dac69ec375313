#pragma once
/// \file cuda/workspace.h
/// A CUDA matcher's buffers for one problem, declared once. A method lists its buffers in one
/// `declare` function; the frame runs it twice: once on a throw-away set to sum the bytes (no
/// allocation), which it checks against the GPU's free memory, and once to allocate every
/// buffer into a fresh set that it keeps only when all succeeded. Summing and allocating read
/// the same list, so the memory check cannot drift from what is allocated (each matcher kept a
/// hand-written `bytes_needed` beside its constructor before).

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda/common.h"

namespace stereo::cu {

/// What the memory check adds per allocation: cudaMalloc rounds each one up (large ones to
/// 2 MiB pages), so the exact bytes of many buffers understate what they take.
constexpr std::size_t ALLOCATION_SLACK = std::size_t(2) << 20;

/// The list a method declares its buffers through. In the sizing pass it only adds up; in the
/// allocating pass it also allocates, naming `what` in an out-of-memory error.
class BufferList {
 public:
  /// `stream`: where the set's work runs (what an object that binds to a stream, a cuFFT plan,
  /// is made for).
  BufferList(std::string component, bool allocate, cudaStream_t stream = nullptr)
      : component_(std::move(component)), allocate_(allocate), stream_(stream) {}

  /// `count` elements of T on the device.
  template <class T>
  void buffer(DeviceBuffer<T>& b, std::size_t count, const std::string& what) {
    static_assert(std::is_trivially_copyable_v<T>);
    device_bytes_ += count * sizeof(T) + ALLOCATION_SLACK;
    requested_bytes_ += count * sizeof(T);
    if (allocate_) b = make_device_buffer<T>(count, component_, what);
  }

  /// A width x height device image.
  template <class T>
  void image(DeviceImage<T>& image, int width, int height, const std::string& what) {
    image.width = width;
    image.height = height;
    buffer(image.data, image.count(), what);
  }

  /// The two views' width x height images, "the left <what>" and "the right <what>".
  template <class T>
  void views(DeviceImage<T>& left, DeviceImage<T>& right, int width, int height, const std::string& what) {
    image(left, width, height, "the left " + what);
    image(right, width, height, "the right " + what);
  }

  /// `count` elements of page-locked host memory (counted apart: it is not GPU memory).
  template <class T>
  void pinned(HostBuffer<T>& b, std::size_t count, const std::string& what) {
    host_bytes_ += count * sizeof(T);
    if (allocate_) b = make_host_buffer<T>(count, component_, what);
  }

  /// Device memory an object allocates for itself in `allocations` pieces (a cuFFT plan's work
  /// area, a struct whose constructor allocates): `estimate` gives its bytes, `make` creates it
  /// in the allocating pass. Estimates are asked only after the buffers passed their own check
  /// (cuFFT refuses absurd sizes in its words, and a problem that cannot fit should hear ours).
  void external(int allocations, std::function<std::size_t()> estimate, const std::function<void()>& make) {
    if (allocate_) {
      make();
      return;
    }
    externals_.push_back({allocations, std::move(estimate)});
  }

  [[nodiscard]] bool allocating() const { return allocate_; }
  [[nodiscard]] cudaStream_t stream() const { return stream_; }
  /// The declared device buffers' bytes, with ALLOCATION_SLACK each.
  [[nodiscard]] std::size_t device_bytes() const { return device_bytes_; }
  /// The externals' estimates, summed (calls every estimate: ask once).
  [[nodiscard]] std::size_t external_estimates() const {
    std::size_t bytes = 0;
    for (const External& e : externals_) bytes += e.estimate();
    return bytes;
  }
  /// ALLOCATION_SLACK for each of the externals' allocations.
  [[nodiscard]] std::size_t external_slack() const {
    std::size_t bytes = 0;
    for (const External& e : externals_) bytes += std::size_t(e.allocations) * ALLOCATION_SLACK;
    return bytes;
  }
  [[nodiscard]] bool has_externals() const { return !externals_.empty(); }
  /// The declared device buffers' bytes as requested, without slack (with the externals'
  /// estimates: what the method asks for, as bench reports it).
  [[nodiscard]] std::size_t requested_bytes() const { return requested_bytes_; }
  [[nodiscard]] std::size_t host_bytes() const { return host_bytes_; }

 private:
  struct External {
    int allocations = 1;
    std::function<std::size_t()> estimate;
  };
  std::string component_;
  bool allocate_ = false;
  cudaStream_t stream_ = nullptr;
  std::size_t device_bytes_ = 0;
  std::size_t requested_bytes_ = 0;
  std::size_t host_bytes_ = 0;
  std::vector<External> externals_;
};

/// One problem's buffers, built whole or not at all and reused while the problem stays. A
/// method's `Buffers` type is default-constructible (empty) and has
///  - `Key`: what decides the buffers (size, channels, levels, whatever the method says), with
///    an operator== that is true where the held set serves the wanted problem; fields that
///    only record a choice made for the held set (free-memory choices, below) stay out of it;
///  - `void declare(BufferList& list, const Key& key)`: every buffer, once, in one list;
///  - `static std::string describe(const Key& key)`: the size as the memory check names it
///    ("1920x1080 with 256 levels").
template <class Buffers>
class Workspace {
 public:
  using Key = typename Buffers::Key;

  explicit Workspace(std::string component) : component_(std::move(component)) {}

  /// The buffers for `key`, whose work runs on `stream`: the held set when its key equals
  /// `key`; else the held set is released first (the new one may need its memory),
  /// `choose(key, free_bytes)` completes the key's free-memory choices, the sizing pass is
  /// checked against free memory (the buffers, then with the externals: cu::require_free_memory
  /// naming describe(key)), every buffer is allocated into a fresh set, `fill(set)` completes it
  /// (tables it needs, made once), and only then is the set kept. Any throw leaves no set held,
  /// and the next call starts over. The device's free memory is read before and after the
  /// allocating pass (held_bytes()).
  template <class Choose, class Fill>
  Buffers& prepare(Key key, cudaStream_t stream, Choose&& choose, Fill&& fill) {
    if (held_ && key_ == key) return *held_;
    release();
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    choose(key, free_bytes);
    std::size_t declared = 0;
    {
      Buffers dry;
      BufferList sizes(component_, false);
      dry.declare(sizes, key);
      const std::string what = Buffers::describe(key);
      require_free_memory(sizes.device_bytes(), component_, what);
      std::size_t estimates = 0;
      if (sizes.has_externals()) {
        estimates = sizes.external_estimates();
        require_free_memory(sizes.device_bytes() + estimates + sizes.external_slack(), component_, what);
      }
      declared = sizes.requested_bytes() + estimates;
    }
    auto fresh = std::make_unique<Buffers>();
    BufferList list(component_, true, stream);
    fresh->declare(list, key);
    // Measured over the allocating pass alone (fill() only writes into the set), so the figure
    // is what these allocations took, cuFFT's own plan memory and cudaMalloc's page rounding
    // included; module code loaded by fill()'s first kernels is the process's, not the set's.
    // Exact while nothing else allocates or frees on the device meanwhile (bench runs one
    // matcher at a time).
    std::size_t free_after = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_after, &total_bytes));
    fill(*fresh);
    held_ = std::move(fresh);
    key_ = key;
    held_bytes_ = free_bytes > free_after ? free_bytes - free_after : 0;
    declared_bytes_ = declared;
    ++generation_;
    return *held_;
  }
  Buffers& prepare(const Key& key, cudaStream_t stream) {
    return prepare(key, stream, [](Key&, std::size_t) {}, [](Buffers&) {});
  }

  /// The device bytes the buffers of `key` take as the memory check counts them (the sizing
  /// pass, externals included): for a method's choices between keys.
  [[nodiscard]] std::size_t bytes(const Key& key) const {
    Buffers dry;
    BufferList sizes(component_, false);
    dry.declare(sizes, key);
    return sizes.device_bytes() + sizes.external_estimates() + sizes.external_slack();
  }

  /// The held set, or null.
  [[nodiscard]] Buffers* held() const { return held_.get(); }
  /// The held set's key (valid while held() is not null).
  [[nodiscard]] const Key& key() const { return key_; }
  /// Changes with every new set: what a captured CUDA graph, which holds a set's addresses,
  /// compares against (a new set may reuse the old one's host address).
  [[nodiscard]] std::uint64_t generation() const { return generation_; }
  /// The device memory the held set took when it was allocated: the drop of the device's free
  /// memory (cudaMemGetInfo) across its allocating pass; 0 when none is held.
  [[nodiscard]] std::size_t held_bytes() const { return held_ ? held_bytes_ : 0; }
  /// The held set's declared bytes (BufferList::requested_bytes plus the externals' estimates);
  /// 0 when none is held.
  [[nodiscard]] std::size_t declared_bytes() const { return held_ ? declared_bytes_ : 0; }
  void release() { held_.reset(); }

 private:
  std::string component_;
  std::size_t held_bytes_ = 0, declared_bytes_ = 0;
  std::unique_ptr<Buffers> held_;
  Key key_{};
  std::uint64_t generation_ = 0;
};

/// The two uploaded images every method's buffers begin with: interleaved bytes, width x
/// height x channels each, as the ImageU8 holds them.
struct InputPair {
  int width = 0, height = 0, channels = 0;
  DeviceBuffer<std::uint8_t> raw_left, raw_right;

  void declare_inputs(BufferList& list, int w, int h, int c) {
    width = w;
    height = h;
    channels = c;
    const std::size_t bytes = static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(c);
    list.buffer(raw_left, bytes, "the left image");
    list.buffer(raw_right, bytes, "the right image");
  }
};

}  // namespace stereo::cu
