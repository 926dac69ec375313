// `stereo compare` and `stereo report`: the results.json schema and results.csv, the report
// made from a fixed results document, and a tiny end-to-end compare run on synthetic scenes
// (every available backend; a 1-cell speed grid plus one cell no backend can take).

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "host/dataset.h"
#include "host/error.h"
#include "host/image_io.h"
#include "host/matcher.h"
#include "host/metrics.h"
#include "host/report.h"
#include "host/synth.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace stereo;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int count_lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("stereo_compare_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// A results document as `compare` writes it, small and fixed: one method with a paper table
// and a paper speed setting, three backends (a shader, CUDA, the CPU reference), an accuracy
// row with maps, grid and paper speed rows, a refused row and an unavailable backend.
json fixed_results() {
  const json row_common = {{"params", {{"window", 33}}}, {"cpu", nullptr}, {"cpu_threads", nullptr},
                           {"time_includes", "upload + algorithm + read-back"}, {"clock", "test"}};
  json doc = json::parse(R"json({
    "schema": "stereo-compare/1", "created": "2026-01-01T00:00:00Z", "command": "stereo compare --out x",
    "host": {"cpu": "CPU: Test CPU (4 threads)", "threads": 4},
    "settings": {"repeats": 3, "sizes": ["64x48"], "levels": [16], "datasets": ["d"], "speed_input": "synthetic"},
    "methods": [{"name": "m", "title": "Method M", "citation": "A. Author, \"M\", 2001",
                 "accuracy_source": "Table 9", "accuracy_threshold": 1.0,
                 "accuracy": [{"scene": "s1", "nonocc": 3.5, "all": null, "disc": 9.25, "when": {}}],
                 "speed_source": "Table 8", "paper_gpu": "Old GPU 7000",
                 "speed": [{"width": 256, "height": 256, "levels": 32, "ms": 2.0, "mdes": 1048.576, "note": "n"}],
                 "params": []}],
    "backends": [
      {"method": "m", "backend": "gl", "available": true, "reason": null, "device": "GPU X",
       "device_info": {"name": "GPU X", "uuid": "GPU-1234"}, "params": {"window": 33}},
      {"method": "m", "backend": "cuda", "available": true, "reason": null, "device": "GPU X",
       "device_info": {"name": "GPU X", "uuid": "GPU-1234", "driver": "13.0"}, "params": {"window": 33}},
      {"method": "m", "backend": "cpu", "available": false, "reason": "no reason, a test", "device": "",
       "device_info": null, "params": null}],
    "rows": []})json");
  json acc = row_common;
  acc.update({{"kind", "accuracy"}, {"method", "m"}, {"backend", "cuda"}, {"input", "d/s1"}, {"status", "ok"},
              {"reason", nullptr}, {"device", "GPU X"}, {"device_info", doc["backends"][1]["device_info"]},
              {"dataset", "d"}, {"scene", "s1"}, {"width", 8}, {"height", 6}, {"min_disparity", 0}, {"levels", 4},
              {"threshold", 1.0}, {"total_ms", 0.5}, {"algorithm_ms", 0.4}, {"upload_ms", 0.05}, {"readback_ms", 0.05},
              {"mdes", 0.384}, {"ns_per_de", 2604.1666},
              {"metrics", {{"nonocc", 4.25}, {"all", 6.5}, {"disc", 11.0}, {"avg_error", 0.5}, {"density", 100.0}}},
              {"paper", {{"nonocc", 3.5}, {"all", nullptr}, {"disc", 9.25}}},
              {"maps", {{"left", "maps/l.png"}, {"gt", "maps/g.png"}, {"disparity", "maps/d.png"}, {"error", "maps/e.png"}}}});
  doc["rows"].push_back(acc);
  const auto speed = [&](const std::string& backend, int w, int h, int levels, double ms, const std::string& setting) {
    json r = row_common;
    r.update({{"kind", "speed"}, {"method", "m"}, {"backend", backend}, {"input", std::to_string(w) + "x" + std::to_string(h) + " synthetic"},
              {"status", "ok"}, {"reason", nullptr}, {"device", "GPU X"}, {"device_info", doc["backends"][backend == "gl" ? 0 : 1]["device_info"]},
              {"setting", setting}, {"width", w}, {"height", h}, {"min_disparity", 0}, {"levels", levels}, {"repeats", 3},
              {"total_ms", ms}, {"total_ms_min", ms * 0.9}, {"total_ms_max", ms * 1.2}, {"algorithm_ms", ms * 0.8},
              {"algorithm_ms_min", ms * 0.7}, {"algorithm_ms_max", ms}, {"upload_ms", 0.0}, {"readback_ms", 0.0},
              {"mdes", double(w) * h * levels / (ms * 1e3)}, {"mdes_algorithm", double(w) * h * levels / (ms * 800.0)},
              {"ns_per_de", ms * 1e6 / (double(w) * h * levels)}, {"paper", nullptr}});
    return r;
  };
  doc["rows"].push_back(speed("gl", 64, 48, 16, 1.0, "grid"));
  doc["rows"].push_back(speed("cuda", 64, 48, 16, 0.25, "grid"));
  json paper_row = speed("cuda", 256, 256, 32, 0.5, "paper");
  paper_row["paper"] = {{"gpu", "Old GPU 7000"}, {"ms", 2.0}, {"mdes", 1048.576}, {"note", "n, with a comma"},
                        {"ratio_mdes", 4.0}};
  doc["rows"].push_back(paper_row);
  json refused = row_common;
  refused.update({{"kind", "speed"}, {"method", "m"}, {"backend", "gl"}, {"input", "9000x9000 synthetic"},
                  {"status", "refused"}, {"reason", "m/gl: 9000x9000 exceeds the texture limit, 8192"},
                  {"device", "GPU X"}, {"device_info", doc["backends"][0]["device_info"]}, {"setting", "grid"},
                  {"width", 9000}, {"height", 9000}, {"min_disparity", 0}, {"levels", 16}, {"repeats", 3}});
  doc["rows"].push_back(refused);
  return doc;
}

