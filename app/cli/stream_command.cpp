// `stereo stream`: every pair of two folders through one matcher's match_sequence, so that
// a backend that overlaps frames (CUDA streams, GL pixel buffer objects) does so here and
// every other method streams frame by frame, with no loop of its own. Reading the next pair
// and writing the previous maps run on their own threads beside the matcher. --devices spreads
// the frames over one matcher per GPU, and under mpirun every rank takes its block of the
// frames (app/parallel); rank 0 prints the summary of them all (app/cli/stream_summary.h).

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

#include "app/cli/stream_summary.h"
#include "app/dataset.h"
#include "app/image_io.h"
#include "app/parallel/device_pool.h"
#include "app/parallel/ranks.h"
#include "app/revision.h"
#include "core/error.h"
#include "core/matcher.h"
#include "core/thread_pool.h"
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
  unsigned readers = 0;  ///< pairs read at once (0: the machine's hardware threads, at most 16)
  bool json_out = false;
  std::string devices;  ///< --devices: "0,1" or "all"; empty = the one device of --device
};

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

/// What every rank prepares before the start line: the frames, its share, its matchers.
struct Setup {
  std::vector<std::string> names;  ///< every frame of the sequence
  std::vector<std::size_t> mine;   ///< this rank's frames (indices into names)
  std::vector<std::unique_ptr<Matcher>> matchers;
  std::vector<int> ordinals;  ///< per matcher, the GPU ordinal chosen for it (-1: none chosen)
  std::vector<FramePair> preloaded;  ///< --preload: this rank's pairs, read before the start line
};

Setup prepare(const StreamArgs& a, const parallel::Ranks& ranks) {
  require(a.format == "png" || a.format == "pfm", "stream: --format must be png or pfm, got '" + a.format + "'");
  require(a.limit >= 0, "stream: --limit must be >= 0, got " + std::to_string(a.limit));
  Setup s;
  s.names = sequence_names(a.left_dir, a.right_dir, "stream");
  if (a.limit > 0 && static_cast<std::size_t>(a.limit) < s.names.size()) s.names.resize(static_cast<std::size_t>(a.limit));
  // Contiguous blocks (app/parallel/ranks.h says why); one process takes every frame.
  s.mine = parallel::block_of(s.names.size(), ranks.rank(), ranks.size());
  if (!a.out_dir.empty()) fs::create_directories(a.out_dir);
  Overrides overrides;
  for (const auto& o : a.sets) overrides.push_back(parse_override(o));
  const auto create = [&] { return create_matcher(a.method, a.backend, overrides); };
  s.matchers = parallel::place_matchers(a.devices, a.backend, "stream", ranks, create, s.ordinals);
  return s;
}

/// Pairs read at once: --readers, else the machine's hardware threads (at most 16).
std::size_t readers_of(const StreamArgs& a) {
  return a.readers > 0 ? a.readers : parallel::default_readers();
}

/// Matches this rank's frames, writes their maps, and returns what it measured.
stream::Share run_share(const StreamArgs& a, Setup& s, const parallel::Ranks& ranks, bool progress) {
  const DisparityRange range{a.min_disparity, a.levels};
  const std::vector<std::string>& names = s.names;
  stream::Share share;
  share.rank = ranks.rank();
  share.host = ranks.host();
  for (std::size_t d = 0; d < s.matchers.size(); ++d)
    share.devices.push_back({s.matchers[d]->device(), s.ordinals[d], s.matchers[d]->device_info()});
  std::vector<FramePair>& preloaded = s.preloaded;

  // The first frame's size, which every later one must have (the matchers check it too; here
  // the message can name the file).
  std::promise<std::pair<int, int>> first_size;
  const std::shared_future<std::pair<int, int>> sequence_size = first_size.get_future().share();
  const parallel::IndexedRead read = [&](std::size_t k) {
    const std::size_t i = s.mine[k];
    if (k == 0) {
      try {
        FramePair pair = a.preload ? std::move(preloaded[k]) : read_frame(a, names, i);
        first_size.set_value({pair.left.width, pair.left.height});
        return pair;
      } catch (...) {
        first_size.set_exception(std::current_exception());
        throw;
      }
    }
    FramePair pair = a.preload ? std::move(preloaded[k]) : read_frame(a, names, i);  // used once: no copy
    const auto [w, h] = sequence_size.get();
    require(pair.left.width == w && pair.left.height == h,
            "stream: frame " + std::to_string(i) + " (" + names[i] + "): size " + std::to_string(pair.left.width) +
                "x" + std::to_string(pair.left.height) + " differs from the sequence's " + std::to_string(w) + "x" +
                std::to_string(h));
    return pair;
  };

  // Maps are written on their own threads, at most two in flight; each to a temporary name and
  // renamed when complete (write_atomically), so an error never leaves a partial map.
  std::deque<std::future<void>> writes;
  const auto finish_oldest_write = [&] {
    std::future<void> f = std::move(writes.front());
    writes.pop_front();
    f.get();
  };
  const Clock::time_point t0 = Clock::now();
  const auto seconds = [t0](Clock::time_point t) { return std::chrono::duration<double>(t - t0).count(); };
  const auto print_progress = [&] {
    const double elapsed = seconds(Clock::now());
    std::cerr << "\rframe " << share.frames.size() << "/" << s.mine.size() << "  "
              << (elapsed > 0 ? static_cast<double>(share.frames.size()) / elapsed : 0.0) << " fps   " << std::flush;
  };
  Clock::time_point last_progress = t0;
  const parallel::RecordSink done = [&](FrameResult&& r, const parallel::FrameRecord& record) {
    const std::size_t i = s.mine[r.index];
    share.frames.push_back({i, record.worker, seconds(record.given), seconds(record.returned), r.timing.upload_ms,
                            r.timing.algorithm_ms, r.timing.readback_ms});
    if (share.clock.empty()) share.clock = r.timing.clock;
    if (share.width == 0) share.width = r.disparity.width, share.height = r.disparity.height;
    if (!a.out_dir.empty()) {
      while (writes.size() >= 2) finish_oldest_write();
      const fs::path target =
          fs::path(a.out_dir) / (fs::path(names[i]).stem().string() + (a.format == "png" ? ".png" : ".pfm"));
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
      print_progress();
    }
  };

  std::vector<Matcher*> matchers;
  for (const auto& m : s.matchers) matchers.push_back(m.get());
  try {
    // Without --preload the next pairs are read (PNG decoding: tens of ms a 1080p pair) on
    // `readers` threads at once while the matchers run, at least one per matcher.
    parallel::spread_sequence(matchers, range, s.mine.size(), read,
                              a.preload ? 0 : std::max<std::size_t>(matchers.size(), readers_of(a)), done);
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
    if (progress) std::cerr << "\n";
    throw;
  }
  share.wall_s = seconds(Clock::now());
  if (progress) {
    print_progress();
    std::cerr << "\n";
  }
  return share;
}

