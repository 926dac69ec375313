// The CLI's contract with users: each user error is one line on stderr naming the problem,
// a non-zero exit, and no output file left behind.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/dataset.h"
#include "app/image_io.h"
#include "app/listing.h"
#include "app/revision.h"
#include "core/error.h"
#include "core/registry.h"
#include "tests/cli_util.h"
#include "tests/test_util.h"

namespace fs = std::filesystem;
using namespace stereo;

namespace {

using Outcome = test::CliOutcome;
using test::slurp;

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::fresh_test_dir("stereo_cli_");
    const ImageU8 left = test::random_texture(64, 40, 3);
    write_png(dir_ / "l.png", left);
    write_png(dir_ / "r.png", test::shifted(left, 4));
    write_png(dir_ / "small.png", test::random_texture(50, 40, 4));
  }
  void TearDown() override { fs::remove_all(dir_); }

  Outcome stereo(const std::string& args) { return test::run_stereo(dir_, args); }
  std::string p(const std::string& name) const { return (dir_ / name).string(); }

  // One line on stderr, containing `needle`, non-zero exit, and no output.
  void expect_user_error(const Outcome& o, const std::string& needle) {
    EXPECT_NE(o.code, 0);
    EXPECT_NE(o.err.find(needle), std::string::npos) << "stderr: " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "stderr: " << o.err;
    EXPECT_FALSE(fs::exists(p("out.pfm")));
    EXPECT_FALSE(fs::exists(p("out.pfm.part")));
  }

  fs::path dir_;
};

}  // namespace

TEST_F(Cli, RunWritesAllRequestedOutputs) {
  const Outcome o = stereo("run " + p("l.png") + " " + p("r.png") + " -m salap -b cpu -d 8 -o " + p("out.pfm") +
                           " --png " + p("out16.png") + " --color " + p("outc.png") + " --set window=9");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("Mde/s"), std::string::npos);
  EXPECT_NE(o.out.find("\"window\":9"), std::string::npos);  // parameters printed with every run
  const ImageF d = read_pfm(p("out.pfm"));
  EXPECT_EQ(d.width, 64);
  EXPECT_FLOAT_EQ(d.at(32, 20), 4.0f);
  EXPECT_TRUE(fs::exists(p("out16.png")));
  EXPECT_EQ(read_image(p("outc.png")).channels, 3);
}

