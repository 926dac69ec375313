// `stereo stream`'s summary (app/cli/stream_summary.h): every rank's frames merged in frame
// order, so sums and percentiles come out as one process would compute them.

#include "app/cli/stream_summary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/error.h"

namespace stereo::cli::stream {
using nlohmann::json;

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  // Nearest rank: the smallest value with at least q of the samples at or below it.
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

json to_json(const Share& s) {
  json devices = json::array(), frames = json::array();
  for (const DeviceStat& d : s.devices) devices.push_back({{"name", d.name}, {"ordinal", d.ordinal}, {"info", d.info}});
  // Arrays rather than objects per frame: a long sequence's share stays small on the wire.
  for (const FrameStat& f : s.frames)
    frames.push_back({f.index, f.device, f.given_s, f.returned_s, f.upload_ms, f.algorithm_ms, f.readback_ms});
  return {{"rank", s.rank}, {"host", s.host}, {"devices", devices}, {"frames", frames}, {"wall_s", s.wall_s},
          {"width", s.width}, {"height", s.height}, {"clock", s.clock}};
}

Share share_from_json(const json& j) {
  Share s;
  s.rank = j.at("rank").get<int>();
  s.host = j.at("host").get<std::string>();
  for (const json& d : j.at("devices"))
    s.devices.push_back({d.at("name").get<std::string>(), d.at("ordinal").get<int>(), d.at("info")});
  for (const json& f : j.at("frames"))
    s.frames.push_back({f[0].get<std::size_t>(), f[1].get<std::size_t>(), f[2].get<double>(), f[3].get<double>(),
                        f[4].get<double>(), f[5].get<double>(), f[6].get<double>()});
  s.wall_s = j.at("wall_s").get<double>();
  s.width = j.at("width").get<int>();
  s.height = j.at("height").get<int>();
  s.clock = j.at("clock").get<std::string>();
  return s;
}

namespace {

/// Maps per second from the first map back to the last one: what a long sequence approaches,
/// leaving out what happens once per stream (allocation for the first frame, the pipeline filling).
double steady_rate(std::size_t frames, double first_s, double last_s) {
  const double span = last_s - first_s;
  return frames > 1 && span > 0 ? static_cast<double>(frames - 1) / span : 0.0;
}

}  // namespace

json summarise(const std::vector<Share>& shares, int levels, json head) {
  struct Seen {
    const FrameStat* frame;
    const Share* share;
  };
  std::vector<Seen> all;
  for (const Share& s : shares)
    for (const FrameStat& f : s.frames) all.push_back({&f, &s});
  // Frame order: the sums below add in the order one process delivered them.
  std::sort(all.begin(), all.end(), [](const Seen& x, const Seen& y) { return x.frame->index < y.frame->index; });
  int width = 0, height = 0;
  double wall_s = 0.0;
  std::string clock;
  for (const Share& s : shares) {
    wall_s = std::max(wall_s, s.wall_s);
    if (s.frames.empty()) continue;
    if (width == 0) width = s.width, height = s.height, clock = s.clock;
    require(s.width == width && s.height == height,
            "stream: rank " + std::to_string(s.rank) + "'s frames are " + std::to_string(s.width) + "x" +
                std::to_string(s.height) + ", the sequence's " + std::to_string(width) + "x" + std::to_string(height));
  }
  std::vector<double> latency_ms;
  double upload = 0.0, algorithm = 0.0, readback = 0.0;
  double first_s = std::numeric_limits<double>::infinity(), last_s = 0.0;
  for (const Seen& x : all) {
    latency_ms.push_back((x.frame->returned_s - x.frame->given_s) * 1e3);
    upload += x.frame->upload_ms;
    algorithm += x.frame->algorithm_ms;
    readback += x.frame->readback_ms;
    first_s = std::min(first_s, x.frame->returned_s);
    last_s = std::max(last_s, x.frame->returned_s);
  }
  const auto frames = static_cast<double>(all.size());
  double mean = 0.0;
  for (double v : latency_ms) mean += v;
  mean /= std::max(1.0, frames);
  const double fps = frames / wall_s;
  const double steady_fps = steady_rate(all.size(), first_s, last_s);
  // The steady rate against the matchers' own algorithm time per frame (what `stereo bench`
  // reports as algorithm), over every matcher that took part: 1 = the transfers are hidden
  // completely behind the matching.
  std::size_t matchers = 0;
  for (const Share& s : shares) matchers += s.devices.size();
  const double algorithm_ms = algorithm / std::max(1.0, frames);
  const double steady_ms = steady_fps > 0 ? 1000.0 / steady_fps : 0.0;
  const double algorithm_rate_share =
      steady_ms > 0 ? algorithm_ms / (steady_ms * static_cast<double>(std::max<std::size_t>(1, matchers))) : 0.0;
  // W x H x levels per second, in G.
  const auto gdes = [&](double rate) { return double(width) * double(height) * double(levels) * rate * 1e-9; };
  json devices = json::array();
  for (const Share& s : shares)
    for (std::size_t d = 0; d < s.devices.size(); ++d) {
      std::size_t n = 0;
      double first = std::numeric_limits<double>::infinity(), last = 0.0;
      for (const FrameStat& f : s.frames)
        if (f.device == d) ++n, first = std::min(first, f.returned_s), last = std::max(last, f.returned_s);
      devices.push_back({{"rank", s.rank}, {"host", s.host}, {"device", s.devices[d].name},
                         {"ordinal", s.devices[d].ordinal >= 0 ? json(s.devices[d].ordinal) : json(nullptr)},
                         {"device_info", s.devices[d].info}, {"frames", n},
                         {"fps", s.wall_s > 0 ? static_cast<double>(n) / s.wall_s : 0.0},
                         {"steady_fps", steady_rate(n, first, last)}});
    }
  head.update({{"frames", all.size()},
               {"ranks", shares.size()},
               {"devices", devices},
               {"wall_s", wall_s},
               {"fps", fps},
               {"width", width},
               {"height", height},
               {"gdes", gdes(fps)},
               {"steady_fps", steady_fps},
               {"steady_gdes", gdes(steady_fps)},
               {"steady_ms", steady_ms},
               {"algorithm_rate_share", algorithm_rate_share},
               {"latency_ms", {{"mean", mean}, {"p50", percentile(latency_ms, 0.50)}, {"p99", percentile(latency_ms, 0.99)}}},
               {"per_frame_ms",
                {{"upload", upload / frames}, {"algorithm", algorithm / frames}, {"readback", readback / frames},
                 {"clock", clock}}}});
  return head;
}

std::string summary_text(const json& j, const std::string& out_dir, const std::string& format) {
  std::ostringstream o;
  o << std::fixed;
  o.precision(2);
  const json& lat = j.at("latency_ms");
  const json& per = j.at("per_frame_ms");
  o << j.at("frames").get<std::size_t>() << " frames of " << j.at("width").get<int>() << "x"
    << j.at("height").get<int>() << " in " << j.at("wall_s").get<double>() << " s: " << j.at("fps").get<double>()
    << " fps, " << j.at("gdes").get<double>() << " Gde/s ("
    << (j.at("preload").get<bool>() ? "pairs read before timing" : "reading") << (out_dir.empty() ? "" : ", writing")
    << ", upload, matching and read-back included)\n"
    << "steady state (first map back -> last map back): " << j.at("steady_fps").get<double>() << " fps, "
    << j.at("steady_gdes").get<double>() << " Gde/s, " << j.at("steady_ms").get<double>() << " ms a frame = "
    << 100.0 * j.at("algorithm_rate_share").get<double>() << " % of the algorithm-only rate (algorithm "
    << per.at("algorithm").get<double>() << " ms a frame"
    << (j.at("devices").size() > 1 ? ", over " + std::to_string(j.at("devices").size()) + " matchers" : "") << ")\n"
    << "latency per frame (given to the matcher -> map back): mean " << lat.at("mean").get<double>() << " ms, p50 "
    << lat.at("p50").get<double>() << " ms, p99 " << lat.at("p99").get<double>() << " ms\n"
    << "per frame (" << per.at("clock").get<std::string>() << "): upload " << per.at("upload").get<double>()
    << " ms, algorithm " << per.at("algorithm").get<double>() << " ms, read-back " << per.at("readback").get<double>()
    << " ms\n";
  const json& devices = j.at("devices");
  if (devices.size() > 1) {
    o << "per device (" << j.at("ranks").get<std::size_t>()
      << (j.at("ranks").get<std::size_t>() == 1 ? " process" : " MPI ranks") << ", " << devices.size()
      << " matchers; fps over its rank's wall time):\n";
    for (const json& d : devices)
      o << "  rank " << d.at("rank").get<int>() << " on " << d.at("host").get<std::string>() << ", "
        << (d.at("ordinal").is_null() ? "" : "GPU " + d.at("ordinal").dump() + ", ")
        << d.at("device").get<std::string>() << ": " << d.at("frames").get<std::size_t>() << " frames, "
        << d.at("fps").get<double>() << " fps, steady " << d.at("steady_fps").get<double>() << " fps\n";
  }
  if (!out_dir.empty())
    o << "maps: " << out_dir << " (" << (format == "png" ? "16-bit PNG, disparity x 256, 0 = none" : "PFM") << ")\n";
  return o.str();
}

}  // namespace stereo::cli::stream
