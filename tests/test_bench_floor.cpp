// bench's floor, device memory and energy (app/bench_report.h) through bench_one, on a matcher
// whose stage bytes, copy rate, device memory and energy counter are set by the test, and the
// printed row; then each of them missing.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/bench_report.h"
#include "app/measure.h"
#include "core/matcher.h"

namespace stereo {
namespace {
using nlohmann::json;

constexpr double MIB = 1024.0 * 1024.0;

// Three stages of 1, 2 and 3 ms and 6.75 ms of algorithm (what runs between the laps too);
// the energy counter, where it has one, gains 5 mJ a frame and nothing while idle.
class AccountedMatcher final : public Matcher {
 public:
  std::optional<MemoryStats> stats;
  std::vector<DeviceMemoryUse> memory_by_ask;  ///< the i-th device_memory() after a frame; the last repeats
  bool counter = true;
  double mj_per_frame = 5.0;
  std::string why = "no NVML (libnvidia-ml.so.1 not found)";
  int frames = 0;
  mutable int memory_asks = 0;
  int counter_reads = 0;

  json params() const override { return {{"fake", true}}; }
  std::string component() const override { return "fake/cuda"; }
  std::string device() const override { return "fake GPU"; }
  std::optional<MemoryStats> memory_stats(int, int, DisparityRange) override { return stats; }
  std::optional<DeviceMemoryUse> device_memory() const override {
    if (frames == 0 || memory_by_ask.empty()) return std::nullopt;  // allocated on the first frame
    const std::size_t i = std::min<std::size_t>(std::size_t(memory_asks++), memory_by_ask.size() - 1);
    return memory_by_ask[i];
  }
  EnergyReading energy_counter() override {
    ++counter_reads;
    if (!counter) return {std::nullopt, why};
    return {1000.0 + mj_per_frame * frames, {}};
  }

