// `stereo eval`'s table (app/cli/eval_table.h).

#include "app/cli/eval_table.h"

#include <iomanip>
#include <iostream>
#include <sstream>

#include "app/measure.h"
#include "app/protocol.h"
#include "core/disparity_range.h"

namespace stereo::cli::eval {
using nlohmann::json;

std::optional<double> opt(const json& v) { return v.is_null() ? std::nullopt : std::optional<double>(v.get<double>()); }

namespace {

std::string paper_cells(const std::optional<double>& nonocc, const std::optional<double>& all,
                        const std::optional<double>& disc) {
  std::ostringstream s;
  s << "  |        " << std::setw(W_BAD - 2) << fmt(nonocc) << std::setw(W_BAD) << fmt(all) << std::setw(W_BAD)
    << fmt(disc);
  return s.str();
}

std::string triple(const std::optional<double>& nonocc, const std::optional<double>& all,
                   const std::optional<double>& disc) {
  std::ostringstream s;
  s << std::setw(W_BAD) << fmt(nonocc) << std::setw(W_BAD) << fmt(all) << std::setw(W_BAD) << fmt(disc);
  return s.str();
}

}  // namespace

void print_eval_header() {
  std::cout << std::left << std::setw(W_SCENE) << "scene" << std::right << std::setw(W_SIZE) << "size"
            << std::setw(W_RANGE) << "disparities" << std::setw(W_BAD) << "nonocc" << std::setw(W_BAD) << "all"
            << std::setw(W_BAD) << "disc" << std::setw(W_BAD) << "avg err" << std::setw(W_BAD) << "density"
            << std::setw(W_TIME) << "time ms" << std::setw(W_MDES) << "Mde/s"
            << "  | paper: " << std::setw(W_BAD - 2) << "nonocc" << std::setw(W_BAD) << "all" << std::setw(W_BAD)
            << "disc" << "\n";
}

/// The paper's side of `c` as a ColumnSums of its own (for mean_of_columns over the paper's figures).
ColumnSums paper_sums(const ColumnSums& c) {
  ColumnSums p = c;
  p.ours_vs = c.paper;
  return p;
}

/// The papers' usual ranking figure: the mean of nonocc, all and disc over the scenes (Middlebury
/// v2's "average of 12" over four scenes), where every scene has all three.
std::optional<double> mean_of_columns(const ColumnSums& nonocc, const ColumnSums& all, const ColumnSums& disc,
                                      bool vs_paper) {
  const auto get = [vs_paper](const ColumnSums& c) { return vs_paper ? c.average_vs() : c.average(); };
  const auto n = [vs_paper](const ColumnSums& c) { return vs_paper ? c.n_vs : c.n; };
  if (!get(nonocc) || !get(all) || !get(disc) || n(nonocc) != n(all) || n(all) != n(disc)) return std::nullopt;
  return (*get(nonocc) + *get(all) + *get(disc)) / 3.0;
}

void Totals::add(const json& row, ScoreProtocol protocol, ScoreProtocol other, ScoreProtocol paper_protocol) {
  const json& m = row[to_string(protocol)];
  const json& paper = row["paper"];
  if (!m.is_null()) {
    const json& m_other = row[to_string(other)];
    const json& m_as_paper = row[to_string(paper_protocol)];
    const auto theirs = [&](const char* k) { return paper.is_null() ? std::nullopt : opt(paper[k]); };
    nonocc.add(opt(m["nonocc"]), opt(m_as_paper["nonocc"]), theirs("nonocc"));
    all.add(opt(m["all"]), opt(m_as_paper["all"]), theirs("all"));
    disc.add(opt(m["disc"]), opt(m_as_paper["disc"]), theirs("disc"));
    other_sums.nonocc.add(opt(m_other["nonocc"]), std::nullopt, std::nullopt);
    other_sums.all.add(opt(m_other["all"]), std::nullopt, std::nullopt);
    other_sums.disc.add(opt(m_other["disc"]), std::nullopt, std::nullopt);
    std::ostringstream line;
    line << std::left << std::setw(W_LEAD) << row["name"].get<std::string>() << std::right
         << triple(opt(m_other["nonocc"]), opt(m_other["all"]), opt(m_other["disc"]));
    other_lines.push_back(line.str());
  }
  if (!paper.is_null()) paper_scenes.push_back(row["name"].get<std::string>());
  if (row.contains("also")) {
    std::ostringstream line;
    line << std::left << std::setw(W_SCENE) << row["name"].get<std::string>() << std::right;
    for (std::size_t j = 0; j < row["also"].size(); ++j) {
      const json& mt = row["also"][j];
      also_nonocc[j].add(opt(mt["nonocc"]), std::nullopt, std::nullopt);
      also_all[j].add(opt(mt["all"]), std::nullopt, std::nullopt);
      line << std::setw(W_BAD + 2) << fmt(opt(mt["nonocc"])) << std::setw(W_BAD) << fmt(opt(mt["all"]));
    }
    also_lines.push_back(line.str());
  }
}

/// A row of the table (and the line of its pictures); with `on`, where it ran.
void print_row(const json& row, bool on) {
  const json& m = row["density"];
  const json& paper = row["paper"];
  const auto cell = [&](const char* k) { return m.is_null() ? std::string("-") : fmt(opt(row[k])); };
  std::cout << std::left << std::setw(W_SCENE) << row["name"].get<std::string>() << std::right << std::setw(W_SIZE)
            << (std::to_string(row["width"].get<int>()) + "x" + std::to_string(row["height"].get<int>()))
            << std::setw(W_RANGE)
            << range_text(DisparityRange{row["min_disparity"].get<int>(), row["levels"].get<int>()})
            << std::setw(W_BAD) << cell("nonocc") << std::setw(W_BAD) << cell("all") << std::setw(W_BAD)
            << cell("disc") << std::setw(W_BAD) << cell("avg_error") << std::setw(W_BAD)
            << (m.is_null() ? "-" : fmt(m.get<double>(), 1)) << std::setw(W_TIME) << fmt(row["time_ms"].get<double>())
            << std::setw(W_MDES) << fmt(row["mdes"].get<double>(), 1)
            << (paper.is_null() ? paper_cells(std::nullopt, std::nullopt, std::nullopt)
                                : paper_cells(opt(paper["nonocc"]), opt(paper["all"]), opt(paper["disc"])));
  if (on) {
    const json& d = row["ran_on"];
    std::cout << "  rank " << d["rank"].get<int>()
              << (d["ordinal"].is_null() ? std::string() : ", GPU " + d["ordinal"].dump());
  }
  std::cout << "\n";
  if (row.contains("outputs"))
    std::cout << "    -> " << row["outputs"]["pfm"].get<std::string>() << ", "
              << row["outputs"]["color"].get<std::string>()
              << (row["outputs"].contains("error") ? ", " + row["outputs"]["error"].get<std::string>() : "") << "\n";
}

void print_totals(const Totals& totals, ScoreProtocol protocol, ScoreProtocol other, ScoreProtocol paper_protocol,
                  bool any_quantized, const std::vector<double>& also_thresholds) {
  const ColumnSums& sum_nonocc = totals.nonocc;
  const ColumnSums& sum_all = totals.all;
  const ColumnSums& sum_disc = totals.disc;
  const TripleSums& other_sums = totals.other_sums;
  const std::vector<std::string>& paper_scenes = totals.paper_scenes;
  const std::vector<ColumnSums>& also_nonocc = totals.also_nonocc;
  const std::vector<ColumnSums>& also_all = totals.also_all;
  if (sum_nonocc.n + sum_all.n + sum_disc.n > 0) {
    std::cout << std::left << std::setw(W_LEAD) << "average" << std::right
              << triple(sum_nonocc.average(), sum_all.average(), sum_disc.average());
    if (const auto all3 = mean_of_columns(sum_nonocc, sum_all, sum_disc, false))
      std::cout << "   (mean of the " << 3 * sum_nonocc.n << " figures: " << fmt(*all3) << ")";
    std::cout << "\n";
  }
  if (!paper_scenes.empty())
    std::cout << std::left << std::setw(W_LEAD)
              << ("vs paper (" + std::to_string(paper_scenes.size()) + (paper_scenes.size() == 1 ? " scene)" : " scenes)"))
              << std::right << triple(sum_nonocc.average_vs(), sum_all.average_vs(), sum_disc.average_vs())
              << std::string(2 * W_BAD + W_TIME + W_MDES, ' ')
              << paper_cells(sum_nonocc.paper_average(), sum_all.paper_average(), sum_disc.paper_average())
              << "\n";
  if (!paper_scenes.empty()) {
    const auto ours = mean_of_columns(sum_nonocc, sum_all, sum_disc, true);
    const auto theirs = mean_of_columns(paper_sums(sum_nonocc), paper_sums(sum_all), paper_sums(sum_disc), true);
    if (ours && theirs)
      std::cout << "mean of the " << 3 * sum_nonocc.n_vs << " figures vs paper: ours " << fmt(*ours) << ", paper "
                << fmt(*theirs) << "\n";
    std::cout << "(vs paper: ours scored " << to_string(paper_protocol)
              << " as the paper was, and the paper's, each over the scenes where both give that column)\n";
  }
  if (any_quantized && !totals.other_lines.empty()) {
    std::cout << "\nscored " << to_string(other)
              << (other == ScoreProtocol::float_maps ? " (the maps as computed)" : " (the maps as each benchmark received them)")
              << ":\n";
    for (const std::string& line : totals.other_lines) std::cout << line << "\n";
    std::cout << std::left << std::setw(W_LEAD) << "average" << std::right
              << triple(other_sums.nonocc.average(), other_sums.all.average(), other_sums.disc.average());
    if (const auto all3 = mean_of_columns(other_sums.nonocc, other_sums.all, other_sums.disc, false))
      std::cout << "   (mean of the " << 3 * other_sums.nonocc.n << " figures: " << fmt(*all3) << ")";
    std::cout << "\n";
  }
  if (!totals.also_lines.empty()) {
    std::cout << "\nbad pixels (%) at other thresholds on the same maps (scored " << to_string(protocol)
              << "), nonocc / all:\n"
              << std::left << std::setw(W_SCENE) << "scene" << std::right;
    for (double t : also_thresholds)
      std::cout << std::setw(W_BAD + 2) << ("> " + fmt(t, 1)) << std::setw(W_BAD) << "";
    std::cout << "\n";
    for (const std::string& line : totals.also_lines) std::cout << line << "\n";
    std::cout << std::left << std::setw(W_SCENE) << "average" << std::right;
    for (std::size_t j = 0; j < also_thresholds.size(); ++j)
      std::cout << std::setw(W_BAD + 2) << fmt(also_nonocc[j].average()) << std::setw(W_BAD)
                << fmt(also_all[j].average());
    std::cout << "\n";
  }
}

}  // namespace stereo::cli::eval
