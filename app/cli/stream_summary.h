#pragma once
/// \file app/cli/stream_summary.h
/// What `stereo stream` measures of each frame, per rank, and the one summary made of every
/// rank's share (fps, steady state, latency percentiles, per-frame times, per device). A run
/// of one process is a world of one share; under MPI rank 0 gathers every share as JSON and
/// summarises them the same way, so the summary has the same form and the same frame counts.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace stereo::cli::stream {

/// One frame: times in seconds since its rank's start line (every rank starts together).
struct FrameStat {
  std::size_t index = 0;  ///< in the whole sequence
  std::size_t device = 0; ///< into Share::devices
  double given_s = 0.0;     ///< its matcher took the pair
  double returned_s = 0.0;  ///< its matcher handed the map back
  double upload_ms = 0.0, algorithm_ms = 0.0, readback_ms = 0.0;
};

/// One matcher of a rank.
struct DeviceStat {
  std::string name;     ///< Matcher::device()
  int ordinal = -1;     ///< the GPU ordinal chosen for it; -1 where none was (CPU, default GPU)
  nlohmann::json info;  ///< Matcher::device_info()
};

/// What one rank measured of its share of the frames.
struct Share {
  int rank = 0;
  std::string host;
  std::vector<DeviceStat> devices;
  std::vector<FrameStat> frames;
  double wall_s = 0.0;  ///< start line -> its last map written
  int width = 0, height = 0;
  std::string clock;  ///< what measured the per-frame times
};

nlohmann::json to_json(const Share& s);
Share share_from_json(const nlohmann::json& j);

/// The summary of every rank's share (rank order): the keys one process always wrote, plus
/// "ranks" and "devices" (one entry per matcher: rank, host, device, ordinal, frames, fps,
/// steady_fps). `head` holds what the command adds (method, backend, params, ...). Throws
/// stereo::Error when the ranks' frames differ in size.
nlohmann::json summarise(const std::vector<Share>& shares, int levels, nlohmann::json head);

/// The summary as text (the lines `stream` prints without --json); the device lines only
/// when more than one matcher took part.
std::string summary_text(const nlohmann::json& j, const std::string& out_dir, const std::string& format);

/// Nearest-rank percentile q of the values (0 for none).
double percentile(std::vector<double> v, double q);

}  // namespace stereo::cli::stream
