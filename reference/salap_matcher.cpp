// The `cpu` backend of SA-LAP: the reference stages behind the Matcher interface, with the
// disparity levels spread over the machine's threads (each level is independent until the
// winner-takes-all, which merges per-thread minima in level order so ties keep the smaller d).

#include <algorithm>
#include <chrono>
#include <limits>
#include <mutex>
#include <thread>

#include "host/backends.h"
#include "host/dataset.h"
#include "reference/salap.h"

namespace stereo {
namespace {

struct CpuOptions {
  int quantize = 0;  // 0: float intermediates; 8: round TAD, C_L/C_R, C0..C3 to the RGBA8 grid (the GL model)
  int threads = 0;   // 0: all hardware threads

  template <class B>
  void describe(B& b) {
    b.field("quantize", quantize, "0 = float intermediates, 8 = round every intermediate to the 8-bit grid");
    b.field("threads", threads, "CPU threads over disparity levels (0 = all)");
  }
};

class SalapCpu final : public Matcher {
 public:
  explicit SalapCpu(const Overrides& overrides) {
    params_json_ = bind_params("salap/cpu", overrides, params_, options_);
    params_.validate("salap/cpu");
    require(options_.quantize == 0 || options_.quantize == 8,
            "salap/cpu: quantize must be 0 or 8, got " + std::to_string(options_.quantize));
    require(options_.threads >= 0, "salap/cpu: threads must be >= 0");
  }

  StereoResult match(const ImageU8& left, const ImageU8& right, DisparityRange range) override {
    const int levels = range.count;
    const auto start = std::chrono::steady_clock::now();
    unsigned threads = options_.threads > 0 ? unsigned(options_.threads) : std::max(1u, std::thread::hardware_concurrency());
    threads = std::min<unsigned>(threads, unsigned(levels));
    // Thread t handles levels t, t+threads, ...; each keeps its own best cost per pixel.
    std::vector<ImageF> best(threads), arg(threads);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        best[t] = ImageF(left.width, left.height, 1, std::numeric_limits<float>::infinity());
        arg[t] = ImageF(left.width, left.height, 1, float(range.min));
        for (int d = range.min + int(t); d <= range.max(); d += int(threads)) {
          const ImageF cost = reference::level_cost(left, right, d, params_, options_.quantize);
          for (std::size_t i = 0; i < cost.data.size(); ++i)
            if (cost.data[i] < best[t].data[i]) {
              best[t].data[i] = cost.data[i];
              arg[t].data[i] = float(d);
            }
        }
      });
    for (auto& th : pool) th.join();
    StereoResult result;
    result.disparity = arg[0];
    for (std::size_t i = 0; i < result.disparity.data.size(); ++i) {
      float c = best[0].data[i];
      for (unsigned t = 1; t < threads; ++t) {
        const float ct = best[t].data[i];
        const float dt = arg[t].data[i];
        if (ct < c || (ct == c && dt < result.disparity.data[i])) {
          c = ct;
          result.disparity.data[i] = dt;
        }
      }
    }
    result.timing.algorithm_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    result.timing.clock = "host clock";
    return result;
  }

  [[nodiscard]] nlohmann::json params() const override { return params_json_; }
  [[nodiscard]] std::string component() const override { return "salap/cpu"; }
  [[nodiscard]] std::string device() const override { return cpu_name(); }

 private:
  SalapParams params_;
  CpuOptions options_;
  nlohmann::json params_json_;
};

}  // namespace

void register_salap_cpu(Registry& registry) {
  registry.add({"salap", "cpu", "SA-LAP variable centre-biased windows, CPU reference (Lu et al. ICIP 2007)",
                [] { return std::optional<std::string>{}; },
                [](const Overrides& o) -> std::unique_ptr<Matcher> { return std::make_unique<SalapCpu>(o); }});
}

}  // namespace stereo
