// The lines of report.md's tables (app/report/markdown_table.h).

#include "app/report/markdown_table.h"

namespace stereo::report {
namespace {

std::string md_cell(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '|' ? std::string("\\|") : std::string(1, c);
  return o;
}

}  // namespace

std::string row_line(const std::vector<std::string>& cells) {
  std::string s = "|";
  for (const std::string& c : cells) {
    s += ' ';
    s += md_cell(c);
    s += " |";
  }
  return s + "\n";
}

std::string header_lines(const std::vector<std::string>& cells) {
  std::string s = row_line(cells) + "|";
  for (std::size_t i = 0; i < cells.size(); ++i) s += "---|";
  return s + "\n";
}

}  // namespace stereo::report
