// `stereo stream`: every pair of two folders through one matcher's match_sequence, so that
// a backend that overlaps frames (CUDA streams, GL pixel buffer objects) does so here and
// every other method streams frame by frame, with no loop of its own. Reading the next pair
// and writing the previous maps run on their own threads beside the matcher.

#include "app/cli/stream_command.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <exception>
#include <filesystem>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "app/image_io.h"
#include "core/matcher.h"
#include "app/revision.h"
#include "methods/builtin.h"

namespace stereo::cli {
namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

struct StreamArgs {
  std::string left_dir, right_dir, out_dir;
  std::string method, backend = "cpu";
  std::vector<std::string> sets;
  int levels = 64;
  int min_disparity = 0;
  std::string format = "png";
  int limit = 0;
  bool preload = false;
  bool json_out = false;
};

bool is_image_name(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".png" || ext == ".ppm" || ext == ".pgm" || ext == ".jpg" || ext == ".jpeg" || ext == ".bmp" ||
         ext == ".tga";
}

/// The left folder's images sorted by name; each pairs with the same name in the right
/// folder (KITTI's image_2/000000_10.png and image_3/000000_10.png).
std::vector<std::string> frame_names(const fs::path& left_dir, const fs::path& right_dir) {
  std::error_code ec;
  require(fs::is_directory(left_dir, ec), "stream: left folder " + left_dir.string() + " does not exist");
  require(fs::is_directory(right_dir, ec), "stream: right folder " + right_dir.string() + " does not exist");
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(left_dir))
    if (e.is_regular_file() && is_image_name(e.path())) names.push_back(e.path().filename().string());
  require(!names.empty(), "stream: no images (png, ppm, pgm, jpg, bmp, tga) in " + left_dir.string());
  std::sort(names.begin(), names.end());
  return names;
}

