// stereo_soak: many consecutive runs of every GPU (method, backend) in one process, for
// scripts/gpu_soak.sh. For each available backend other than cpu (or those named with
// --backends) it creates one matcher, runs it --runs times on one synthetic pair, checks
// that every run's map is bit-identical to the first, and prints the device memory in use
// (cudaMemGetInfo: total - free, which counts this process's GL allocations too, being the
// whole device's) and the process's resident host memory after the first run and at the end.
// Then the same matcher streams --frames frames (default: --runs) through match_sequence, the
// path that keeps frames in flight (cuda/frame_stream.h, a method's own slots, GL's buffers),
// cycling over three pairs of different content: every map must equal compute()'s for its
// pair, and device memory in use after the last frame must be where it was after the 4th
// (every slot used once). Exit code 1 when a map differs, a run throws, or device memory in use
// grew by more than --slack-mib between the first run and the last (or the 4th frame and the last);
// 0 otherwise. The registry is iterated, so methods registered later are soaked without a
// change here.
//
//   stereo_soak [--runs N] [--frames F] [--size WxH] [--levels L] [--backends a,b] [--methods m,n]
//               [--slack-mib S]

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#ifdef STEREO_SOAK_CUDA
#include <cuda_runtime.h>
#endif

#include "core/error.h"
#include "core/matcher.h"
#include "tests/test_util.h"
#include "methods/builtin.h"

using namespace stereo;

namespace {

/// Bytes of device memory in use on the current CUDA device, or nothing without CUDA.
std::optional<double> device_mib_in_use() {
#ifdef STEREO_SOAK_CUDA
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  return double(total - free) / (1024.0 * 1024.0);
#else
  return std::nullopt;
#endif
}

double host_rss_mib() {
  std::ifstream in("/proc/self/statm");
  long pages = 0, resident = 0;
  in >> pages >> resident;
  return double(resident) * double(::sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

std::string mib_text(const std::optional<double>& v) {
  if (!v) return "n/a (no CUDA)";
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << *v << " MiB";
  return s.str();
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

bool listed(const std::vector<std::string>& list, const std::string& name) {
  for (const auto& x : list)
    if (x == name) return true;
  return false;
}

bool same_map(const ImageF& a, const ImageF& b) {
  return a.data.size() == b.data.size() && std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)) == 0;
}

/// --frames frames of a sequence on `matcher`, cycling over `pairs` (whose compute() maps are
/// `want`): writes its lines to `out`, returns the failures.
int soak_sequence(Matcher& matcher, const std::string& name, const std::vector<FramePair>& pairs,
                  const std::vector<ImageF>& want, DisparityRange range, int frames, double slack_mib,
                  std::ostream& out) {
  std::size_t given = 0;
  int differing = 0, delivered = 0;
  std::optional<double> after_frame_3;
  std::string form;
  const auto t0 = std::chrono::steady_clock::now();
  matcher.match_sequence(
      range,
      [&](FramePair& pair) {
        if (given == static_cast<std::size_t>(frames)) return false;
        pair = pairs[given % pairs.size()];
        ++given;
        return true;
      },
      [&](FrameResult&& r) {
        ++delivered;
        if (r.index == 3 || frames <= 3) after_frame_3 = device_mib_in_use();
        if (form.empty())
          form = r.disparity.form == DisparityMap::Form::pixels_f32 ? "float"
                 : r.disparity.form == DisparityMap::Form::index_u8 ? "8-bit indices"
                                                                    : "16-bit indices";
        if (!same_map(r.disparity.to_float(), want[r.index % want.size()]) && differing++ == 0)
          out << name << ": sequence frame " << r.index << " differs from compute()\n";
      });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::optional<double> at_end = device_mib_in_use();
  const bool grew = after_frame_3 && at_end && *at_end - *after_frame_3 > slack_mib;
  out << name << ": sequence of " << delivered << " frames (" << form << ", " << delivered / seconds
            << " fps): device memory in use after its 4th frame " << mib_text(after_frame_3) << ", after its last "
            << mib_text(at_end) << "; " << (delivered - differing) << "/" << delivered
            << " maps identical to compute()" << (grew ? "; FAIL: device memory grew" : "")
            << (delivered != frames ? "; FAIL: frames missing" : "") << "\n";
  return (differing > 0) + grew + (delivered != frames);
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 1000, width = 320, height = 240, levels = 32, frames = -1;
  double slack_mib = 1.0;
  std::vector<std::string> backends, methods;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "stereo_soak: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--runs") runs = std::atoi(value().c_str());
    else if (a == "--frames") frames = std::atoi(value().c_str());
    else if (a == "--levels") levels = std::atoi(value().c_str());
    else if (a == "--slack-mib") slack_mib = std::atof(value().c_str());
    else if (a == "--backends") backends = split(value());
    else if (a == "--methods") methods = split(value());
    else if (a == "--size") {
      const std::string v = value();
      if (std::sscanf(v.c_str(), "%dx%d", &width, &height) != 2) {
        std::cerr << "stereo_soak: --size expects WxH, got " << v << "\n";
        return 2;
      }
    } else {
      std::cerr << "usage: stereo_soak [--runs N] [--frames F] [--size WxH] [--levels L] [--backends a,b] "
                   "[--methods m,n] [--slack-mib S]\n";
      return 2;
    }
  }
  if (frames < 0) frames = runs;
  if (runs < 1 || width < 2 || height < 1 || levels < 1) {
    std::cerr << "stereo_soak: --runs, --size and --levels must be positive\n";
    return 2;
  }

