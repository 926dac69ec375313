// stereo_soak: many consecutive runs of every GPU (method, backend) in one process, for
// scripts/gpu_soak.sh. For each available backend other than cpu (or those named with
// --backends) it creates one matcher, runs it --runs times on one synthetic pair, checks
// that every run's map is bit-identical to the first, and prints the device memory in use
// (cudaMemGetInfo: total - free, which counts this process's GL allocations too, being the
// whole device's) and the process's resident host memory after the first run and at the end.
// Exit code 1 when a map differs, a run throws, or device memory in use grew by more than
// --slack-mib between the first run and the last; 0 otherwise. The registry is iterated, so
// methods registered later are soaked without a change here.
//
//   stereo_soak [--runs N] [--size WxH] [--levels L] [--backends a,b] [--methods m,n] [--slack-mib S]

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

}  // namespace

int main(int argc, char** argv) {
  int runs = 1000, width = 320, height = 240, levels = 32;
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
      std::cerr << "usage: stereo_soak [--runs N] [--size WxH] [--levels L] [--backends a,b] [--methods m,n] "
                   "[--slack-mib S]\n";
      return 2;
    }
  }
  if (runs < 1 || width < 2 || height < 1 || levels < 1) {
    std::cerr << "stereo_soak: --runs, --size and --levels must be positive\n";
    return 2;
  }

  const ImageU8 left = test::random_texture(width, height, 17);
  const ImageU8 right = test::shifted(left, 3);
  const DisparityRange range{0, levels};
  int failures = 0, soaked = 0;
  std::cout << "stereo_soak: " << runs << " runs per backend, " << width << "x" << height << ", " << levels
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
      matcher.reset();
      const std::optional<double> released = device_mib_in_use();
      const bool grew = after_first && at_end && *at_end - *after_first > slack_mib;
      std::cout << name << ": device memory in use before " << mib_text(before) << ", after run 1 "
                << mib_text(after_first) << ", after run " << runs << " " << mib_text(at_end)
                << ", after the matcher is destroyed " << mib_text(released) << "; host RSS " << rss_first
                << " -> " << rss_end << " MiB; " << (runs - differing) << "/" << runs << " maps identical to run 1"
                << (grew ? "; FAIL: device memory grew" : "") << "\n";
      failures += (differing > 0) + grew;
    } catch (const std::exception& ex) {
      std::cout << name << ": FAIL: " << ex.what() << "\n";
      ++failures;
    }
  }
  std::cout << "stereo_soak: " << soaked << " backends soaked, " << failures << " failures\n";
  return failures == 0 ? 0 : 1;
}
