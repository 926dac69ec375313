// The report's plots (app/report/plots.h).

#include "app/report/plots.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <utility>

#include "app/measure.h"
#include "app/report/document.h"

namespace stereo::report {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// gnuplot titles: no spaces (word() splits on them) and no underscores (enhanced text).
std::string plot_title(std::string s) {
  std::replace(s.begin(), s.end(), ' ', '-');
  std::replace(s.begin(), s.end(), '_', '-');
  return s;
}

struct PlotScript {
  std::string name;    ///< stem of the .gp, .dat and .png
  std::string script;  ///< gnuplot commands
};

/// Mde/s against levels, one line per method/backend, one plot per grid size.
std::vector<PlotScript> throughput_plots(const json& doc, const fs::path& plots) {
  std::vector<PlotScript> out;
  std::vector<std::string> sizes;
  for (const json* r : rows_where(doc, "speed", ""))
    if (ok(*r) && text(*r, "setting") == "grid" &&
        std::find(sizes.begin(), sizes.end(), size_of(*r)) == sizes.end())
      sizes.push_back(size_of(*r));
  for (const std::string& size : sizes) {
    std::ostringstream dat;
    std::vector<std::string> titles;
    for (const std::string& lane : lanes(doc)) {
      std::vector<std::pair<int, double>> pts;
      for (const json* r : rows_where(doc, "speed", ""))
        if (ok(*r) && lane_of(*r) == lane && text(*r, "setting") == "grid" && size_of(*r) == size)
          pts.push_back({(*r)["levels"].get<int>(), num(*r, "mdes").value_or(0.0)});
      if (pts.empty()) continue;
      std::sort(pts.begin(), pts.end());
      dat << "# " << lane << "\n";
      for (const auto& [l, v] : pts) dat << l << " " << v << "\n";
      dat << "\n\n";
      titles.push_back(plot_title(lane));
    }
    if (titles.empty()) continue;
    const std::string name = "mdes_vs_levels_" + size;
    write_text(plots / (name + ".dat"), dat.str());
    std::string words;
    for (const std::string& t : titles) words += (words.empty() ? "" : " ") + t;
    std::ostringstream gp;
    gp << "set terminal pngcairo size 900,600 noenhanced\nset output '" << name << ".png'\n"
       << "set title 'Throughput at " << size << " (median, upload + algorithm + read-back)'\n"
       << "set xlabel 'disparity levels'\nset ylabel 'Mde/s'\nset logscale x 2\nset logscale y 10\n"
       << "set key outside right\nset grid\ntitles = '" << words << "'\n"
       << "plot for [i=0:" << titles.size() - 1 << "] '" << name
       << ".dat' index i using 1:2 with linespoints lw 2 title word(titles, i+1)\n";
    out.push_back({name, gp.str()});
  }
  return out;
}

/// Error against nanoseconds per disparity estimate on a log2 axis (the Pareto view of Yu et
/// al.'s Fig. 15): one point per method/backend and dataset, the mean bad % over the dataset's
/// scenes (non-occluded mask) against the median ns/de of the same accuracy runs.
std::optional<PlotScript> pareto_plot(const json& doc, const fs::path& plots) {
  const auto rows = rows_where(doc, "accuracy", "");
  std::ostringstream dat;
  std::vector<std::string> titles;
  for (const std::string& d : datasets_of(rows)) {
    std::ostringstream block;
    int points = 0;
    for (const std::string& lane : lanes(doc)) {
      const auto bad = mean_metric(rows, lane, d, FLOAT_METRICS, "nonocc");
      std::vector<double> ns;
      for (const json* r : rows)
        if (ok(*r) && lane_of(*r) == lane && text(*r, "dataset") == d)
          if (const auto v = num(*r, "ns_per_de")) ns.push_back(*v);
      if (!bad || ns.empty()) continue;
      block << cli::median(ns) << " " << *bad << " " << plot_title(lane) << "\n";
      ++points;
    }
    if (!points) continue;
    dat << "# " << d << ": ns/de, bad nonocc %, method/backend\n" << block.str() << "\n\n";
    titles.push_back(plot_title(d));
  }
  if (titles.empty()) return std::nullopt;
  const std::string name = "pareto";
  write_text(plots / (name + ".dat"), dat.str());
  std::string words;
  for (const std::string& t : titles) words += (words.empty() ? "" : " ") + t;
  std::ostringstream gp;
  gp << "set terminal pngcairo size 1000,700 noenhanced\nset output '" << name << ".png'\n"
     << "set title 'Error against time per disparity estimate (accuracy runs; lower left is better)'\n"
     << "set xlabel 'ns per disparity estimate (log2)'\nset ylabel 'bad pixels, non-occluded (%)'\n"
     << "set logscale x 2\nset grid\nset key outside right\ntitles = '" << words << "'\n"
     << "plot for [i=0:" << titles.size() - 1 << "] '" << name
     << ".dat' index i using 1:2 with points pt 7 ps 1.5 title word(titles, i+1), \\\n"
     << "     for [i=0:" << titles.size() - 1 << "] '" << name
     << ".dat' index i using 1:2:3 with labels offset 1,0.6 font ',8' notitle\n";
  return PlotScript{name, gp.str()};
}

}  // namespace

std::vector<std::string> write_plots(const json& doc, const fs::path& dir, std::ostream& log,
                                     std::vector<std::string>& written) {
  const fs::path plots = dir / "plots";
  fs::create_directories(plots);
  std::vector<PlotScript> scripts = throughput_plots(doc, plots);
  if (auto p = pareto_plot(doc, plots)) scripts.push_back(*p);
  for (const PlotScript& p : scripts) {
    write_text(plots / (p.name + ".gp"), p.script);
    written.push_back("plots/" + p.name + ".gp");
  }
  // gnuplot is optional (the GPU machine has none): the scripts stay, and `stereo report DIR`
  // elsewhere renders them. STEREO_GNUPLOT names another program (or a missing one, in tests).
  const char* env = std::getenv("STEREO_GNUPLOT");
  const std::string gnuplot = env && *env ? env : "gnuplot";
  const bool have = !scripts.empty() &&
                    std::system(("command -v '" + gnuplot + "' >/dev/null 2>&1").c_str()) == 0;
  std::vector<std::string> pictures;
  if (scripts.empty()) {
    log << "report: nothing to plot\n";
  } else if (!have) {
    log << "report: plots skipped: " << gnuplot << " not found (Debian: apt-get install gnuplot-nox); the scripts "
        << "are in " << plots.string() << ", and `stereo report " << dir.string()
        << "` on a machine with gnuplot makes the pictures\n";
  } else {
    for (const PlotScript& p : scripts) {
      const std::string cmd = "cd '" + plots.string() + "' && '" + gnuplot + "' '" + p.name + ".gp' 2>'" + p.name + ".log'";
      if (std::system(cmd.c_str()) == 0 && fs::exists(plots / (p.name + ".png"))) {
        pictures.push_back("plots/" + p.name + ".png");
        std::error_code ec;
        fs::remove(plots / (p.name + ".log"), ec);
      } else {
        log << "report: gnuplot failed on " << (plots / (p.name + ".gp")).string() << " (see " << p.name << ".log)\n";
      }
    }
  }
  written.insert(written.end(), pictures.begin(), pictures.end());
  return pictures;
}

}  // namespace stereo::report
