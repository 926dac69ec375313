#pragma once
/// \file app/report.h
/// The comparison report: everything `stereo compare` writes besides results.json, made from
/// results.json alone so that `stereo report DIR` can remake it on another machine (one with
/// gnuplot, say). It names no method or backend: the rows and the papers' figures it sets them
/// beside come from the results document.
///
/// This header is the report's entry: report.md's text, the terminal's summary and writing
/// every file. It brings the document's schema and reading (app/report/results_schema.h),
/// results.csv (app/report/results_csv.h) and the check of two runs of one command
/// (app/report/repeatability.h) along. The report's other parts live in app/report/: the
/// accuracy and speed tables, the Repeatability section, the montages and the plots.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "app/report/repeatability.h"
#include "app/report/results_csv.h"
#include "app/report/results_schema.h"

namespace stereo {

/// report.md's text. `plots` are the plot files made (names relative to the results folder;
/// listed as images), `montages` the map grids with the row order each shows.
std::string report_markdown(const nlohmann::json& results, const std::vector<std::string>& plots,
                            const std::vector<std::pair<std::string, std::vector<std::string>>>& montages);

/// The terminal's closing table: per method and backend, the average bad % (non-occluded) per
/// dataset, as submitted and then float where the document has both scores (float alone, and a
/// line saying so, where it predates the scores as submitted), and the Mde/s of each grid
/// cell's largest input that ran.
std::string summary_table(const nlohmann::json& results);

/// Writes results.csv, the map montages (maps/montage_<dataset>_<scene>.png, composed from
/// the maps the accuracy rows name), the gnuplot data and scripts (plots/*.dat, plots/*.gp),
/// the plots themselves when gnuplot is on the PATH (a line on `log` says so when it is not),
/// and report.md into `dir`. Returns the files written, relative to `dir`.
std::vector<std::string> write_report(const nlohmann::json& results, const std::filesystem::path& dir,
                                      std::ostream& log);

/// Reads and checks dir/results.json, then write_report().
std::vector<std::string> regenerate_report(const std::filesystem::path& dir, std::ostream& log);

}  // namespace stereo
