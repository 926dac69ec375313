#pragma once
/// \file app/report/results_csv.h
/// results.csv: the rows of results.json with fixed columns, one line each, for spreadsheets
/// and scripts.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace stereo {

/// The CSV columns, in order: one line per row of the results, fixed for every run. "bad_*" are
/// the float metrics ("metrics"), "bad_*_submitted" the map as the format's benchmark received
/// it ("metrics_submitted"; empty in documents from before it).
const std::vector<std::string>& results_csv_columns();

/// results.csv: a header line of results_csv_columns(), then one line per row. Fields with a
/// comma, quote or line break are quoted (RFC 4180); missing values are empty.
std::string results_csv(const nlohmann::json& results);

}  // namespace stereo