TEST(CompareSchema, FixedResultsPassTheCheckAndEachMissingFieldIsNamed) {
  const json doc = fixed_results();
  EXPECT_NO_THROW(check_results(doc, "fixed"));
  json no_schema = doc;
  no_schema["schema"] = "other/0";
  EXPECT_THROW(check_results(no_schema, "fixed"), Error);
  for (const char* key : {"kind", "status", "levels"}) {
    json broken = doc;
    broken["rows"][1].erase(key);
    try {
      check_results(broken, "fixed");
      ADD_FAILURE() << "no error without " << key;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("\"") + key + "\""), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("row 1"), std::string::npos) << e.what();
    }
  }
  json no_spread = doc;
  no_spread["rows"][1].erase("total_ms_max");  // an ok speed row must state its spread
  EXPECT_THROW(check_results(no_spread, "fixed"), Error);
  json refused_without_reason = doc;
  refused_without_reason["rows"][4]["reason"] = nullptr;
  EXPECT_THROW(check_results(refused_without_reason, "fixed"), Error);
}

TEST(CompareSchema, CsvHasTheFixedColumnsAndOneLinePerRow) {
  const json doc = fixed_results();
  const std::string csv = results_csv(doc);
  std::string header;
  for (const std::string& c : results_csv_columns()) header += (header.empty() ? "" : ",") + c;
  EXPECT_EQ(csv.substr(0, csv.find('\n')), header);
  EXPECT_EQ(count_lines(csv), 1 + int(doc["rows"].size()));
  // The paper row: its note has a comma (quoted), its ratio and GPU are in their columns, and
  // the device's UUID is there.
  EXPECT_NE(csv.find(",Old GPU 7000,4,\"n, with a comma\",GPU X,GPU-1234,13.0,"), std::string::npos) << csv;
  // Every line has as many fields as the header, counting commas outside quotes.
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    int fields = 1;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      else if (c == ',' && !quoted) ++fields;
    }
    EXPECT_EQ(fields, int(results_csv_columns().size())) << line;
  }
}

