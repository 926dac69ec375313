#pragma once
/// \file app/report/plots.h
/// The report's plots: gnuplot data and scripts (plots/*.dat, plots/*.gp) for Mde/s against
/// levels per grid size and for the Pareto view (error against ns per disparity estimate),
/// rendered to PNG where gnuplot is on the PATH.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace stereo::report {

/// Writes the data and scripts into dir/plots and, where gnuplot (or the program
/// STEREO_GNUPLOT names) runs, the pictures; a line on `log` says why where it makes none.
/// Adds the scripts, then the pictures, to `written`; returns the pictures (relative to `dir`).
std::vector<std::string> write_plots(const nlohmann::json& doc, const std::filesystem::path& dir, std::ostream& log,
                                     std::vector<std::string>& written);

}  // namespace stereo::report
