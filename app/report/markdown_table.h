#pragma once
/// \file app/report/markdown_table.h
/// The lines of report.md's tables: a row of cells and a header row with its rule, cells with
/// their pipes escaped.

#include <string>
#include <vector>

namespace stereo::report {

/// "| a | b |\n", each '|' inside a cell escaped.
std::string row_line(const std::vector<std::string>& cells);

/// row_line(cells) and the "|---|---|" line under it.
std::string header_lines(const std::vector<std::string>& cells);

}  // namespace stereo::report