TEST(CompareReport, MadeFromAFixedResultsJsonAlone) {
  const fs::path dir = fresh_dir("report");
  fs::create_directories(dir / "maps");
  for (const char* m : {"l", "g", "d", "e"}) write_png(dir / "maps" / (std::string(m) + ".png"), ImageU8(8, 6, 3, 100));
  {
    std::ofstream f(dir / "results.json");
    f << fixed_results().dump(2);
  }
  ::setenv("STEREO_GNUPLOT", "stereo-no-such-gnuplot", 1);
  std::ostringstream log;
  const auto written = regenerate_report(dir, log);
  ::unsetenv("STEREO_GNUPLOT");
  EXPECT_NE(log.str().find("plots skipped"), std::string::npos) << log.str();
  const std::string md = slurp(dir / "report.md");
  // Ours beside the paper's accuracy row, the speed table with the spread, shader vs CUDA
  // (0.25 ms against 1 ms: 0.25), the ratio to the paper naming its GPU, the refusal and why.
  EXPECT_NE(md.find("| d/s1 | cuda | 8x6 | 1.0 | 4.25 | 6.50 | 11.00 | 0.50 | 100.0 | 0.5 | 3.50 | - | 9.25 |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("4.25 / 3.50 (1)"), std::string::npos);
  EXPECT_NE(md.find("0.225 .. 0.300"), std::string::npos);
  EXPECT_NE(md.find("## Shaders against CUDA"), std::string::npos);
  EXPECT_NE(md.find("| 64x48 | 16 | grid | 49.2 | 196.6 | 0.25 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 4194.3 | 1049 | Old GPU 7000 | 4.00 |"), std::string::npos) << md;
  EXPECT_NE(md.find("9000x9000 exceeds the texture limit"), std::string::npos);
  EXPECT_NE(md.find("m/cpu: not run: no reason, a test"), std::string::npos);
  EXPECT_NE(md.find("Not made here"), std::string::npos);
  // The montage: the scene row and one method row, two tiles each.
  const ImageU8 montage = read_image(dir / "maps" / "montage_d-s1.png");
  EXPECT_EQ(montage.width, 2 * 8 + 3 * 6);
  EXPECT_EQ(montage.height, 2 * (6 + 6) + 6);
  EXPECT_TRUE(fs::exists(dir / "plots" / "pareto.gp"));
  EXPECT_TRUE(fs::exists(dir / "plots" / "mdes_vs_levels_64x48.gp"));
  EXPECT_EQ(slurp(dir / "results.csv"), results_csv(fixed_results()));
  // With gnuplot (where installed) the same call makes the pictures and lists them.
  if (std::system("command -v gnuplot >/dev/null 2>&1") == 0) {
    std::ostringstream log2;
    regenerate_report(dir, log2);
    EXPECT_TRUE(fs::exists(dir / "plots" / "pareto.png")) << log2.str();
    EXPECT_TRUE(fs::exists(dir / "plots" / "mdes_vs_levels_64x48.png")) << log2.str();
    EXPECT_NE(slurp(dir / "report.md").find("![plots/pareto.png](plots/pareto.png)"), std::string::npos);
  }
  fs::remove_all(dir);
}

TEST(CompareRun, TinyRunOnEveryAvailableBackendMatchesADirectEvaluation) {
  const fs::path dir = fresh_dir("run");
  SynthOptions o;
  o.width = 48;
  o.height = 40;
  o.levels = 8;
  write_scene(make_synthetic_scene(o), dir / "data" / "planes");
  o.layout = SynthLayout::slanted;
  write_scene(make_synthetic_scene(o), dir / "data" / "slanted");
  // A 2 x 2 grid: 16x16 x 20 no backend can take (20 levels do not fit a 16-pixel-wide image),
  // so it is recorded as refused and the run goes on; 48x40 x 20 (0.038 M evaluations) is over
  // --reference-max-mde 0.02 and skipped for the `cpu` references only.
  const std::string cmd = std::string(STEREO_BIN) + " compare " + (dir / "data").string() +
                          " --sizes 48x40,16x16 --levels 8,20 --repeats 2 --no-paper-speed --reference-max-mde 0.02 --out " +
                          (dir / "out").string() + " >" + (dir / "stdout").string() + " 2>" + (dir / "stderr").string();
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << slurp(dir / "stderr");
  const json doc = json::parse(slurp(dir / "out" / "results.json"));
  ASSERT_NO_THROW(check_results(doc, "tiny run"));

  const Scene planes = load_scene(dir / "data" / "planes");
  int lanes = 0;
  for (const json& b : doc["backends"]) {
    if (!b["available"].get<bool>()) continue;
    ++lanes;
    const std::string method = b["method"], backend = b["backend"];
    int accuracy = 0, speed = 0;
    const bool reference = backend == "cpu";
    for (const json& r : doc["rows"]) {
      if (r["method"] != method || r["backend"] != backend) continue;
      if (r["kind"] == "accuracy") {
        EXPECT_EQ(r["status"], "ok") << method << "/" << backend << ": " << r.dump();
        ++accuracy;
        continue;
      }
      ++speed;
      const int w = r["width"], levels = r["levels"];
      const std::string st = r["status"];
      if (st == "ok") {
        EXPECT_LE(r["total_ms_min"].get<double>(), r["total_ms"].get<double>());
        EXPECT_GE(r["total_ms_max"].get<double>(), r["total_ms"].get<double>());
      } else {
        EXPECT_FALSE(r["reason"].get<std::string>().empty());
        EXPECT_EQ(r["reason"].get<std::string>().find('\n'), std::string::npos) << "reasons are one line";
      }
      if (w == 48 && levels == 8) {
        EXPECT_EQ(st, "ok") << method << "/" << backend << ": " << r.dump();
      }
      if (w == 16 && levels == 20) {
        EXPECT_EQ(st, "refused") << method << "/" << backend;
      }
      if (w == 48 && levels == 20) {
        EXPECT_EQ(st, reference ? "skipped" : "ok") << method << "/" << backend;
        if (reference) {
          EXPECT_NE(r["reason"].get<std::string>().find("--reference-max-mde"), std::string::npos);
        }
      }
      // A backend may refuse 16x16 x 8 for a limit of its own, but only with its name in the reason.
      if (w == 16 && levels == 8 && st != "ok") {
        EXPECT_NE(r["reason"].get<std::string>().find(method + "/" + backend), std::string::npos) << r["reason"];
      }
    }
    EXPECT_EQ(accuracy, 2) << method << "/" << backend;
    EXPECT_EQ(speed, 4) << method << "/" << backend;
    // The accuracy numbers are those of the matcher evaluated directly.
    const StereoResult direct = create_matcher(method, backend, {})->compute(planes.left, planes.right, planes.range());
    const Metrics m = evaluate(direct.disparity, planes, planes.default_threshold);
    for (const json& r : doc["rows"])
      if (r["method"] == method && r["backend"] == backend && r["kind"] == "accuracy" && r["scene"] == "planes") {
        EXPECT_NEAR(r["metrics"]["nonocc"].get<double>(), *m.bad_nonocc, 1e-9) << method << "/" << backend;
        EXPECT_NEAR(r["metrics"]["all"].get<double>(), *m.bad_all, 1e-9) << method << "/" << backend;
        EXPECT_TRUE(fs::exists(dir / "out" / r["maps"]["disparity"].get<std::string>()));
      }
    EXPECT_NE(b["params"], nullptr);
  }
  EXPECT_GE(lanes, 2);  // at least the two CPU references
  const std::string err = slurp(dir / "stderr");
  EXPECT_NE(err.find("[1/"), std::string::npos) << err;
  const std::string csv = slurp(dir / "out" / "results.csv");
  EXPECT_EQ(count_lines(csv), 1 + int(doc["rows"].size()));
  const std::string md = slurp(dir / "out" / "report.md");
  for (const json& b : doc["backends"]) {
    if (!b["available"].get<bool>()) continue;
    const std::string lane = "| " + b["method"].get<std::string>() + " | " + b["backend"].get<std::string>() + " |";
    EXPECT_NE(md.find(lane), std::string::npos) << lane;
  }
  EXPECT_TRUE(fs::exists(dir / "out" / "maps" / "montage_data-planes.png"));
  EXPECT_NE(slurp(dir / "stdout").find("method/backend"), std::string::npos);

  // `stereo report` remakes the same report.md from results.json alone.
  fs::remove(dir / "out" / "report.md");
  fs::remove(dir / "out" / "results.csv");
  const int again = std::system((std::string(STEREO_BIN) + " report " + (dir / "out").string() + " >/dev/null 2>&1").c_str());
  ASSERT_TRUE(WIFEXITED(again) && WEXITSTATUS(again) == 0);
  EXPECT_EQ(slurp(dir / "out" / "report.md"), md);
  EXPECT_EQ(slurp(dir / "out" / "results.csv"), csv);
  fs::remove_all(dir);
}

}  // namespace