  const ImageU8 left = test::random_texture(width, height, 17);
  const ImageU8 right = test::shifted(left, 3);
  // The sequence's pairs: the compute() pair and two of other content.
  std::vector<FramePair> pairs{{left, right}};
  for (unsigned k = 1; k < 3; ++k) {
    ImageU8 l = test::random_texture(width, height, 17 + k);
    ImageU8 r = test::shifted(l, 3 + 2 * static_cast<int>(k));
    pairs.push_back({std::move(l), std::move(r)});
  }
  const DisparityRange range{0, levels};
  int failures = 0, soaked = 0;
  std::cout << "stereo_soak: " << runs << " runs and a sequence of " << frames << " frames per backend, " << width
            << "x" << height << ", " << levels
            << " levels; device memory = cudaMemGetInfo total - free (the whole device)\n";
  for (const BackendEntry& e : builtin_registry().entries()) {
    const bool wanted = backends.empty() ? e.backend != "cpu" : listed(backends, e.backend);
    if (!wanted || (!methods.empty() && !listed(methods, e.method))) continue;
    const std::string name = e.method + "/" + e.backend;
    if (const auto why = e.unavailable ? e.unavailable() : std::nullopt) {
      std::cout << name << ": skipped, " << *why << "\n";
      continue;
    }
    ++soaked;
    try {
      const std::optional<double> before = device_mib_in_use();
      auto matcher = create_matcher(e.method, e.backend, {});
      const ImageF first = matcher->compute(left, right, range).disparity;
      const std::optional<double> after_first = device_mib_in_use();
      const double rss_first = host_rss_mib();
      int differing = 0;
      for (int r = 1; r < runs; ++r) {
        const ImageF d = matcher->compute(left, right, range).disparity;
        if (d.data.size() != first.data.size() ||
            std::memcmp(d.data.data(), first.data.data(), d.data.size() * sizeof(float)) != 0) {
          if (differing++ == 0) std::cout << name << ": run " << r + 1 << " differs from run 1\n";
        }
      }
      const std::optional<double> at_end = device_mib_in_use();
      const double rss_end = host_rss_mib();
      std::ostringstream sequence;
      if (frames > 0) {
        std::vector<ImageF> want{first};
        for (std::size_t k = 1; k < pairs.size(); ++k)
          want.push_back(matcher->compute(pairs[k].left, pairs[k].right, range).disparity);
        failures += soak_sequence(*matcher, name, pairs, want, range, frames, slack_mib, sequence);
      }
      matcher.reset();
      const std::optional<double> released = device_mib_in_use();
      const bool grew = after_first && at_end && *at_end - *after_first > slack_mib;
      std::cout << name << ": device memory in use before " << mib_text(before) << ", after run 1 "
                << mib_text(after_first) << ", after run " << runs << " " << mib_text(at_end)
                << ", after the matcher is destroyed " << mib_text(released) << "; host RSS " << rss_first
                << " -> " << rss_end << " MiB; " << (runs - differing) << "/" << runs << " maps identical to run 1"
                << (grew ? "; FAIL: device memory grew" : "") << "\n"
                << sequence.str();
      failures += (differing > 0) + grew;
    } catch (const std::exception& ex) {
      std::cout << name << ": FAIL: " << ex.what() << "\n";
      ++failures;
    }
  }
  std::cout << "stereo_soak: " << soaked << " backends soaked, " << failures << " failures\n";
  return failures == 0 ? 0 : 1;
}
