// `stereo compare` and `stereo report`: the results.json schema and results.csv, the report
// made from a fixed results document, and a tiny end-to-end compare run on synthetic scenes
// (every available backend; a 1-cell speed grid plus one cell no backend can take).

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/measure.h"
#include "app/dataset.h"
#include "core/error.h"
#include "app/image_io.h"
#include "core/matcher.h"
#include "app/metrics.h"
#include "app/montage.h"
#include "app/report.h"
#include "app/revision.h"
#include "app/synth.h"
#include "tests/cli_util.h"
#include "methods/builtin.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace stereo;

namespace {

using test::slurp;

int count_lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("stereo_compare_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// The strip of the montage at `top`, the whole width, holds `label` drawn in black on white
// from x = MONTAGE_GAP and nothing else; the label has ink (it is not blank).
void expect_label(const ImageU8& montage, int top, const std::string& label) {
  ImageU8 expected(montage.width, MONTAGE_LABEL_HEIGHT, 3, 255);
  draw_text(expected, MONTAGE_GAP, 0, label, MONTAGE_LABEL_SCALE, {0, 0, 0});
  int ink = 0, differ = 0;
  for (int y = 0; y < MONTAGE_LABEL_HEIGHT; ++y)
    for (int x = 0; x < montage.width; ++x) {
      ink += montage.at(x, top + y, 0) == 0 && montage.at(x, top + y, 1) == 0 && montage.at(x, top + y, 2) == 0;
      for (int c = 0; c < 3; ++c) differ += montage.at(x, top + y, c) != expected.at(x, y, c);
    }
  EXPECT_GT(ink, 0) << "no label drawn at y " << top << " (\"" << label << "\")";
  EXPECT_EQ(differ, 0) << "the strip at y " << top << " is not \"" << label << "\" on white";
}

// A results document as `compare` writes it, small and fixed: one method with a paper table
// and a paper speed setting, three backends (a shader, CUDA, the CPU reference), an accuracy
// row with maps, grid and paper speed rows, a refused row and an unavailable backend.
json fixed_results() {
  const json row_common = {{"params", {{"window", 33}}}, {"cpu", nullptr}, {"cpu_threads", nullptr},
                           {"time_includes", "upload + algorithm + read-back"}, {"clock", "test"}};
  json doc = json::parse(R"json({
    "schema": "stereo-compare/1", "created": "2026-01-01T00:00:00Z", "command": "stereo compare --out x",
    "revision": "0123456789ab",
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
  EXPECT_NE(md.find("Source: `0123456789ab`."), std::string::npos) << md;
  // The montage: the scene's name, then the scene row and one method row, each named in the
  // picture right above its two tiles. The labels are wider than two 8-pixel tiles: they set
  // the width.
  const ImageU8 montage = read_image(dir / "maps" / "montage_d-s1.png");
  const std::string method_row = "m/cuda: disparity | error";
  EXPECT_EQ(montage.width, text_width(method_row, MONTAGE_LABEL_SCALE) + 2 * MONTAGE_GAP);
  EXPECT_EQ(montage.height, montage_label_top(2, 6));
  expect_label(montage, montage_label_top(-1, 6), "d/s1");
  expect_label(montage, montage_label_top(0, 6), "left view | ground truth");
  expect_label(montage, montage_label_top(1, 6), method_row);
  const int tiles_y = montage_label_top(1, 6) + MONTAGE_LABEL_HEIGHT + MONTAGE_LABEL_GAP;
  EXPECT_EQ(montage.at(MONTAGE_GAP, tiles_y, 0), 100);  // the disparity map's tile
  EXPECT_EQ(montage.at(2 * MONTAGE_GAP + 8 + 7, tiles_y + 5, 2), 100);  // the error map's last pixel
  EXPECT_TRUE(fs::exists(dir / "plots" / "pareto.gp"));
  EXPECT_TRUE(fs::exists(dir / "plots" / "mdes_vs_levels_64x48.gp"));
  EXPECT_EQ(slurp(dir / "results.csv"), results_csv(fixed_results()));
  EXPECT_NE(std::find(written.begin(), written.end(), "maps/montage_d-s1.png"), written.end());
  EXPECT_NE(md.find("](maps/montage_d-s1.png)"), std::string::npos) << md;
  // A results folder kept without its maps (the montage only, as under docs/results): the
  // report still shows the montage, and says it did not write it.
  for (const char* m : {"l", "g", "d", "e"}) fs::remove(dir / "maps" / (std::string(m) + ".png"));
  {
    std::ostringstream log_kept;
    const auto kept = regenerate_report(dir, log_kept);
    EXPECT_EQ(std::find(kept.begin(), kept.end(), "maps/montage_d-s1.png"), kept.end());
    EXPECT_NE(slurp(dir / "report.md").find("](maps/montage_d-s1.png)"), std::string::npos);
    fs::remove(dir / "maps" / "montage_d-s1.png");
    std::ostringstream log_gone;
    regenerate_report(dir, log_gone);
    EXPECT_EQ(slurp(dir / "report.md").find("montage_d-s1"), std::string::npos);
  }
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

// fixed_results() as `compare` writes it since it scores both ways: the accuracy row with its
// metrics as submitted (here below the float ones, as quantising to 1/16 px can make them) and
// its format's rule.
json with_submitted(json doc) {
  json& acc = doc["rows"][0];
  acc["metrics_submitted"] = {{"nonocc", 4.0}, {"all", 6.25}, {"disc", 10.5}, {"avg_error", 0.55}, {"density", 100.0}};
  acc["submission_rule"] = "Middlebury v2: 8-bit PNG of d x 16 (1/16 px steps, 0..255), no disparity = 0";
  return doc;
}

TEST(CompareReport, BothProtocolsSideBySideThePapersFirst) {
  const json doc = with_submitted(fixed_results());
  ASSERT_NO_THROW(check_results(doc, "both"));
  const std::string md = report_markdown(doc, {}, {});
  // Per column ours as submitted, the paper's, ours as float; then the float map's avg err and
  // density, and the time.
  EXPECT_NE(md.find("| input | backend | size | threshold | nonocc | paper nonocc | float nonocc | all | paper all | "
                    "float all | disc | paper disc | float disc | float avg err | float density | ms |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| d/s1 | cuda | 8x6 | 1.0 | 4.00 | 3.50 | 4.25 | 6.25 | - | 6.50 | 10.50 | 9.25 | 11.00 | 0.50 | "
                    "100.0 | 0.5 |"),
            std::string::npos) << md;
  // The averages: as submitted, against the paper as submitted, then float.
  EXPECT_NE(md.find("| d | cuda | 4.00 | 6.25 | 10.50 | 4.00 / 3.50 (1) | - | 10.50 / 9.25 (1) | 4.25 | 6.50 | 11.00 |"),
            std::string::npos) << md;
  // Which is which, and the format's rule with the inputs it applies to.
  EXPECT_NE(md.find("first the map as the scene format's benchmark received it (the papers' protocol"),
            std::string::npos) << md;
  EXPECT_NE(md.find("- submitted as Middlebury v2: 8-bit PNG of d x 16 (1/16 px steps, 0..255), no disparity = 0: "
                    "d/s1\n"),
            std::string::npos) << md;
  EXPECT_EQ(md.find("float figures only"), std::string::npos) << md;
  // The terminal's summary: per dataset the mean as submitted, then the float one.
  const std::string summary = summary_table(doc);
  EXPECT_NE(summary.find("bad% d  float bad% d"), std::string::npos) << summary;
  EXPECT_NE(summary.find("m/cuda          4.00    4.25  "), std::string::npos) << summary;
  EXPECT_NE(summary.find("as the papers were scored; float bad%: the maps as computed"), std::string::npos) << summary;
  // results.csv carries both, and the rule (quoted: it has commas).
  const std::string csv = results_csv(doc);
  EXPECT_NE(csv.find(",4.25,6.5,11,0.5,100,,4,6.25,10.5,\"Middlebury v2: 8-bit PNG of d x 16 (1/16 px steps, 0..255), "
                     "no disparity = 0\","),
            std::string::npos) << csv;
  json bad = doc;
  bad["rows"][0]["metrics_submitted"] = "4.0";
  EXPECT_THROW(check_results(bad, "bad"), Error);
}

TEST(CompareReport, ADocumentFromBeforeTheSubmittedScoresSaysItHoldsFloatFiguresOnly) {
  const json doc = fixed_results();  // no "metrics_submitted": as docs/results/h100-2026-11-26
  const std::string md = report_markdown(doc, {}, {});
  EXPECT_NE(md.find("**This run holds float figures only:** its results.json predates the scores as submitted"),
            std::string::npos) << md;
  // The table as before: ours (float) beside the paper's.
  EXPECT_NE(md.find("| d/s1 | cuda | 8x6 | 1.0 | 4.25 | 6.50 | 11.00 | 0.50 | 100.0 | 0.5 | 3.50 | - | 9.25 |"),
            std::string::npos) << md;
  EXPECT_EQ(md.find("float nonocc"), std::string::npos) << md;
  const std::string summary = summary_table(doc);
  EXPECT_EQ(summary.find("float bad%"), std::string::npos) << summary;
  EXPECT_NE(summary.find("m/cuda          4.25    196.6"), std::string::npos) << summary;
  EXPECT_NE(summary.find("float maps only: this results.json predates the scores as submitted"), std::string::npos)
      << summary;
  // And the documents in docs/results make their report.
  for (const char* run : {"h100-2026-11-26", "peer-sgbm-2026-11-25"}) {
    const json kept = read_results(fs::path(STEREO_SOURCE_DIR) / "docs" / "results" / run);
    EXPECT_NE(report_markdown(kept, {}, {}).find("This run holds float figures only"), std::string::npos) << run;
  }
}

// Every report under docs/results is what `stereo report` renders from its results.json today:
// remade in a copy, every file reads byte for byte as committed and no file is added. A report
// left behind by a change to the renderer fails here, naming the file; `stereo report` on the
// report's folder (with gnuplot-nox for the pictures) brings it up to date. The committed
// pictures stand in for gnuplot's (STEREO_GNUPLOT=true draws nothing and succeeds), so the test
// needs no gnuplot and checks that report.md lists exactly the pictures that are committed.
TEST(CompareReport, TheCommittedReportsAreWhatStereoReportRenders) {
  const fs::path results = fs::path(STEREO_SOURCE_DIR) / "docs" / "results";
  const auto files_under = [](const fs::path& root) {
    std::vector<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.is_regular_file()) files.push_back(fs::relative(e.path(), root).string());
    std::sort(files.begin(), files.end());
    return files;
  };
  int reports = 0;
  for (const auto& run : fs::directory_iterator(results)) {
    if (!fs::exists(run.path() / "results.json")) continue;
    ++reports;
    const std::string name = run.path().filename().string();
    const fs::path copy = fresh_dir("committed_" + name);
    fs::copy(run.path(), copy, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    ::setenv("STEREO_GNUPLOT", "true", 1);
    std::ostringstream log;
    ASSERT_NO_THROW(regenerate_report(copy, log)) << name;
    ::unsetenv("STEREO_GNUPLOT");
    const std::vector<std::string> committed = files_under(run.path());
    EXPECT_EQ(files_under(copy), committed) << name << ": `stereo report` writes files the folder does not hold";
    for (const std::string& f : committed)
      EXPECT_TRUE(slurp(copy / f) == slurp(run.path() / f))
          << "docs/results/" << name << "/" << f << " is not what `stereo report` renders from its results.json "
          << "now: run `stereo report docs/results/" << name << "` and commit the result";
    fs::remove_all(copy);
  }
  EXPECT_GE(reports, 2) << "docs/results holds the H100 comparison and the OpenCV peer's report";
}

// Each row's label sits right above its own tiles (nearer to them than to the row above), the
// scene's name above all; tiles of different sizes share the largest cell, a missing map is
// mid grey, and a label wider than the tiles widens the picture instead of being cut.
TEST(CompareMontage, LabelsNameTheSceneAndEachRowAboveItsTiles) {
  // A 10 x 4 red tile and 12 x 5 blue ones; no error map in the second row.
  MontageRow scene{"left view | ground truth", ImageU8(10, 4, 3, 0), ImageU8(12, 5, 3, 0)};
  MontageRow lane{"salap/cuda: disparity | error", ImageU8(12, 5, 3, 0), ImageU8{}};
  for (int x = 0; x < 10; ++x)
    for (int y = 0; y < 4; ++y) scene.left.at(x, y, 0) = 200;
  for (int x = 0; x < 12; ++x)
    for (int y = 0; y < 5; ++y) scene.right.at(x, y, 2) = 210, lane.left.at(x, y, 2) = 210;
  const ImageU8 m = compose_montage("middlebury-v2/tsukuba", {scene, lane});
  ASSERT_EQ(m.width, text_width(lane.label, MONTAGE_LABEL_SCALE) + 2 * MONTAGE_GAP);
  ASSERT_GT(m.width, 2 * 12 + 3 * MONTAGE_GAP);
  ASSERT_EQ(m.height, montage_label_top(2, 5));
  expect_label(m, montage_label_top(-1, 5), "middlebury-v2/tsukuba");
  expect_label(m, montage_label_top(0, 5), scene.label);
  expect_label(m, montage_label_top(1, 5), lane.label);
  for (int row = 0; row < 2; ++row) {
    const int label_bottom = montage_label_top(row, 5) + MONTAGE_LABEL_HEIGHT;
    const int tiles = label_bottom + MONTAGE_LABEL_GAP;
    const int above = montage_label_top(row, 5) - (row == 0 ? montage_label_top(-1, 5) + MONTAGE_LABEL_HEIGHT
                                                             : montage_label_top(row - 1, 5) + MONTAGE_LABEL_HEIGHT +
                                                                   MONTAGE_LABEL_GAP + 5);
    EXPECT_LT(tiles - label_bottom, above) << "row " << row << "'s label is nearer the row above than its own";
    const int right_x = 2 * MONTAGE_GAP + 12;
    if (row == 0) {
      EXPECT_EQ(m.at(MONTAGE_GAP, tiles, 0), 200);          // red tile
      EXPECT_EQ(m.at(MONTAGE_GAP + 10, tiles, 0), 128);     // beyond the 10-wide tile: grey
      EXPECT_EQ(m.at(MONTAGE_GAP, tiles + 4, 1), 128);      // below the 4-high tile: grey
      EXPECT_EQ(m.at(right_x + 11, tiles + 4, 2), 210);     // the 12 x 5 tile fills its cell
    } else {
      EXPECT_EQ(m.at(MONTAGE_GAP + 11, tiles + 4, 2), 210);
      EXPECT_EQ(m.at(right_x, tiles, 0), 128);  // the missing error map
    }
  }
  EXPECT_THROW(compose_montage("x", {}), Error);
  EXPECT_THROW(compose_montage("x", {MontageRow{"empty", ImageU8{}, ImageU8{}}}), Error);
  EXPECT_THROW(compose_montage("x", {MontageRow{"grey", ImageU8(4, 4, 1), ImageU8{}}}), Error);
}

// The font: every printable character its own glyph, inked and within its 5 columns; the
// space blank; anything else a hollow box; text width and clipping at the edges.
TEST(CompareMontage, FontHasADistinctGlyphPerPrintableCharacter) {
  std::vector<std::array<std::uint8_t, GLYPH_HEIGHT>> seen;
  for (char c = ' '; c <= '~'; ++c) {
    const auto g = glyph(c);
    int ink = 0;
    for (std::uint8_t row : g) {
      EXPECT_EQ(row & ~0x1F, 0) << "'" << c << "' is wider than 5 columns";
      ink += std::popcount(unsigned(row));
    }
    EXPECT_EQ(ink == 0, c == ' ') << "'" << c << "'";
    EXPECT_EQ(std::find(seen.begin(), seen.end(), g), seen.end()) << "'" << c << "' looks like an earlier character";
    seen.push_back(g);
  }
  const std::array<std::uint8_t, GLYPH_HEIGHT> bar = {0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x00};
  EXPECT_EQ(glyph('|'), bar);
  EXPECT_EQ(glyph('\xc3'), glyph('\n'));
  EXPECT_EQ(std::find(seen.begin(), seen.end(), glyph('\n')), seen.end()) << "the box is no printable character";
  EXPECT_EQ(text_width("", 2), 0);
  EXPECT_EQ(text_width("ab", 2), (2 * GLYPH_ADVANCE - 1) * 2);
  ImageU8 img(7, 5, 3, 255);
  draw_text(img, -3, -4, "||", 2, {1, 2, 3});  // partly outside on every side: clipped, no throw
  EXPECT_EQ(img.at(0, 0, 0), 255);             // the first bar's column 2 x 2 lands at x 1..2
  EXPECT_EQ(img.at(1, 0, 2), 3);
  EXPECT_THROW(draw_text(img, 0, 0, "a", 0, {0, 0, 0}), Error);
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
                          " --sizes 48x40,16x16 --levels 8,20 --repeats 2 --warmup-ms 20 --no-paper-speed "
                          "--reference-max-mde 0.02 --out " +
                          (dir / "out").string() + " >" + (dir / "stdout").string() + " 2>" + (dir / "stderr").string();
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << slurp(dir / "stderr");
  const json doc = json::parse(slurp(dir / "out" / "results.json"));
  ASSERT_NO_THROW(check_results(doc, "tiny run"));
  EXPECT_EQ(doc["settings"]["warmup"]["min_ms"], 20.0);
  EXPECT_EQ(doc["revision"], source_revision());  // the code the numbers came from

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
        EXPECT_GE(r["warmup_runs"].get<int>(), 1);
        EXPECT_EQ(r["runs"]["total_ms"].size(), 2u);
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

// ---- the timed runs reuse the warmed-up matcher ----------------------------------------------

namespace {

// A matcher whose runs after each new size or range (its "plan") report a slow time for the
// first `transient_ms` of wall time, as a first small CUDA cell after a large one did on the
// H100 (a setup cost landing in the timed runs), then a fast one. It records every run's
// pair, size and range, how often it planned, and when the accounting was asked for.
class TransientMatcher final : public Matcher {
 public:
  TransientMatcher(double transient_ms, double slow_ms, double fast_ms)
      : transient_ms_(transient_ms), slow_ms_(slow_ms), fast_ms_(fast_ms) {}

  struct Run {
    const std::uint8_t* left = nullptr;
    int width = 0, height = 0;
    DisparityRange range;
  };
  std::vector<Run> runs;
  int plans = 0;
  std::vector<std::size_t> memory_asked_after, fetch_asked_after;  ///< runs done when asked

  nlohmann::json params() const override { return {{"fake", true}}; }
  std::string component() const override { return "fake/cpu"; }
  std::string device() const override { return "fake device"; }
  std::optional<MemoryStats> memory_stats(int, int, DisparityRange) override {
    memory_asked_after.push_back(runs.size());
    return std::nullopt;
  }
  std::optional<FetchStats> fetch_stats(int, int, int) override {
    fetch_asked_after.push_back(runs.size());
    return std::nullopt;
  }

 protected:
  StereoResult match(const ImageU8& left, const ImageU8&, DisparityRange range) override {
    using clock = std::chrono::steady_clock;
    if (runs.empty() || runs.back().width != left.width || runs.back().height != left.height ||
        runs.back().range.min != range.min || runs.back().range.count != range.count) {
      ++plans;
      planned_at_ = clock::now();
    }
    runs.push_back({left.data.data(), left.width, left.height, range});
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // the clock moves run by run
    StereoResult r;
    r.disparity = ImageF(left.width, left.height, 1);
    const double since_ms = std::chrono::duration<double, std::milli>(clock::now() - planned_at_).count();
    r.timing.algorithm_ms = since_ms < transient_ms_ ? slow_ms_ : fast_ms_;
    r.timing.clock = "fake";
    return r;
  }

 private:
  double transient_ms_, slow_ms_, fast_ms_;
  std::chrono::steady_clock::time_point planned_at_;
};

MethodInfo fake_info() {
  MethodInfo info;
  info.name = "fake";
  return info;
}

}  // namespace

TEST(CompareWarmUp, TimedRunsReuseTheWarmedUpMatcherAfterItsTransient) {
  // The transient lasts 100 ms of wall time after the plan; the warm-up lasts at least 150 ms.
  TransientMatcher m(100.0, 5.0, 1.0);
  const cli::BenchConfig config{64, 48, {0, 8}, std::nullopt};
  const json j = cli::bench_one(m, fake_info(), "cpu", config, 5, cli::WarmUp{1, 150.0, 100000});
  // One plan: every run, warm-up and timed, is the same pair (the same buffer), size and range.
  EXPECT_EQ(m.plans, 1);
  ASSERT_GE(m.runs.size(), 6u);
  for (const auto& r : m.runs) {
    EXPECT_EQ(r.left, m.runs.front().left);
    EXPECT_EQ(r.width, 64);
    EXPECT_EQ(r.height, 48);
    EXPECT_EQ(r.range.min, 0);
    EXPECT_EQ(r.range.count, 8);
  }
  EXPECT_EQ(j["warmup_runs"].get<std::size_t>(), m.runs.size() - 5);
  EXPECT_GT(j["warmup_runs"].get<int>(), 1);  // one run did not reach the end of the transient
  // The accounting ran before the first run, not between the warm-up and the timed runs.
  EXPECT_EQ(m.memory_asked_after, std::vector<std::size_t>{0});
  EXPECT_EQ(m.fetch_asked_after, std::vector<std::size_t>{0});
  // No timed run carries the transient; each run's time is in the row, in order.
  EXPECT_DOUBLE_EQ(j["total_ms"].get<double>(), 1.0);
  ASSERT_EQ(j["runs"]["total_ms"].size(), 5u);
  for (const json& t : j["runs"]["total_ms"]) EXPECT_DOUBLE_EQ(t.get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["total_ms_max"].get<double>(), 1.0);
}

TEST(CompareWarmUp, OneWarmUpRunLetsTheTransientIntoTheTimedRuns) {
  // The control for the test above: the old single warm-up run times the transient.
  TransientMatcher m(100.0, 5.0, 1.0);
  const cli::BenchConfig config{64, 48, {0, 8}, std::nullopt};
  const json j = cli::bench_one(m, fake_info(), "cpu", config, 5, cli::WarmUp{1, 0.0, 1});
  EXPECT_EQ(j["warmup_runs"].get<int>(), 1);
  EXPECT_EQ(m.plans, 1);
  EXPECT_DOUBLE_EQ(j["total_ms"].get<double>(), 5.0);
}

TEST(CompareWarmUp, PolicyIsCheckedAndNamed) {
  int runs = 0;
  EXPECT_EQ(cli::warm_up(cli::WarmUp{3, 0.0, 10}, [&] { ++runs; }), 3);
  EXPECT_EQ(runs, 3);
  runs = 0;
  EXPECT_EQ(cli::warm_up(cli::WarmUp{1, 1e9, 7}, [&] { ++runs; }), 7);  // the run cap ends a long floor
  EXPECT_THROW(cli::warm_up(cli::WarmUp{0, 0.0, 10}, [] {}), Error);
  EXPECT_THROW(cli::warm_up(cli::WarmUp{5, 0.0, 4}, [] {}), Error);
  EXPECT_THROW(cli::warm_up(cli::WarmUp{1, -1.0, 4}, [] {}), Error);
  EXPECT_NE(cli::warmup_text(cli::WarmUp{}).find("at least 1 run and 200 ms"), std::string::npos);
}

TEST(CompareWarmUp, PaperSettingOverridesHoldOnlyWhenTheParametersHaveThem) {
  const json params = {{"wavelets", 30}, {"base", 2.6}, {"mode", "bp"}};
  EXPECT_TRUE(cli::set_holds({}, params));
  EXPECT_TRUE(cli::set_holds({{"wavelets", "30"}}, params));
  EXPECT_TRUE(cli::set_holds({{"wavelets", "30"}, {"base", "2.6"}, {"mode", "bp"}}, params));
  EXPECT_FALSE(cli::set_holds({{"wavelets", "15"}}, params));
  EXPECT_FALSE(cli::set_holds({{"iterations", "5"}}, params));
}

TEST(CompareRun, PaperCellsRunWithTheirOwnParameters) {
  const auto backends = builtin_registry().backends("symstereo");
  if (std::find(backends.begin(), backends.end(), "cpu") == backends.end())
    GTEST_SKIP() << "symstereo/cpu is not built (no FFTW single precision)";
  // SymStereo's Table 2 cells at 384x288 x 7 name N = 15, 20 and 30; each row must have been
  // timed with its own N (the defaults' N = 30 served all three before). --reference-max-mde 1
  // keeps the CPU reference to those three cells (0.77 M evaluations each).
  const fs::path dir = fresh_dir("paper_set");
  const std::string cmd = std::string(STEREO_BIN) +
                          " compare --methods symstereo --backends cpu --no-accuracy --sizes 16x16 --levels 4 "
                          "--repeats 1 --warmup-ms 0 --reference-max-mde 1 --out " +
                          (dir / "out").string() + " >/dev/null 2>" + (dir / "stderr").string();
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << slurp(dir / "stderr");
  const json doc = json::parse(slurp(dir / "out" / "results.json"));
  int timed = 0;
  for (const json& r : doc["rows"]) {
    if (r["setting"] != "paper") continue;
    ASSERT_TRUE(r["set"].contains("wavelets")) << r.dump();
    const std::string n = r["set"]["wavelets"];
    EXPECT_EQ(r["params"]["wavelets"].dump(), n) << r["input"] << " x " << r["levels"];
    if (r["status"] == "ok") {
      ++timed;
      EXPECT_EQ(r["levels"], 7);
      EXPECT_EQ(r["runs"]["total_ms"].size(), 1u);
    }
  }
  EXPECT_EQ(timed, 3);
  EXPECT_NE(slurp(dir / "stderr").find("(paper, wavelets=15)"), std::string::npos);
  fs::remove_all(dir);
}

// ---- repeatability: two runs of one command -----------------------------------------------

namespace {

// fixed_results() with a CPU speed row (40 ms, spread 36 .. 48), as `compare` writes for a
// CPU backend (its "cpu" field names the CPU).
json with_cpu_row(json doc) {
  json r = doc["rows"][1];  // the gl grid row's shape
  r.update({{"backend", "cpu"}, {"device", "CPU: Test CPU"}, {"device_info", {{"name", "CPU: Test CPU"}}},
            {"cpu", "CPU: Test CPU"}, {"cpu_threads", 4}, {"total_ms", 40.0}, {"total_ms_min", 36.0},
            {"total_ms_max", 48.0}});
  doc["rows"].push_back(r);
  return doc;
}

// Sets a speed row's median and keeps fixed_results()' spread shape (0.9 .. 1.2 x the median).
void set_median(json& row, double ms) {
  row["total_ms"] = ms;
  row["total_ms_min"] = 0.9 * ms;
  row["total_ms_max"] = 1.2 * ms;
}

// Run A: fixed_results() plus the CPU row. Its rows: 0 accuracy m/cuda d/s1, 1 speed m/gl
// 64x48 x 16 grid (1 ms, spread 0.3), 2 m/cuda 64x48 x 16 grid (0.25 ms, spread 0.075),
// 3 m/cuda 256x256 x 32 paper (0.5 ms, spread 0.15), 4 m/gl 9000x9000 refused, 5 m/cpu
// 64x48 x 16 grid (40 ms, spread 12).
json run_a() { return with_cpu_row(fixed_results()); }

// A repeat within the noise: identical accuracy; each median moved by less than the larger
// spread plus 2 % of the larger median.
json run_agreeing() {
  json b = run_a();
  b["created"] = "2026-01-02T00:00:00Z";
  set_median(b["rows"][1], 1.25);  // |1.25 - 1| = 0.25 <= max(0.3, 0.375) + 0.025
  set_median(b["rows"][2], 0.26);
  set_median(b["rows"][3], 0.45);
  set_median(b["rows"][5], 50.0);  // 10 <= max(12, 15) + 1
  return b;
}

// A repeat that differs: one accuracy metric, the gl cell beyond its noise in total time but not
// in its algorithm part, the cuda grid cell unsettled (median 0.25, fastest 0.1) but within its
// wide spread in total time while its algorithm part moved beyond its own, the paper cell
// refused, the CPU cell twice as slow, and a cell this run has that run A lacks.
json run_disagreeing() {
  json c = run_a();
  c["created"] = "2026-01-03T00:00:00Z";
  c["rows"][0]["metrics"]["nonocc"] = 4.5;
  set_median(c["rows"][1], 1.6);  // |1.6 - 1| = 0.6 > max(0.3, 0.48) + 0.032
  c["rows"][2]["total_ms_min"] = 0.1;
  c["rows"][2]["algorithm_ms"] = 0.4;  // |0.4 - 0.2| > max(0.075, 0.075) + 0.008: the GPU work moved
  c["rows"][3]["status"] = "refused";
  c["rows"][3]["reason"] = "m/cuda: out of memory, a test";
  set_median(c["rows"][5], 80.0);
  json extra = c["rows"][2];
  extra["levels"] = 32;
  set_median(extra, 0.4);
  c["rows"].push_back(extra);
  return c;
}

std::string repeat_md(const json& here, const json& other) {
  json doc = here;
  doc["repeat_of"] = repeat_summary(other, "runs/other");
  EXPECT_NO_THROW(check_results(doc, "with repeat_of"));
  return report_markdown(doc, {}, {});
}

}  // namespace

TEST(CompareRepeat, TheNoiseRuleAtItsEdges) {
  // tolerance = the larger spread + 2 % of the larger median
  EXPECT_DOUBLE_EQ(repeat_tolerance(10.0, 1.0, 11.0, 0.5), 1.0 + 0.22);
  EXPECT_TRUE(speeds_agree(10.0, 1.0, 11.2, 0.5));   // 1.2 <= 1.224
  EXPECT_FALSE(speeds_agree(10.0, 1.0, 11.3, 0.5));  // 1.3 > 1.226
  EXPECT_TRUE(speeds_agree(1.0, 0.0, 1.019, 0.0));   // no spread: the 2 % floor alone
  EXPECT_FALSE(speeds_agree(1.0, 0.0, 1.021, 0.0));
  EXPECT_TRUE(speeds_agree(11.2, 0.5, 10.0, 1.0));   // symmetric
  EXPECT_TRUE(unsettled(1.055, 0.295));              // the H100's symstereo/cuda 384x288 x 7 cell
  EXPECT_FALSE(unsettled(1.054, 0.971));             // one slow outlier above the median is not
}

TEST(CompareRepeat, AgreeingRunsCountEveryCell) {
  const std::string md = repeat_md(run_a(), run_agreeing());
  EXPECT_NE(md.find("## Repeatability"), std::string::npos);
  EXPECT_NE(md.find("**Accuracy:** 1 of 1 cells identical"), std::string::npos) << md;
  EXPECT_NE(md.find("plus 2 % of the larger median"), std::string::npos);
  EXPECT_NE(md.find("**GPU cells:** 3 of 3 agree (1 of 1 with a median of 1 ms or more)."), std::string::npos) << md;
  EXPECT_NE(md.find("**GPU cells, algorithm time alone** (the same rule on the algorithm part's medians and spreads, "
                    "upload and read-back left out): 3 of 3 agree.\n"),
            std::string::npos) << md;
  EXPECT_NE(md.find("**Unsettled GPU cells:** 0 "), std::string::npos) << md;
  EXPECT_NE(md.find("on a host CPU shared with other work; apart from the GPU cells): 1 of 1 agree."),
            std::string::npos) << md;
  EXPECT_EQ(md.find("Disagreeing"), std::string::npos) << md;
  EXPECT_EQ(md.find("only in"), std::string::npos) << md;
  // Each speed cell's two medians, their ratio and the tolerance, in the GPU and CPU tables.
  EXPECT_NE(md.find("| m/gl 64x48 x 16 grid | 1.000 | 0.300 | 1.250 | 0.375 | 0.800 | 0.400 | yes |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| m/cpu 64x48 x 16 grid | 40.000 | 12.000 | 50.000 | 15.000 | 0.800 | 16.000 | yes |"),
            std::string::npos) << md;
  const Repeatability r = [] {
    json doc = run_a();
    doc["repeat_of"] = repeat_summary(run_agreeing(), "other");
    return compare_repeat(doc);
  }();
  EXPECT_EQ(r.accuracy_compared, 1);
  EXPECT_TRUE(r.accuracy_differ.empty());
  EXPECT_EQ(r.speed.size(), 4u);  // the refused cell is timed in neither run
  EXPECT_FALSE(r.same_run);
  EXPECT_EQ(repeat_headline(r), "repeatability: accuracy 1/1 identical; GPU speed 3/3 agree (algorithm alone 3/3), 0 "
                                "unsettled; host CPU speed 1/1 agree");
}

TEST(CompareRepeat, DisagreeingRunNamesEachCell) {
  const std::string md = repeat_md(run_a(), run_disagreeing());
  EXPECT_NE(md.find("**Accuracy:** 0 of 1 cells identical"), std::string::npos) << md;
  EXPECT_NE(md.find("- m/cuda accuracy d/s1: nonocc 4.25 here, 4.5 there"), std::string::npos) << md;
  EXPECT_NE(md.find("**GPU cells:** 1 of 2 agree"), std::string::npos) << md;
  EXPECT_NE(md.find("- m/gl 64x48 x 16 grid: 1.000 ms against 1.600 ms (x0.62, tolerance 0.512 ms; none)"),
            std::string::npos) << md;
  EXPECT_NE(md.find("left out): 1 of 2 agree. Disagreeing:\n\n- m/cuda 64x48 x 16 grid: algorithm 0.200 ms against "
                    "0.400 ms\n"),
            std::string::npos) << md;
  EXPECT_NE(md.find("**Unsettled GPU cells:** 1 "), std::string::npos) << md;
  EXPECT_NE(md.find("- m/cuda 64x48 x 16 grid: the other run (medians 0.250 and 0.250 ms;"), std::string::npos) << md;
  EXPECT_NE(md.find("apart from the GPU cells): 0 of 1 agree. Disagreeing:"), std::string::npos) << md;
  EXPECT_NE(md.find("- m/cpu 64x48 x 16 grid: 40.000 ms against 80.000 ms (x0.50, tolerance 25.600 ms)"),
            std::string::npos) << md;
  EXPECT_NE(md.find("- m/cuda 256x256 x 32 paper: ok here, refused there"), std::string::npos) << md;
  EXPECT_NE(md.find("**Cells only in the other run:**\n\n- m/cuda 64x48 x 32 grid\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| m/gl 64x48 x 16 grid | 1.000 | 0.300 | 1.600 | 0.480 | 0.625 | 0.512 | **no** |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| m/cuda 64x48 x 16 grid | 0.250 | 0.075 | 0.250 (unsettled) | 0.200 |"), std::string::npos) << md;

  json doc = run_a();
  doc["repeat_of"] = repeat_summary(run_disagreeing(), "other");
  const Repeatability r = compare_repeat(doc);
  EXPECT_EQ(r.accuracy_differ, std::vector<std::string>{"m/cuda accuracy d/s1: nonocc 4.25 here, 4.5 there"});
  EXPECT_EQ(r.speed_status_differ, std::vector<std::string>{"m/cuda 256x256 x 32 paper: ok here, refused there"});
  EXPECT_EQ(r.only_there, std::vector<std::string>{"m/cuda 64x48 x 32 grid"});
  EXPECT_TRUE(r.only_here.empty());
  EXPECT_EQ(repeat_headline(r), "repeatability: accuracy 0/1 identical; GPU speed 1/2 agree (algorithm alone 1/2), 1 "
                                "unsettled; host CPU speed 0/1 agree; 1 timed in one run only; 1 cells in one run only");
}

TEST(CompareRepeat, RepeatedSettingsPairInOrderAndARunWithItselfIsSaid) {
  // A method may list one setting twice (AD-Census: Teddy and Cones at 450x375 x 60): the
  // k-th row of a cell pairs with the k-th, and the second is named as such.
  json a = run_a();
  a["rows"].push_back(a["rows"][3]);
  set_median(a["rows"].back(), 0.8);
  json b = a;
  set_median(b["rows"][3], 0.8);  // the first of the two moved, the second did not
  json doc = a;
  doc["repeat_of"] = repeat_summary(b, "other");
  const Repeatability r = compare_repeat(doc);
  int second = 0;
  for (const auto& c : r.speed)
    if (c.cell == "m/cuda 256x256 x 32 paper (#2)") {
      ++second;
      EXPECT_TRUE(c.agrees);
    } else if (c.cell == "m/cuda 256x256 x 32 paper") {
      EXPECT_FALSE(c.agrees);
    }
  EXPECT_EQ(second, 1);
  doc["repeat_of"] = repeat_summary(a, "same");
  EXPECT_TRUE(compare_repeat(doc).same_run);
  EXPECT_NE(report_markdown(doc, {}, {}).find("this compares a run with itself"), std::string::npos);
  // Without repeat_of there is no section, and asking for the comparison says why.
  EXPECT_EQ(report_markdown(a, {}, {}).find("## Repeatability"), std::string::npos);
  EXPECT_THROW(compare_repeat(a), Error);
  json broken = doc;
  broken["repeat_of"]["rows"][1].erase("total_ms_max");
  EXPECT_THROW(check_results(broken, "broken"), Error);
}

TEST(CompareRepeat, AccuracyComparesBothScoresWhereBothRunsHaveThem) {
  const json a = with_submitted(run_a());
  // Only the score as submitted moved: the papers' protocol is compared, and named.
  json b = a;
  b["created"] = "2026-01-02T00:00:00Z";
  b["rows"][0]["metrics_submitted"]["nonocc"] = 4.125;
  std::string md = repeat_md(a, b);
  EXPECT_NE(md.find("**Accuracy:** 0 of 1 cells identical (the same status and every stored metric equal to the last "
                    "digit, scored as submitted and as float)."),
            std::string::npos) << md;
  EXPECT_NE(md.find("- m/cuda accuracy d/s1: submitted nonocc 4.0 here, 4.125 there\n"), std::string::npos) << md;
  // Only the float score moved.
  json c = a;
  c["created"] = "2026-01-03T00:00:00Z";
  c["rows"][0]["metrics"]["nonocc"] = 4.5;
  md = repeat_md(a, c);
  EXPECT_NE(md.find("- m/cuda accuracy d/s1: float nonocc 4.25 here, 4.5 there\n"), std::string::npos) << md;
  // The kept rows hold both scores, so a later `stereo report DIR` compares both again.
  json doc = a;
  doc["repeat_of"] = repeat_summary(c, "other");
  EXPECT_EQ(doc["repeat_of"]["rows"][0]["metrics_submitted"], a["rows"][0]["metrics_submitted"]);
  Repeatability r = compare_repeat(doc);
  EXPECT_EQ(r.accuracy_submitted, 1);
  EXPECT_EQ(r.accuracy_float_only, 0);
  // Against a run from before the scores as submitted: the float scores alone, said so.
  doc["repeat_of"] = repeat_summary(run_a(), "older");
  r = compare_repeat(doc);
  EXPECT_TRUE(r.accuracy_differ.empty());
  EXPECT_EQ(r.accuracy_submitted, 0);
  EXPECT_EQ(r.accuracy_float_only, 1);
  EXPECT_NE(report_markdown(doc, {}, {}).find("equal to the last digit; float metrics only: a run predates the scores "
                                              "as submitted)."),
            std::string::npos);
}

TEST(CompareRepeat, ReportRepeatOfKeepsTheOtherRunInResultsJson) {
  const fs::path dir = fresh_dir("repeat");
  fs::create_directories(dir / "a");
  fs::create_directories(dir / "c");
  {
    std::ofstream(dir / "a" / "results.json") << run_a().dump(2);
    std::ofstream(dir / "c" / "results.json") << run_disagreeing().dump(2);
  }
  const std::string env = "STEREO_GNUPLOT=stereo-no-such-gnuplot ";
  const std::string bin = env + STEREO_BIN;
  const int status = std::system((bin + " report " + (dir / "a").string() + " --repeat-of " + (dir / "c").string() +
                                  " >" + (dir / "stdout").string() + " 2>" + (dir / "stderr").string())
                                     .c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << slurp(dir / "stderr");
  EXPECT_NE(slurp(dir / "stdout").find("repeatability: accuracy 0/1 identical; GPU speed 1/2 agree (algorithm alone "
                                       "1/2), 1 unsettled; host CPU speed 0/1 agree"),
            std::string::npos)
      << slurp(dir / "stdout");
  const json doc = json::parse(slurp(dir / "a" / "results.json"));
  ASSERT_TRUE(doc.contains("repeat_of"));
  EXPECT_EQ(doc["repeat_of"]["source"], (dir / "c").string());
  EXPECT_EQ(doc["repeat_of"]["rows"].size(), run_disagreeing()["rows"].size());
  EXPECT_EQ(doc["rows"], run_a()["rows"]);  // this run's own rows are untouched
  const std::string md = slurp(dir / "a" / "report.md");
  EXPECT_NE(md.find("- m/gl 64x48 x 16 grid: 1.000 ms against 1.600 ms"), std::string::npos) << md;
  // From results.json alone: the other folder gone, `stereo report DIR` remakes the same file.
  fs::remove_all(dir / "c");
  fs::remove(dir / "a" / "report.md");
  const int again = std::system((bin + " report " + (dir / "a").string() + " >/dev/null 2>&1").c_str());
  ASSERT_TRUE(WIFEXITED(again) && WEXITSTATUS(again) == 0);
  EXPECT_EQ(slurp(dir / "a" / "report.md"), md);
  // A folder is not its own repeat.
  const int self = std::system((bin + " report " + (dir / "a").string() + " --repeat-of " + (dir / "a").string() +
                                " >/dev/null 2>" + (dir / "stderr").string())
                                   .c_str());
  EXPECT_TRUE(WIFEXITED(self) && WEXITSTATUS(self) != 0);
  EXPECT_NE(slurp(dir / "stderr").find("--repeat-of names the folder being reported"), std::string::npos);
  fs::remove_all(dir);
}
