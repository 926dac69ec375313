// The floor, device memory and energy of a bench row, and the row as printed (app/bench_report.h).

#include "app/bench_report.h"

#include <chrono>
#include <iomanip>
#include <thread>
#include <vector>

#include "app/measure.h"

namespace stereo::cli {
using nlohmann::json;

void add_floor(json& j, const std::optional<MemoryStats>& memory) {
  j["floor"] = nullptr;
  if (!memory || !(memory->copy_gb_s > 0.0)) return;
  const double bytes_per_ms = memory->copy_gb_s * 1e9 * 1e-3;
  double bytes = 0.0, accounted_ms = 0.0;
  int accounted = 0;
  json unaccounted = json::array();
  for (json& s : j["stages"]) {
    if (!s.contains("bytes")) {
      unaccounted.push_back(s["name"]);
      continue;
    }
    const double b = s["bytes"].get<double>(), ms = s["ms"].get<double>();
    s["floor_ms"] = b / bytes_per_ms;
    s["floor_multiple"] = b > 0.0 ? json(ms / (b / bytes_per_ms)) : json(nullptr);
    bytes += b;
    accounted_ms += ms;
    ++accounted;
  }
  if (accounted == 0 || !(bytes > 0.0)) return;
  const double floor_ms = bytes / bytes_per_ms, algorithm = j["algorithm_ms"].get<double>();
  // Every stage accounted: the algorithm time, which also holds what runs between the laps,
  // against the whole floor. Otherwise the floor covers only the accounted stages, so their
  // time is what it is set against, and the share of the algorithm time they are is given.
  const bool whole = unaccounted.empty();
  j["floor"] = {{"bytes", bytes},
                {"ms", floor_ms},
                {"copy_gb_s", memory->copy_gb_s},
                {"multiple", (whole ? algorithm : accounted_ms) / floor_ms},
                {"multiple_of", whole ? "algorithm" : "accounted stages"},
                {"stages_accounted", accounted},
                {"stages", j["stages"].size()},
                {"accounted_ms", accounted_ms},
                {"time_share", algorithm > 0.0 ? accounted_ms / algorithm : 0.0},
                {"unaccounted", unaccounted}};
}

json measure_energy(Matcher& m, const std::function<void()>& frame, const EnergyWindow& w,
                    double disparity_evaluations) {
  using clock = std::chrono::steady_clock;
  const auto none = [](const std::string& why) { return json{{"energy", nullptr}, {"energy_unavailable", why}}; };
  if (!(w.min_ms > 0.0)) return none("not measured");
  EnergyReading r = m.energy_counter();
  if (!r.millijoules) return none(r.unavailable);
  const auto ms_since = [](clock::time_point t) {
    return std::chrono::duration<double, std::milli>(clock::now() - t).count();
  };
  // The window opens at a step of the counter, the GPU idle meanwhile, so its first reading
  // stands for the moment the window starts rather than up to one update period before it.
  double start_mj = *r.millijoules;
  for (const auto wait = clock::now(); ms_since(wait) < w.edge_ms;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    r = m.energy_counter();
    if (!r.millijoules) return none(r.unavailable);
    if (*r.millijoules != start_mj) {
      start_mj = *r.millijoules;
      break;
    }
  }
  const auto start = clock::now();
  int frames = 0;
  while (frames == 0 || ms_since(start) < w.min_ms) {
    frame();
    ++frames;
  }
  // And closes at the next step after min_ms, with frames still running, for the same reason.
  r = m.energy_counter();
  if (!r.millijoules) return none(r.unavailable);
  const double mark_mj = *r.millijoules;
  double end_mj = mark_mj;
  for (const auto wait = clock::now(); end_mj == mark_mj && ms_since(wait) < w.edge_ms;) {
    frame();
    ++frames;
    r = m.energy_counter();
    if (!r.millijoules) return none(r.unavailable);
    end_mj = *r.millijoules;
  }
  const double window_ms = ms_since(start), mj = end_mj - start_mj;
  if (!(mj > 0.0))
    return none("the energy counter did not advance over " + fmt(window_ms, 0) + " ms (" + std::to_string(frames) +
                " frames)");
  const double mj_per_frame = mj / frames;
  return {{"energy",
           {{"mj_per_frame", mj_per_frame},
            {"gde_per_j", disparity_evaluations / (mj_per_frame * 1e-3) / 1e9},
            {"watts", mj / window_ms},  // mJ / ms
            {"joules", mj * 1e-3},
            {"frames", frames},
            {"window_ms", window_ms}}},
          {"energy_unavailable", nullptr}};
}

std::string bench_legend(const EnergyWindow& w) {
  const std::string energy =
      w.min_ms > 0.0
          ? "energy = the GPU board's NVML energy counter over >= " + fmt(w.min_ms, 0) +
                " ms of back-to-back frames (upload + algorithm + read-back) after the timed runs: the whole board "
                "during the window, idle parts included; mJ/frame, Gde/J = W x H x disparities / (J a frame) / 1e9, "
                "W = average power\n"
          : "energy = not read (--energy-ms 0)\n";
  return "floor = the bytes a stage's design must move through device memory (inputs read once, outputs "
         "written once; read + written) at the device-to-device copy rate measured in this run; x = the "
         "stage's time / its floor; the whole method's floor is the sum over the accounted stages\n"
         "dev MiB = device memory the matcher holds at this size (its workspace: buffers, FFT plans and "
         "work areas), measured as the drop in the GPU's free memory (cudaMemGetInfo) when it was allocated; "
         "declared = its buffers' requested sizes; '-' where not known\n" +
         energy;
}

void print_bench_columns(std::ostream& out) {
  out << std::left << std::setw(11) << "backend" << std::right << std::setw(11) << "size" << std::setw(11) << "disp"
      << std::setw(11) << "alg ms" << std::setw(10) << "upload" << std::setw(10) << "readback" << std::setw(10)
      << "total ms" << std::setw(9) << "fps" << std::setw(11) << "Mde/s" << std::setw(12) << "alg Mde/s"
      << std::setw(13) << "paper Mde/s" << std::setw(12) << "ours/paper" << std::setw(10) << "dev MiB"
      << std::setw(10) << "mJ/frame" << std::setw(8) << "Gde/J" << "   fetch Gtex/s (ceiling, share)\n";
}

namespace {

std::string bytes_text(double bytes) {
  return bytes >= 1e9 ? fmt(bytes / 1e9, 1) + " GB" : fmt(bytes / 1e6, 1) + " MB";
}
std::string mib(double bytes) { return fmt(bytes / double(1 << 20), 1); }

void print_stages(std::ostream& out, const json& j) {
  const bool floor = j["floor"].is_object();
  for (const json& s : j["stages"]) {
    out << "    " << std::left << std::setw(28) << s["name"].get<std::string>() << std::right << std::setw(10)
        << fmt(s["ms"].get<double>(), 3) << " ms";
    if (s.contains("gb_s"))
      out << std::setw(10) << fmt(s["bytes"].get<double>() / 1e6, 1) << " MB" << std::setw(9)
          << fmt(s["gb_s"].get<double>(), 0) << " GB/s" << std::setw(6) << fmt(100.0 * s["copy_share"].get<double>(), 0)
          << " % of the " << fmt(j["copy_gb_s"].get<double>(), 0) << " GB/s copy";
    if (s.contains("floor_ms"))
      out << ", floor " << fmt(s["floor_ms"].get<double>(), 3) << " ms, "
          << (s["floor_multiple"].is_number() ? fmt(s["floor_multiple"].get<double>(), 1) + "x" : std::string("-"));
    else if (floor)
      out << "   no accounted bytes";
    out << "\n";
  }
}

void print_floor(std::ostream& out, const json& j) {
  const json& f = j["floor"];
  const std::string floor_text = bytes_text(f["bytes"].get<double>()) + ", floor " + fmt(f["ms"].get<double>(), 3) +
                                 " ms at " + fmt(f["copy_gb_s"].get<double>(), 0) + " GB/s copy; ";
  if (f["multiple_of"] == "algorithm") {
    out << "    whole method: " << floor_text << "algorithm " << fmt(j["algorithm_ms"].get<double>(), 2) << " ms = "
        << fmt(f["multiple"].get<double>(), 1) << "x floor\n";
    return;
  }
  std::string names;
  for (const json& n : f["unaccounted"]) names += (names.empty() ? "" : ", ") + n.get<std::string>();
  out << "    accounted stages only (" << f["stages_accounted"].get<int>() << " of " << f["stages"].get<int>() << ", "
      << fmt(100.0 * f["time_share"].get<double>(), 0) << " % of the algorithm time): " << floor_text << "their "
      << fmt(f["accounted_ms"].get<double>(), 2) << " ms = " << fmt(f["multiple"].get<double>(), 1)
      << "x floor; not accounted: " << names << "\n";
}

}  // namespace

void print_bench_row(std::ostream& out, const json& j) {
  const DisparityRange range{j["min_disparity"].get<int>(), j["levels"].get<int>()};
  const json& paper = j["paper"];
  const auto paper_num = [&](const char* key, int precision) {
    return paper.is_object() && paper[key].is_number() ? fmt(paper[key].get<double>(), precision) : std::string("-");
  };
  const json& memory = j["device_memory_bytes"];
  const json& energy = j["energy"];
  out << std::left << std::setw(11) << j["backend"].get<std::string>() << std::right << std::setw(11)
      << (std::to_string(j["width"].get<int>()) + "x" + std::to_string(j["height"].get<int>())) << std::setw(11)
      << range_text(range) << std::setw(11) << fmt(j["algorithm_ms"].get<double>(), 3) << std::setw(10)
      << fmt(j["upload_ms"].get<double>(), 3) << std::setw(10) << fmt(j["readback_ms"].get<double>(), 3)
      << std::setw(10) << fmt(j["total_ms"].get<double>(), 3) << std::setw(9) << fmt(j["fps"].get<double>(), 1)
      << std::setw(11) << fmt(j["mdes"].get<double>(), 0) << std::setw(12) << fmt(j["mdes_algorithm"].get<double>(), 0)
      << std::setw(13) << paper_num("mdes", 0) << std::setw(12) << paper_num("ratio_mdes", 2) << std::setw(10)
      << (memory.is_number() ? mib(memory.get<double>()) : std::string("-")) << std::setw(10)
      << (energy.is_object() ? fmt(energy["mj_per_frame"].get<double>(), 2) : std::string("-")) << std::setw(8)
      << (energy.is_object() ? fmt(energy["gde_per_j"].get<double>(), 2) : std::string("-"));
  if (j.contains("fetch_gtexel_s"))
    out << "   " << fmt(j["fetch_gtexel_s"].get<double>(), 1) << " (" << fmt(j["ceiling_gtexel_s"].get<double>(), 1)
        << ", " << fmt(100.0 * j["fetch_share"].get<double>(), 0) << "%)";
  if (paper.is_object() && !paper["mdes"].is_number() && !paper["note"].get<std::string>().empty())
    out << "   (" << paper["note"].get<std::string>() << ")";
  if (j.contains("set"))
    for (const auto& [key, value] : j["set"].items()) out << "   " << key << "=" << value.get<std::string>();
  if (paper.is_object() && paper["ms"].is_number() && j["total_ms"].get<double>() > 0) {
    const double speedup = paper["ms"].get<double>() / j["total_ms"].get<double>();
    out << "   paper " << fmt(paper["ms"].get<double>(), 2) << " ms (paper / ours = "
        << fmt(speedup, speedup < 10.0 ? 2 : 0) << ")";
  }
  out << "\n";
  // One indented line per named stage; GB/s, the share of the copy rate and the floor where
  // accounted; then the whole method's floor.
  if (j["stages"].size() > 1 || j["floor"].is_object()) print_stages(out, j);
  if (j["floor"].is_object()) print_floor(out, j);
  out << "    device memory: "
      << (memory.is_number() ? mib(memory.get<double>()) + " MiB (declared " +
                                   mib(j["device_memory_declared_bytes"].get<double>()) + " MiB)"
                             : std::string("not known"))
      << "; energy: ";
  if (energy.is_object())
    out << fmt(energy["mj_per_frame"].get<double>(), 2) << " mJ a frame, " << fmt(energy["gde_per_j"].get<double>(), 2)
        << " Gde/J, " << fmt(energy["watts"].get<double>(), 1) << " W average over "
        << fmt(energy["window_ms"].get<double>() * 1e-3, 2) << " s (" << energy["frames"].get<int>() << " frames)\n";
  else
    out << j["energy_unavailable"].get<std::string>() << "\n";
  out.flush();
}

}  // namespace stereo::cli