TEST_F(Cli, RunJsonCarriesParamsAndTiming) {
  const Outcome o = stereo("run " + p("l.png") + " " + p("r.png") + " -m salap -d 8 -o " + p("out.pfm") + " --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_FLOAT_EQ(j["params"]["gamma"].get<float>(), 5.0f);
  EXPECT_GT(j["mdes"].get<double>(), 0.0);
  // The source revision the binary was built from (a git hash, or "unknown" outside a checkout).
  ASSERT_TRUE(j.contains("revision"));
  EXPECT_EQ(j["revision"], source_revision());
  EXPECT_FALSE(source_revision().empty());
}

// --dsi writes the cost volume where a backend has one (symstereo/cpu: W x H x levels float32
// and a JSON description), and is one clear error where it has none.
TEST_F(Cli, RunWritesTheDsiWhereTheBackendHasOne) {
  const Outcome o = stereo("run " + p("l.png") + " " + p("r.png") + " -m symstereo -b cpu -d 8 --set wavelets=6 -o " +
                           p("out.pfm") + " --dsi " + p("out.dsi"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(fs::file_size(p("out.dsi")), std::uintmax_t(64 * 40 * 8 * 4));
  const std::string meta = slurp(p("out.dsi.json"));
  EXPECT_NE(meta.find("\"levels\": 8"), std::string::npos) << meta;
  EXPECT_NE(meta.find("\"better\": \"higher\""), std::string::npos) << meta;
  fs::remove(p("out.pfm"));  // expect_user_error checks that a failed run leaves no out.pfm
  expect_user_error(stereo("run " + p("l.png") + " " + p("r.png") + " -m adcensus -b cpu -d 8 -o " + p("out2.pfm") +
                           " --dsi " + p("out2.dsi")),
                    "exposes no cost volume");
}

TEST_F(Cli, MissingFile) { expect_user_error(stereo("run " + p("nope.png") + " " + p("r.png") + " -m salap -o " + p("out.pfm")), "nope.png"); }

TEST_F(Cli, CorruptFile) {
  std::ofstream(p("bad.png")) << "garbage";
  expect_user_error(stereo("run " + p("bad.png") + " " + p("r.png") + " -m salap -d 8 -o " + p("out.pfm")), "bad.png");
}

TEST_F(Cli, SizesDiffer) {
  expect_user_error(stereo("run " + p("l.png") + " " + p("small.png") + " -m salap -d 8 -o " + p("out.pfm")), "64x40");
}

TEST_F(Cli, ImpossibleDisparityRange) {
  expect_user_error(stereo("run " + p("l.png") + " " + p("r.png") + " -m salap -d 64 -o " + p("out.pfm")), "width 64");
  expect_user_error(stereo("run " + p("l.png") + " " + p("r.png") + " -m salap -d 0 -o " + p("out.pfm")), ">= 1");
}

TEST_F(Cli, UnknownMethodBackendAndKey) {
  expect_user_error(stereo("run " + p("l.png") + " " + p("r.png") + " -m nosuch -d 8 -o " + p("out.pfm")), "nosuch");
  expect_user_error(stereo("run " + p("l.png") + " " + p("r.png") + " -m salap -b vulkan -d 8 -o " + p("out.pfm")), "vulkan");
  expect_user_error(stereo("run " + p("l.png") + " " + p("r.png") + " -m salap --set gama=3 -d 8 -o " + p("out.pfm")), "gama");
  expect_user_error(stereo("run " + p("l.png") + " " + p("r.png") + " -m salap --set window=32 -d 8 -o " + p("out.pfm")), "window");
}

// A float parameter's error prints the value as the user typed it, not std::to_string's "-1.000000".
TEST_F(Cli, ParameterErrorsPrintFloatsAsTyped) {
  Outcome o = stereo("run " + p("l.png") + " " + p("r.png") + " -m salap -b cpu --set gamma=-1 -d 8 -o " + p("out.pfm"));
  expect_user_error(o, "gamma must be > 0, got -1\n");
  o = stereo("run " + p("l.png") + " " + p("r.png") + " -m salap -b cpu --set tau=255.5 -d 8 -o " + p("out.pfm"));
  expect_user_error(o, "got 255.5\n");
}

// An accuracy-only comparison says nothing of speed runs it does not make.
TEST_F(Cli, CompareWithoutSpeedSaysNothingOfSpeed) {
  ASSERT_EQ(stereo("synth --size 64x48 -d 8 --out " + p("scene")).code, 0);
  const Outcome o = stereo("compare " + p("scene") + " --methods salap --backends cpu --no-speed --out " + p("cmp"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.err.find("speed"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("accuracy only"), std::string::npos) << o.err;
}

TEST_F(Cli, UnavailableBackendSaysWhy) {
  const Outcome list = stereo("list --json");
  ASSERT_EQ(list.code, 0) << list.err;
  const auto j = nlohmann::json::parse(list.out);
  for (const auto& method : j["methods"])
    for (const auto& row : method["backends"]) {
      if (row["available"].get<bool>()) continue;
      const Outcome o = stereo("run " + p("l.png") + " " + p("r.png") + " -m " + method["name"].get<std::string>() +
                               " -b " + row["backend"].get<std::string>() + " -d 8 -o " + p("out.pfm"));
      expect_user_error(o, row["reason"].get<std::string>());
      return;
    }
  GTEST_SKIP() << "every backend is available on this machine";
}

TEST_F(Cli, OutputFolderMissing) {
  const Outcome o = stereo("run " + p("l.png") + " " + p("r.png") + " -m salap -d 8 -o " + p("no/such/out.pfm"));
  EXPECT_NE(o.code, 0);
  EXPECT_NE(o.err.find("does not exist"), std::string::npos) << o.err;
}

TEST_F(Cli, ListShowsEveryBackendWithAvailability) {
  const Outcome o = stereo("list --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  bool cpu = false;
  for (const auto& method : j["methods"])
    for (const auto& row : method["backends"]) {
      if (method["name"] == "salap" && row["backend"] == "cpu") cpu = row["available"].get<bool>();
      if (!row["available"].get<bool>()) {
        EXPECT_FALSE(row["reason"].get<std::string>().empty());
      }
    }
  EXPECT_TRUE(cpu);
}

TEST_F(Cli, ListNamesEachMethodsPaperAndKeepsTheBackendColumns) {
  const Outcome o = stereo("list");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("salap: SA-LAP"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("J. Lu, G. Lafruit, F. Catthoor"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("ICIP 2007"), std::string::npos) << o.out;
  // scripts/demo.sh reads a backend row with awk ($1 method, $2 backend, $3 yes/no) and the
  // notes from column 33.
  const std::size_t row = o.out.find("\nsalap     cpu        yes        ");
  ASSERT_NE(row, std::string::npos) << o.out;
  EXPECT_NE(o.out.substr(row + 1 + 32, 6), "      ");
}

TEST_F(Cli, ListJsonCarriesTheMethodInfo) {
  const Outcome o = stereo("list --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto methods = nlohmann::json::parse(o.out)["methods"];
  const auto salap = std::find_if(methods.begin(), methods.end(), [](const auto& m) { return m["name"] == "salap"; });
  ASSERT_NE(salap, methods.end());
  EXPECT_NE((*salap)["citation"].get<std::string>().find("ICIP 2007"), std::string::npos);
  EXPECT_NE((*salap)["paper_gpu"].get<std::string>().find("GeForce 7900"), std::string::npos);
  bool tsukuba_4 = false;
  for (const auto& row : (*salap)["accuracy"])
    if (row["scene"] == "tsukuba" && row["when"].value("windows", "") == "4") {
      tsukuba_4 = true;
      EXPECT_DOUBLE_EQ(row["nonocc"].get<double>(), 7.63);
      EXPECT_TRUE(row["all"].is_null());
    }
  EXPECT_TRUE(tsukuba_4);
  EXPECT_EQ((*salap)["speed"].size(), 10u);
  ASSERT_FALSE((*salap)["params"].empty());
  EXPECT_EQ((*salap)["params"][0].get<std::string>().rfind("gamma = 5", 0), 0u) << (*salap)["params"][0];
  EXPECT_FALSE((*salap)["backends"].empty());
}

TEST_F(Cli, ParamsPrintsTheTableWithDocs) {
  const Outcome o = stereo("params -m salap");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("gamma = 5.0"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("Sec. 4"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("windows = \"9\""), std::string::npos) << o.out;
  expect_user_error(stereo("params -m nosuch"), "nosuch");
}

// Scripts pick backends from the flat list (scripts/maps_digest.sh, gpu_check.sh): every row of
// every method is in it once, with its method, and says whether it runs here and why not.
TEST_F(Cli, ListJsonHasEveryBackendInOneFlatList) {
  const Outcome o = stereo("list --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  std::vector<nlohmann::json> nested;
  for (const auto& method : j["methods"])
    for (auto row : method["backends"]) {
      EXPECT_EQ(row["method"], method["name"]);
      nested.push_back(row);
    }
  ASSERT_TRUE(j["backends"].is_array());
  ASSERT_EQ(j["backends"].size(), nested.size());
  for (std::size_t i = 0; i < nested.size(); ++i) EXPECT_EQ(j["backends"][i], nested[i]) << i;
  const auto& flat = j["backends"];
  const auto salap_cpu = std::find_if(flat.begin(), flat.end(), [](const auto& row) {
    return row["method"] == "salap" && row["backend"] == "cpu";
  });
  ASSERT_NE(salap_cpu, flat.end());
  EXPECT_TRUE((*salap_cpu)["available"].get<bool>());
  EXPECT_TRUE((*salap_cpu)["reason"].is_null());
  EXPECT_NE((*salap_cpu)["summary"].get<std::string>().find("CPU"), std::string::npos) << *salap_cpu;
  for (const auto& row : flat)
    EXPECT_EQ(row["reason"].is_null(), row["available"].get<bool>()) << row;
}

// The paper's parameters once, then each backend's own options under its own heading, from a
// registry of the test's own (one backend with options, one without).
TEST(Params, EachBackendsOptionsAppearUnderItsOwnHeading) {
  Registry registry;
  MethodInfo info;
  info.name = "toy";
  info.title = "a toy method";
  info.citation = "nobody, 2026";
  info.describe_params = [] { return std::string("  radius = 3  (Sec. 2)\n"); };
  registry.add_method(info);
  registry.add({"toy", "cpu", "host", {}, {}});
  registry.add({"toy", "gpu", "device", [] { return std::optional<std::string>("no device"); }, {},
                [] { return std::string("  tile = 16  (threads per block)\n  fast = true  (half floats)\n"); }});
  const std::string text = cli::params_text(registry, "toy");
  const std::size_t params = text.find("radius = 3  (Sec. 2)");
  const std::size_t cpu = text.find("toy/cpu options:\n  (no options)\n");
  const std::size_t gpu = text.find("toy/gpu options (not available here):\n  tile = 16  (threads per block)\n"
                                    "  fast = true  (half floats)\n");
  ASSERT_NE(params, std::string::npos) << text;
  ASSERT_NE(cpu, std::string::npos) << text;
  ASSERT_NE(gpu, std::string::npos) << text;
  EXPECT_LT(params, cpu);
  EXPECT_LT(cpu, gpu);
  EXPECT_EQ(text.find("radius", params + 1), std::string::npos) << "the paper's parameters once: " << text;

  const nlohmann::json j = cli::params_json(registry, "toy");
  EXPECT_EQ(j["params"], nlohmann::json::array({"radius = 3  (Sec. 2)"}));
  ASSERT_EQ(j["backends"].size(), 2u);
  EXPECT_EQ(j["backends"][0]["backend"], "cpu");
  EXPECT_TRUE(j["backends"][0]["options"].empty());
  EXPECT_TRUE(j["backends"][0]["available"].get<bool>());
  EXPECT_EQ(j["backends"][1]["options"], nlohmann::json::array({"tile = 16  (threads per block)", "fast = true  (half floats)"}));
  EXPECT_FALSE(j["backends"][1]["available"].get<bool>());
  EXPECT_THROW((void)cli::params_json(registry, "nosuch"), Error);
}

// The built registry: `params --json` names every backend `list` has, in its order, and the
// text shows each one's options (or "(no options)") under its own heading.
TEST_F(Cli, ParamsShowsEveryBackendOfTheMethodWithItsOptions) {
  const Outcome list = stereo("list --json");
  ASSERT_EQ(list.code, 0) << list.err;
  std::vector<std::string> salap_backends;
  const auto listed = nlohmann::json::parse(list.out);
  for (const auto& row : listed["backends"])
    if (row["method"] == "salap") salap_backends.push_back(row["backend"]);
  const Outcome pj = stereo("params -m salap --json");
  ASSERT_EQ(pj.code, 0) << pj.err;
  const auto j = nlohmann::json::parse(pj.out);
  EXPECT_EQ(j["params"][0].get<std::string>().rfind("gamma = 5", 0), 0u) << j["params"];
  const Outcome pt = stereo("params -m salap");
  ASSERT_EQ(pt.code, 0) << pt.err;
  ASSERT_EQ(j["backends"].size(), salap_backends.size());
  for (std::size_t i = 0; i < salap_backends.size(); ++i) {
    const auto& b = j["backends"][i];
    EXPECT_EQ(b["backend"], salap_backends[i]);
    std::string block = "salap/" + salap_backends[i] + " options" +
                        (b["available"].get<bool>() ? "" : " (not available here)") + ":\n";
    if (b["options"].empty()) block += "  (no options)\n";
    for (const auto& line : b["options"]) block += "  " + line.get<std::string>() + "\n";
    EXPECT_NE(pt.out.find(block), std::string::npos) << "no block\n" << block << "in\n" << pt.out;
  }
}

TEST_F(Cli, EvalWritesMapsPicturesAndJson) {
  if (!fs::exists(data_root() / "middlebury-v2/tsukuba")) GTEST_SKIP() << missing_data_hint("middlebury-v2/tsukuba");
  const Outcome o = stereo("eval " + (data_root() / "middlebury-v2/tsukuba").string() +
                           " -m salap --out " + p("ev") + " --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j["scenes"].size(), 1u);
  const auto& scene = j["scenes"][0];
  EXPECT_EQ(scene["name"], "tsukuba");
  EXPECT_LT(scene["nonocc"].get<double>(), 10.0);
  EXPECT_TRUE(scene["disc"].is_number());
  EXPECT_EQ(scene["min_disparity"], 0);
  EXPECT_EQ(scene["levels"], 16);
  EXPECT_DOUBLE_EQ(scene["threshold"].get<double>(), 1.0);  // the v2 format's default
  // The paper's Table 1 row, from the registry, and the averages over the scenes with both.
  EXPECT_DOUBLE_EQ(scene["paper"]["nonocc"].get<double>(), 3.95);
  EXPECT_DOUBLE_EQ(scene["paper"]["disc"].get<double>(), 14.42);
  EXPECT_TRUE(scene["paper"]["all"].is_null());
  EXPECT_DOUBLE_EQ(j["paper_average"]["nonocc"]["paper"].get<double>(), 3.95);
  EXPECT_DOUBLE_EQ(j["paper_average"]["nonocc"]["ours"].get<double>(), scene["nonocc"].get<double>());
  EXPECT_EQ(j["paper_average"]["all"]["scenes"], 0);
  EXPECT_NE(j["paper"]["source"].get<std::string>().find("Table 1"), std::string::npos);
  EXPECT_TRUE(fs::exists(p("ev/tsukuba.pfm")));
  EXPECT_TRUE(fs::exists(p("ev/tsukuba_color.png")));
  EXPECT_TRUE(fs::exists(p("ev/tsukuba_error.png")));
  EXPECT_EQ(nlohmann::json::parse(slurp(p("ev/result.json"))), j);
}

TEST_F(Cli, EvalComparesWithThePapersRowForTheParameters) {
  const fs::path tsukuba = data_root() / "middlebury-v2/tsukuba";
  if (!fs::exists(tsukuba)) GTEST_SKIP() << missing_data_hint("middlebury-v2/tsukuba");
  const Outcome four = stereo("eval " + tsukuba.string() + " -m salap --set windows=4 --set window=9");
  ASSERT_EQ(four.code, 0) << four.err;
  EXPECT_NE(four.out.find("Table 1"), std::string::npos) << four.out;
  EXPECT_NE(four.out.find("0..15"), std::string::npos) << four.out;  // the range searched
  EXPECT_NE(four.out.find("7.63"), std::string::npos) << four.out;   // the 4-window row
  EXPECT_NE(four.out.find("vs paper (1 scene)"), std::string::npos) << four.out;
  // At another threshold the paper's bad > 1 figures do not apply.
  const Outcome other = stereo("eval " + tsukuba.string() + " -m salap --set window=9 --threshold 2 --json");
  ASSERT_EQ(other.code, 0) << other.err;
  const auto j = nlohmann::json::parse(other.out);
  EXPECT_DOUBLE_EQ(j["threshold"].get<double>(), 2.0);
  EXPECT_TRUE(j["scenes"][0]["paper"].is_null());
  EXPECT_EQ(j["paper_average"]["nonocc"]["scenes"], 0);
}

TEST_F(Cli, EvalAlsoThresholdsEvaluateTheSameMaps) {
  const fs::path tsukuba = data_root() / "middlebury-v2/tsukuba";
  if (!fs::exists(tsukuba)) GTEST_SKIP() << missing_data_hint("middlebury-v2/tsukuba");
  const Outcome o = stereo("eval " + tsukuba.string() +
                           " -m crossrt --threshold 1 --also-threshold 0.5 --also-threshold 1 --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  const auto& also = j["scenes"][0]["also"];
  ASSERT_EQ(also.size(), 2u);
  // The same map at the main threshold gives the main figure; a lower threshold never fewer bad.
  EXPECT_DOUBLE_EQ(also[1]["nonocc"].get<double>(), j["scenes"][0]["nonocc"].get<double>());
  EXPECT_GE(also[0]["nonocc"].get<double>(), also[1]["nonocc"].get<double>());
  EXPECT_DOUBLE_EQ(j["also_average"][0]["threshold"].get<double>(), 0.5);
  EXPECT_NE(stereo("eval " + tsukuba.string() + " -m crossrt --also-threshold -1").code, 0);
}

TEST_F(Cli, BenchReportsMediansAsJson) {
  const Outcome o = stereo("bench -m salap -b cpu --size 64x48 -d 8 --repeat 2 --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  for (const char* k : {"method", "backend", "revision", "device", "width", "height", "min_disparity", "levels", "repeat", "clock",
                        "algorithm_ms", "upload_ms", "readback_ms", "total_ms", "fps", "mdes", "paper"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["levels"], 8);
  EXPECT_EQ(j["min_disparity"], 0);
  EXPECT_TRUE(j["paper"].is_null());  // 64x48 is none of the paper's settings
  // The CPU backend accounts no bytes, measures no device memory and reads no energy counter:
  // each is null, the energy with the reason, and the text says so rather than a number.
  EXPECT_TRUE(j["floor"].is_null());
  EXPECT_TRUE(j["device_memory_bytes"].is_null());
  EXPECT_TRUE(j["energy"].is_null());
  EXPECT_EQ(j["energy_unavailable"], "the salap/cpu backend reads no energy counter");
  const Outcome text = stereo("bench -m salap -b cpu --size 64x48 -d 8 --repeat 1");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("\n    device memory: not known; energy: the salap/cpu backend reads no energy counter\n"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("dev MiB  mJ/frame   Gde/J"), std::string::npos) << text.out;
  EXPECT_NE(stereo("bench -m salap -b cpu --size 64x48 -d 8 --energy-ms -1").code, 0);
  const Outcome bad = stereo("bench -m salap -b cpu --size 64x48 -d 64");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.err.find("width"), std::string::npos);
}

TEST_F(Cli, BenchAtAPaperSettingShowsThePapersFigure) {
  // 256^2 at 16 levels is a row of Lu et al. Table 2 (402 Mde/s on a GeForce 7900).
  const Outcome o = stereo("bench -m salap -b cpu --set window=9 --size 256x256 -d 16 --repeat 1");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("upload of both images + algorithm + read-back"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("GeForce 7900"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("paper Mde/s"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(" 402 "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("0..15"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\nsource: " + source_revision() + "\n"), std::string::npos) << o.out;
}

TEST_F(Cli, BenchRangeOutsideTheImageIsOneLineError) {
  const Outcome o = stereo("bench -m salap -b cpu --size 64x48 -d 8 --min-disparity -1000");
  EXPECT_NE(o.code, 0);
  EXPECT_NE(o.err.find("-1000..-993"), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_TRUE(o.out.empty()) << o.out;  // checked before anything runs
}

// ---- disparity ranges ----------------------------------------------------------------------

TEST_F(Cli, RunNamesAndRecordsTheRange) {
  const Outcome text = stereo("run " + p("l.png") + " " + p("r.png") + " -m salap --set window=9 -d 8 -o " + p("out.pfm"));
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("disparities 0..7 (8 levels)"), std::string::npos) << text.out;
  const Outcome o = stereo("run " + p("l.png") + " " + p("r.png") + " -m salap --set window=9 -d 8 -o " +
                           p("out2.pfm") + " --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["min_disparity"], 0);
  EXPECT_EQ(j["levels"], 8);
}

TEST_F(Cli, RunRangeOutsideTheImageIsOneLineError) {
  // 64 wide: -1000 .. -993 leaves no overlap of the two views.
  expect_user_error(stereo("run " + p("l.png") + " " + p("r.png") + " -m salap -d 8 --min-disparity -1000 -o " +
                           p("out.pfm")),
                    "-1000..-993");
  expect_user_error(stereo("run " + p("l.png") + " " + p("r.png") + " -m salap -d 8 --min-disparity 60 -o " +
                           p("out.pfm")),
                    "60..67");
}

// A nonzero minimum: every disparity in the map lies in min .. min + count - 1, and the
// plane at 4 comes out at 4 (not at its level index 0).
TEST_F(Cli, RunWithMinDisparitySearchesFromTheMinimum) {
  const Outcome o = stereo("run " + p("l.png") + " " + p("r.png") + " -m salap -b cpu --set window=9 -d 8 "
                           "--min-disparity 4 -o " + p("out.pfm") + " --color " + p("outc.png") + " --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["min_disparity"], 4);
  EXPECT_EQ(j["levels"], 8);
  const ImageF d = read_pfm(p("out.pfm"));
  std::size_t finite = 0;
  for (float v : d.data)
    if (std::isfinite(v)) {
      ++finite;
      EXPECT_GE(v, 4.0f);
      EXPECT_LE(v, 11.0f);
    }
  EXPECT_GT(finite, d.data.size() / 2);
  EXPECT_FLOAT_EQ(d.at(32, 20), 4.0f);
  EXPECT_TRUE(fs::exists(p("outc.png")));
}

// import-pair turns a pair with a 16-bit ground truth (raw = 256 d, 0 = unknown, as KITTI
// stores it) into a MiddEval3 scene folder that load_scene reads back with the same views, the
// ground truth divided by --gt-scale, the unknown code masked out, occlusions from the
// disparities, and the search range rounded up to a multiple of 4; eval then runs on it.
TEST_F(Cli, ImportPairWritesAMiddEval3Scene) {
  // l.png / r.png: a plane at d = 4, 64 x 40. Column 10 has no ground truth.
  ImageU16 raw(64, 40, 1, std::uint16_t(4 * 256));
  for (int y = 0; y < 40; ++y) raw.at(10, y) = 0;
  write_png16(p("gt.png"), raw);
  const Outcome o = stereo("import-pair --left " + p("l.png") + " --right " + p("r.png") + " --gt " + p("gt.png") +
                           " --gt-scale 256 --name plane --out " + p("imported"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("import-pair: wrote plane (64x40, 8 levels"), std::string::npos) << o.out;

  const Scene s = load_scene(p("imported"));
  EXPECT_EQ(s.kind, SceneKind::middlebury_v3);
  EXPECT_EQ(s.levels, 8);  // ceil(4) + 1 = 5, rounded up to a multiple of 4
  EXPECT_EQ(s.left.data, read_image(p("l.png")).data);
  EXPECT_EQ(s.right.data, read_image(p("r.png")).data);
  ASSERT_TRUE(s.gt.same_size(64, 40));
  std::size_t all = 0, visible = 0;
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 64; ++x) {
      if (x == 10) {
        ASSERT_FALSE(std::isfinite(s.gt.at(x, y))) << x << "," << y;
        ASSERT_EQ(s.mask_all.at(x, y), 0);
      } else {
        ASSERT_FLOAT_EQ(s.gt.at(x, y), 4.0f) << x << "," << y;
      }
      all += s.mask_all.at(x, y) == 255;
      visible += s.mask_nonocc.at(x, y) == 255;
      if (x < 4) {
        ASSERT_EQ(s.mask_nonocc.at(x, y), 0) << "x - d < 0 is occluded";
      }
    }
  EXPECT_EQ(all, std::size_t(63 * 40));
  EXPECT_EQ(visible, std::size_t((63 - 4) * 40));

  // The imported folder evaluates: SA-LAP finds the plane away from the left border.
  const Outcome ev = stereo("eval " + p("imported") + " -m salap -b cpu --json");
  ASSERT_EQ(ev.code, 0) << ev.err;
  const auto j = nlohmann::json::parse(ev.out);
  ASSERT_EQ(j["scenes"].size(), 1u);
  EXPECT_LT(j["scenes"][0]["nonocc"].get<double>(), 5.0);

  // A user error leaves no folder behind.
  const Outcome bad = stereo("import-pair --left " + p("l.png") + " --right " + p("r.png") + " --gt " + p("gt.png") +
                             " --gt-scale 0 --name plane --out " + p("bad"));
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.err.find("--gt-scale"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(p("bad")));
}

// Malformed command lines (a bad option value, an unknown option, a missing subcommand) exit
// with the one usage code, 2; --help exits 0.
TEST_F(Cli, UsageErrorsExitWithTwo) {
  for (const std::string& args : std::vector<std::string>{"--device x list", "run --no-such-option", "", "run " + p("l.png")}) {
    const Outcome o = stereo(args);
    EXPECT_EQ(o.code, 2) << "stereo " << args << "\n" << o.err;
  }
  EXPECT_EQ(stereo("--help").code, 0);
}