/// "NAME" for one matcher; "N devices (NAME, NAME)" for several, each rank's listed.
std::string devices_text(const std::vector<std::string>& per_rank) {
  std::vector<std::string> all;
  for (const std::string& r : per_rank) {
    const json rank = json::parse(r);
    for (const json& d : rank.at("devices")) all.push_back(d.get<std::string>());
  }
  if (all.size() == 1) return all[0];
  std::string text = std::to_string(all.size()) + " devices" +
                     (per_rank.size() > 1 ? " over " + std::to_string(per_rank.size()) + " MPI ranks" : "") + " (";
  for (std::size_t i = 0; i < all.size(); ++i) text += (i ? ", " : "") + all[i];
  return text + ")";
}

void cmd_stream(const StreamArgs& a) {
  parallel::Ranks ranks("stream");
  Setup s;
  std::exception_ptr error;
  try {
    s = prepare(a, ranks);
  } catch (...) {
    error = std::current_exception();
  }
  json mine = {{"frames", s.names.size()}, {"devices", json::array()}};
  for (const auto& m : s.matchers) mine["devices"].push_back(m->device());
  const std::vector<std::string> per_rank = ranks.agree(error, mine.dump());
  for (const std::string& r : per_rank)
    if (json::parse(r).at("frames").get<std::size_t>() != s.names.size())
      ranks.fail_everywhere("stream: the ranks see different numbers of frames in " + a.left_dir +
                            " (every rank must see the same folders: a shared file system)");
  const DisparityRange range{a.min_disparity, a.levels};
  const Matcher& first = *s.matchers.front();
  if (!a.json_out && ranks.rank() == 0)
    std::cout << a.method << "/" << a.backend << " on " << devices_text(per_rank) << ": " << s.names.size()
              << " frames, disparities " << range.min << ".." << range.max() << "\nparams: " << first.params().dump()
              << "\n";
  const bool progress = !a.json_out && !ranks.spread() && isatty(fileno(stderr)) != 0;
  try {
    if (a.preload) {  // read_frame on readers_of(a) threads; the first error (by frame) is the one reported
      s.preloaded.resize(s.mine.size());
      std::vector<std::exception_ptr> failed(s.mine.size());
      ThreadPool pool(static_cast<unsigned>(readers_of(a)));
      pool.parallel_for(s.mine.size(), [&](std::size_t k) {
        try {
          s.preloaded[k] = read_frame(a, s.names, s.mine[k]);
        } catch (...) {
          failed[k] = std::current_exception();
        }
      });
      for (const std::exception_ptr& e : failed)
        if (e) std::rethrow_exception(e);
    }
  } catch (...) {
    error = std::current_exception();
  }
  ranks.agree(error);
  ranks.barrier();  // the start line: every rank's clock starts here, after its reading
  stream::Share share;
  try {
    share = run_share(a, s, ranks, progress);
  } catch (...) {
    error = std::current_exception();
  }
  ranks.agree(error);
  std::vector<stream::Share> shares;
  for (const std::string& text : ranks.gather(stream::to_json(share).dump()))
    shares.push_back(stream::share_from_json(json::parse(text)));
  ranks.no_more_collectives();
  if (ranks.rank() != 0) return;
  const json j = stream::summarise(shares, range.count,
                                   {{"method", a.method},
                                    {"revision", source_revision()},
                                    {"backend", a.backend},
                                    {"device", first.device()},
                                    {"params", first.params()},
                                    {"min_disparity", range.min},
                                    {"levels", range.count},
                                    {"preload", a.preload},
                                    {"readers", readers_of(a)},
                                    {"written", !a.out_dir.empty()}});
  if (a.json_out)
    std::cout << j.dump(2) << "\n";
  else
    std::cout << stream::summary_text(j, a.out_dir, a.format);
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
  s->add_option("--readers", args->readers,
                "pairs read (decoded) at once, ahead of the matchers or for --preload (default: the machine's "
                "hardware threads, at most 16)")
      ->check(CLI::Range(1u, 256u));
  s->add_flag("--json", args->json_out, "print the summary as JSON");
  s->add_option("--devices", args->devices,
                "spread the frames over these GPUs, one matcher each: 0,1 or all (CUDA: any number; GL: one per "
                "process). Under mpirun each rank spreads its share over its devices");
  s->callback([args] { cmd_stream(*args); });
}

}  // namespace stereo::cli