/// Reads frame `i`; every failure names the frame and the file.
FramePair read_frame(const StreamArgs& a, const std::vector<std::string>& names, std::size_t i) {
  const std::string frame = "stream: frame " + std::to_string(i) + " (" + names[i] + ")";
  const fs::path left = fs::path(a.left_dir) / names[i];
  const fs::path right = fs::path(a.right_dir) / names[i];
  std::error_code ec;
  require(fs::is_regular_file(left, ec), frame + ": left image " + left.string() + " is missing");
  require(fs::is_regular_file(right, ec), frame + ": right image " + right.string() + " is missing");
  FramePair pair;
  try {
    pair.left = to_rgb(read_image(left));
    pair.right = to_rgb(read_image(right));
  } catch (const std::exception& e) {
    throw Error(frame + ": " + e.what());
  }
  require(pair.left.width == pair.right.width && pair.left.height == pair.right.height,
          frame + ": left is " + std::to_string(pair.left.width) + "x" + std::to_string(pair.left.height) +
              ", right " + std::to_string(pair.right.width) + "x" + std::to_string(pair.right.height));
  return pair;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  // Nearest rank: the smallest value with at least q of the samples at or below it.
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

void cmd_stream(const StreamArgs& a) {
  require(a.format == "png" || a.format == "pfm", "stream: --format must be png or pfm, got '" + a.format + "'");
  require(a.limit >= 0, "stream: --limit must be >= 0, got " + std::to_string(a.limit));
  std::vector<std::string> names = frame_names(a.left_dir, a.right_dir);
  if (a.limit > 0 && static_cast<std::size_t>(a.limit) < names.size()) names.resize(static_cast<std::size_t>(a.limit));
  if (!a.out_dir.empty()) fs::create_directories(a.out_dir);
  const DisparityRange range{a.min_disparity, a.levels};
  Overrides overrides;
  for (const auto& s : a.sets) overrides.push_back(parse_override(s));
  auto matcher = create_matcher(a.method, a.backend, overrides);
  const bool progress = !a.json_out && isatty(fileno(stderr)) != 0;
  if (!a.json_out)
    std::cout << a.method << "/" << a.backend << " on " << matcher->device() << ": " << names.size() << " frames, "
              << "disparities " << range.min << ".." << range.max() << "\nparams: " << matcher->params().dump() << "\n";

  std::vector<FramePair> preloaded;
  if (a.preload)
    for (std::size_t i = 0; i < names.size(); ++i) preloaded.push_back(read_frame(a, names, i));

  // Bookkeeping per frame: when the matcher got it and when its map came back.
  std::vector<Clock::time_point> given(names.size());
  std::vector<double> latency_ms;
  Clock::time_point first_done, last_done;  // deliveries of the first and the last map
  Timing sums;
  std::size_t next_index = 0;
  int first_width = 0, first_height = 0;
  std::future<FramePair> ahead;  // the pair after the one being matched, read meanwhile
  const auto start_read = [&](std::size_t i) {
    ahead = std::async(std::launch::async, [&a, &names, i] { return read_frame(a, names, i); });
  };
  const Clock::time_point t0 = Clock::now();
  if (!a.preload && !names.empty()) start_read(0);

  const FrameSource next = [&](FramePair& pair) -> bool {
    if (next_index >= names.size()) return false;
    if (a.preload) {
      pair = std::move(preloaded[next_index]);  // used once: no copy
    } else {
      pair = ahead.get();
      if (next_index + 1 < names.size()) start_read(next_index + 1);
    }
    // The matcher checks this too; here the message can name the file.
    if (next_index == 0) {
      first_width = pair.left.width;
      first_height = pair.left.height;
    } else {
      require(pair.left.width == first_width && pair.left.height == first_height,
              "stream: frame " + std::to_string(next_index) + " (" + names[next_index] + "): size " +
                  std::to_string(pair.left.width) + "x" + std::to_string(pair.left.height) +
                  " differs from the sequence's " + std::to_string(first_width) + "x" +
                  std::to_string(first_height));
    }
    given[next_index] = Clock::now();
    ++next_index;
    return true;
  };

  // Maps are written on their own threads, at most two in flight; each to a temporary name and
  // renamed when complete (write_atomically), so an error never leaves a partial map.
  std::deque<std::future<void>> writes;
  const auto finish_oldest_write = [&] {
    std::future<void> f = std::move(writes.front());
    writes.pop_front();
    f.get();
  };
  const auto print_progress = [&](std::size_t done_count) {
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    std::cerr << "\rframe " << done_count << "/" << names.size() << "  "
              << (s > 0 ? static_cast<double>(done_count) / s : 0.0) << " fps   " << std::flush;
  };
  Clock::time_point last_progress = t0;
  const FrameSink done = [&](FrameResult&& r) {
    last_done = Clock::now();
    if (latency_ms.empty()) first_done = last_done;
    latency_ms.push_back(std::chrono::duration<double, std::milli>(last_done - given[r.index]).count());
    sums.upload_ms += r.timing.upload_ms;
    sums.algorithm_ms += r.timing.algorithm_ms;
    sums.readback_ms += r.timing.readback_ms;
    if (sums.clock.empty()) sums.clock = r.timing.clock;
    if (!a.out_dir.empty()) {
      while (writes.size() >= 2) finish_oldest_write();
      const fs::path target =
          fs::path(a.out_dir) / (fs::path(names[r.index]).stem().string() + (a.format == "png" ? ".png" : ".pfm"));
      const bool png = a.format == "png";
      writes.push_back(std::async(std::launch::async, [map = std::move(r.disparity), target, png] {
        const ImageF disparity = map.to_float();
        if (png)
          write_disparity_png16(target, disparity);
        else
          write_pfm(target, disparity);
      }));
    }
    if (progress && Clock::now() - last_progress > std::chrono::milliseconds(250)) {
      last_progress = Clock::now();
      print_progress(latency_ms.size());
    }
  };

  try {
    matcher->match_sequence(range, next, done);
    while (!writes.empty()) finish_oldest_write();
  } catch (...) {
    // The maps of the frames before the failing one are complete: let their writes finish
    // (a write error is secondary to the error that stopped the sequence), then report.
    while (!writes.empty()) {
      try {
        finish_oldest_write();
      } catch (...) {
      }
    }
    if (ahead.valid()) ahead.wait();
    if (progress) std::cerr << "\n";
    throw;
  }
  const double wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (progress) {
    print_progress(latency_ms.size());
    std::cerr << "\n";
  }

  const auto frames = static_cast<double>(latency_ms.size());
  double mean = 0.0;
  for (double v : latency_ms) mean += v;
  mean /= std::max(1.0, frames);
  const double fps = frames / wall_s;
  // W x H x levels per second over the whole stream (host/cli/commands.cpp's Mde/s, in G).
  const double gdes = double(first_width) * double(first_height) * double(range.count) * fps * 1e-9;
  // The steady state: maps per second from the first map's delivery to the last one's, which
  // leaves out what happens once per stream (buffers allocated for the first frame, the
  // pipeline filling), so it is the rate a long sequence approaches.
  const double steady_s = std::chrono::duration<double>(last_done - first_done).count();
  const double steady_fps = frames > 1 && steady_s > 0 ? (frames - 1) / steady_s : 0.0;
  const double steady_gdes = double(first_width) * double(first_height) * double(range.count) * steady_fps * 1e-9;
  // The steady rate against the backend's own algorithm time per frame (what `stereo bench`
  // reports as algorithm): 100 % = the transfers are hidden completely behind the matching.
  const double algorithm_ms = sums.algorithm_ms / std::max(1.0, frames);
  const double steady_ms = steady_fps > 0 ? 1000.0 / steady_fps : 0.0;
  const double algorithm_rate_share = steady_ms > 0 ? algorithm_ms / steady_ms : 0.0;
  json j = {{"method", a.method},
            {"revision", source_revision()},
            {"backend", a.backend},
            {"device", matcher->device()},
            {"params", matcher->params()},
            {"frames", latency_ms.size()},
            {"min_disparity", range.min},
            {"levels", range.count},
            {"preload", a.preload},
            {"written", !a.out_dir.empty()},
            {"wall_s", wall_s},
            {"fps", fps},
            {"width", first_width},
            {"height", first_height},
            {"gdes", gdes},
            {"steady_fps", steady_fps},
            {"steady_gdes", steady_gdes},
            {"steady_ms", steady_ms},
            {"algorithm_rate_share", algorithm_rate_share},
            {"latency_ms", {{"mean", mean}, {"p50", percentile(latency_ms, 0.50)}, {"p99", percentile(latency_ms, 0.99)}}},
            {"per_frame_ms",
             {{"upload", sums.upload_ms / frames},
              {"algorithm", sums.algorithm_ms / frames},
              {"readback", sums.readback_ms / frames},
              {"clock", sums.clock}}}};
  if (a.json_out) {
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << std::fixed;
  std::cout.precision(2);
  std::cout << latency_ms.size() << " frames of " << first_width << "x" << first_height << " in " << wall_s
            << " s: " << fps << " fps, " << gdes << " Gde/s ("
            << (a.preload ? "pairs read before timing" : "reading") << (a.out_dir.empty() ? "" : ", writing")
            << ", upload, matching and read-back included)\n"
            << "steady state (first map back -> last map back): " << steady_fps << " fps, " << steady_gdes
            << " Gde/s, " << steady_ms << " ms a frame = " << 100.0 * algorithm_rate_share
            << " % of the algorithm-only rate (algorithm " << algorithm_ms << " ms a frame)\n"
            << "latency per frame (given to the matcher -> map back): mean " << mean << " ms, p50 "
            << percentile(latency_ms, 0.50) << " ms, p99 " << percentile(latency_ms, 0.99) << " ms\n"
            << "per frame (" << sums.clock << "): upload "
            << sums.upload_ms / frames << " ms, algorithm " << sums.algorithm_ms / frames << " ms, read-back "
            << sums.readback_ms / frames << " ms\n";
  if (!a.out_dir.empty())
    std::cout << "maps: " << a.out_dir << " (" << (a.format == "png" ? "16-bit PNG, disparity x 256, 0 = none" : "PFM")
              << ")\n";
}

}  // namespace

void add_stream_command(CLI::App& app) {
  auto args = std::make_shared<StreamArgs>();
  auto* s = app.add_subcommand("stream", "match an image sequence: LEFT_DIR and RIGHT_DIR paired by file name");
  s->add_option("LEFT_DIR", args->left_dir, "left (reference) images, taken in sorted file-name order")->required();
  s->add_option("RIGHT_DIR", args->right_dir, "right images, each named as its left image")->required();
  s->add_option("-m,--method", args->method, "method name (see `stereo list`)")->required();
  s->add_option("-b,--backend", args->backend, "backend: cpu, gl, glcompute, cuda (see `stereo list`)")
      ->capture_default_str();
  s->add_option("--set", args->sets, "override a parameter: --set key=value (repeatable)");
  s->add_option("-d,--levels", args->levels, "number of disparities searched")->capture_default_str();
  s->add_option("--min-disparity", args->min_disparity, "smallest disparity searched")->capture_default_str();
  s->add_option("--out", args->out_dir,
                "write one map per frame here, named as the left image (without it: a throughput run, nothing "
                "written)");
  s->add_option("--format", args->format, "png (16-bit, disparity x 256, 0 = none: KITTI) or pfm")
      ->capture_default_str();
  s->add_option("--limit", args->limit, "at most this many frames (0 = all)")->capture_default_str();
  s->add_flag("--preload", args->preload, "read every pair before timing, so fps measures the matcher alone");
  s->add_flag("--json", args->json_out, "print the summary as JSON");
  s->callback([args] { cmd_stream(*args); });
}

}  // namespace stereo::cli