 protected:
  StereoResult match(const ImageU8& left, const ImageU8&, DisparityRange) override {
    ++frames;
    std::this_thread::sleep_for(std::chrono::microseconds(500));  // the energy window's clock moves
    StereoResult r;
    r.disparity = ImageF(left.width, left.height, 1);
    r.timing.stages = {{"cost", 1.0}, {"aggregate", 2.0}, {"wta", 3.0}};
    r.timing.algorithm_ms = 6.75;
    r.timing.clock = "fake";
    return r;
  }
};

MethodInfo fake_info() {
  MethodInfo info;
  info.name = "fake";
  return info;
}

const cli::BenchConfig CONFIG{64, 48, {0, 8}, std::nullopt};
const cli::WarmUp ONE_RUN{1, 0.0, 1};

std::string printed(const json& j) {
  std::ostringstream out;
  cli::print_bench_row(out, j);
  return out.str();
}

const json& stage(const json& j, const std::string& name) {
  for (const json& s : j["stages"])
    if (s["name"] == name) return s;
  throw Error("no stage " + name);
}

TEST(BenchFloor, EveryStageAccountedGivesEachMultipleAndTheWholeMethodsFloor) {
  AccountedMatcher m;
  // At 4000 GB/s: 0.5, 0.75 and 0.1 ms of floor.
  m.stats = MemoryStats{{{"cost", 2e9}, {"aggregate", 3e9}, {"wta", 0.4e9}}, 4000.0};
  m.memory_by_ask = {{812.0 * MIB, 800.0 * MIB}};
  const json j = cli::bench_one(m, fake_info(), "cuda", CONFIG, 3, ONE_RUN, cli::EnergyWindow{20.0, 0.0});
  EXPECT_DOUBLE_EQ(stage(j, "cost")["floor_ms"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(stage(j, "cost")["floor_multiple"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(stage(j, "aggregate")["floor_ms"].get<double>(), 0.75);
  EXPECT_NEAR(stage(j, "aggregate")["floor_multiple"].get<double>(), 2.0 / 0.75, 1e-12);
  EXPECT_NEAR(stage(j, "wta")["floor_multiple"].get<double>(), 30.0, 1e-9);
  const json& f = j["floor"];
  ASSERT_TRUE(f.is_object()) << j.dump(2);
  EXPECT_DOUBLE_EQ(f["bytes"].get<double>(), 5.4e9);
  EXPECT_DOUBLE_EQ(f["ms"].get<double>(), 1.35);
  EXPECT_EQ(f["multiple_of"], "algorithm");
  EXPECT_DOUBLE_EQ(f["multiple"].get<double>(), 5.0);  // 6.75 ms of algorithm over 1.35
  EXPECT_EQ(f["stages_accounted"], 3);
  EXPECT_EQ(f["stages"], 3);
  EXPECT_DOUBLE_EQ(f["accounted_ms"].get<double>(), 6.0);
  EXPECT_TRUE(f["unaccounted"].empty());
  const std::string text = printed(j);
  EXPECT_NE(text.find("% of the 4000 GB/s copy, floor 0.500 ms, 2.0x\n"), std::string::npos) << text;
  EXPECT_NE(text.find("% of the 4000 GB/s copy, floor 0.100 ms, 30.0x\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    whole method: 5.4 GB, floor 1.350 ms at 4000 GB/s copy; algorithm 6.75 ms = 5.0x floor\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("no accounted bytes"), std::string::npos) << text;
}

TEST(BenchFloor, AnUnaccountedStageIsNamedAndTheFloorCoversTheOthersOnly) {
  AccountedMatcher m;
  m.stats = MemoryStats{{{"cost", 2e9}, {"aggregate", 3e9}, {"not timed", 7e9}}, 4000.0};
  const json j = cli::bench_one(m, fake_info(), "cuda", CONFIG, 3, ONE_RUN, cli::EnergyWindow{0.0});
  const json& f = j["floor"];
  ASSERT_TRUE(f.is_object()) << j.dump(2);
  EXPECT_DOUBLE_EQ(f["bytes"].get<double>(), 5e9);  // a stage no run timed adds nothing
  EXPECT_DOUBLE_EQ(f["ms"].get<double>(), 1.25);
  EXPECT_EQ(f["multiple_of"], "accounted stages");
  EXPECT_DOUBLE_EQ(f["multiple"].get<double>(), 3.0 / 1.25);
  EXPECT_EQ(f["stages_accounted"], 2);
  EXPECT_DOUBLE_EQ(f["time_share"].get<double>(), 3.0 / 6.75);
  EXPECT_EQ(f["unaccounted"], json::array({"wta"}));
  EXPECT_FALSE(stage(j, "wta").contains("floor_ms"));
  const std::string text = printed(j);
  EXPECT_NE(text.find("    accounted stages only (2 of 3, 44 % of the algorithm time): 5.0 GB, floor 1.250 ms at 4000 "
                      "GB/s copy; their 3.00 ms = 2.4x floor; not accounted: wta\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("3.000 ms   no accounted bytes\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("whole method"), std::string::npos) << text;
}

TEST(BenchFloor, NoAccountingOrNoCopyRateGivesNoFloor) {
  AccountedMatcher m;
  const json none = cli::bench_one(m, fake_info(), "cuda", CONFIG, 2, ONE_RUN, cli::EnergyWindow{0.0});
  EXPECT_TRUE(none["floor"].is_null());
  EXPECT_FALSE(stage(none, "cost").contains("floor_ms"));
  m.stats = MemoryStats{{{"cost", 2e9}}, 0.0};
  const json no_copy = cli::bench_one(m, fake_info(), "cuda", CONFIG, 2, ONE_RUN, cli::EnergyWindow{0.0});
  EXPECT_TRUE(no_copy["floor"].is_null());
  const std::string text = printed(no_copy);
  EXPECT_EQ(text.find("floor"), std::string::npos) << text;
  EXPECT_EQ(text.find("no accounted bytes"), std::string::npos) << text;
}

TEST(BenchFloor, DeviceMemoryIsTheMostTheMatcherHeldAndNotKnownWhereItSaysNothing) {
  AccountedMatcher m;
  // Asked after the warm-up, after the timed runs and after the energy window.
  m.memory_by_ask = {{100.0 * MIB, 90.0 * MIB}, {300.0 * MIB, 280.0 * MIB}, {200.0 * MIB, 190.0 * MIB}};
  const json j = cli::bench_one(m, fake_info(), "cuda", CONFIG, 2, ONE_RUN, cli::EnergyWindow{0.0});
  EXPECT_EQ(m.memory_asks, 3);
  EXPECT_DOUBLE_EQ(j["device_memory_bytes"].get<double>(), 300.0 * MIB);
  EXPECT_DOUBLE_EQ(j["device_memory_declared_bytes"].get<double>(), 280.0 * MIB);
  EXPECT_NE(printed(j).find("    device memory: 300.0 MiB (declared 280.0 MiB); "), std::string::npos) << printed(j);
  AccountedMatcher unknown;
  const json u = cli::bench_one(unknown, fake_info(), "cuda", CONFIG, 2, ONE_RUN, cli::EnergyWindow{0.0});
  EXPECT_TRUE(u["device_memory_bytes"].is_null());
  EXPECT_TRUE(u["device_memory_declared_bytes"].is_null());
  EXPECT_NE(printed(u).find("    device memory: not known; "), std::string::npos) << printed(u);
}

TEST(BenchEnergy, TheCounterOverTheWindowGivesEnergyAFrameGdePerJouleAndPower) {
  AccountedMatcher m;
  const int repeat = 3;
  const cli::BenchConfig vga{640, 480, {0, 64}, std::nullopt};
  const json j = cli::bench_one(m, fake_info(), "cuda", vga, repeat, ONE_RUN, cli::EnergyWindow{25.0, 0.0});
  const json& e = j["energy"];
  ASSERT_TRUE(e.is_object()) << j.dump(2);
  EXPECT_TRUE(j["energy_unavailable"].is_null());
  // The window's frames come after the warm-up and the timed runs, and are counted.
  const int frames = e["frames"].get<int>();
  EXPECT_EQ(frames, m.frames - 1 - repeat);
  EXPECT_GE(frames, 2);
  EXPECT_GE(e["window_ms"].get<double>(), 25.0);
  EXPECT_DOUBLE_EQ(e["mj_per_frame"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(e["joules"].get<double>(), 5e-3 * frames);
  EXPECT_DOUBLE_EQ(e["gde_per_j"].get<double>(), 640.0 * 480.0 * 64.0 / 5e-3 / 1e9);
  EXPECT_NEAR(e["watts"].get<double>(), 5.0 * frames / e["window_ms"].get<double>(), 1e-12);
  const std::string text = printed(j);
  EXPECT_NE(text.find("; energy: 5.00 mJ a frame, 3.93 Gde/J, "), std::string::npos) << text;
  EXPECT_NE(text.find(" (" + std::to_string(frames) + " frames)\n"), std::string::npos) << text;
}

TEST(BenchEnergy, EachEndOfTheWindowWaitsForAStepOfTheCounter) {
  // Idle, the counter does not move: the opening wait runs out (30 ms); at the close, frames run
  // until it steps, which the first one does.
  AccountedMatcher m;
  const auto start = std::chrono::steady_clock::now();
  const json j = cli::bench_one(m, fake_info(), "cuda", CONFIG, 1, ONE_RUN, cli::EnergyWindow{10.0, 30.0});
  const double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(j["energy"].is_object()) << j.dump(2);
  EXPECT_GE(elapsed, 40.0);
  EXPECT_EQ(j["energy"]["frames"].get<int>(), m.frames - 2);
  EXPECT_DOUBLE_EQ(j["energy"]["mj_per_frame"].get<double>(), 5.0);
}

TEST(BenchEnergy, MissingCounterStaticCounterAndNoWindowAreSaidNotEstimated) {
  AccountedMatcher missing;
  missing.counter = false;
  const json j = cli::bench_one(missing, fake_info(), "cuda", CONFIG, 2, ONE_RUN, cli::EnergyWindow{50.0, 0.0});
  EXPECT_TRUE(j["energy"].is_null());
  EXPECT_EQ(j["energy_unavailable"], "no NVML (libnvidia-ml.so.1 not found)");
  EXPECT_EQ(missing.frames, 3);  // no window ran
  const std::string text = printed(j);
  EXPECT_NE(text.find("; energy: no NVML (libnvidia-ml.so.1 not found)\n"), std::string::npos) << text;

  AccountedMatcher still;
  still.mj_per_frame = 0.0;
  const json s = cli::bench_one(still, fake_info(), "cuda", CONFIG, 2, ONE_RUN, cli::EnergyWindow{10.0, 0.0});
  EXPECT_TRUE(s["energy"].is_null());
  EXPECT_NE(s["energy_unavailable"].get<std::string>().find("the energy counter did not advance over "),
            std::string::npos)
      << s.dump(2);

  AccountedMatcher off;
  const json o = cli::bench_one(off, fake_info(), "cuda", CONFIG, 2, ONE_RUN, cli::EnergyWindow{0.0});
  EXPECT_TRUE(o["energy"].is_null());
  EXPECT_EQ(o["energy_unavailable"], "not measured");
  EXPECT_EQ(off.counter_reads, 0);
  EXPECT_EQ(off.frames, 3);
}

TEST(BenchEnergy, TheLegendSaysWhatTheFloorMemoryAndEnergyAre) {
  const std::string legend = cli::bench_legend(cli::EnergyWindow{});
  EXPECT_NE(legend.find("device-to-device copy rate measured in this run"), std::string::npos);
  EXPECT_NE(legend.find("read + written"), std::string::npos);
  EXPECT_NE(legend.find("cudaMemGetInfo"), std::string::npos);
  EXPECT_NE(legend.find(">= 1000 ms of back-to-back frames"), std::string::npos);
  EXPECT_NE(legend.find("the whole board during the window, idle parts included"), std::string::npos);
  EXPECT_NE(cli::bench_legend(cli::EnergyWindow{0.0}).find("energy = not read"), std::string::npos);
}

}  // namespace
}  // namespace stereo
