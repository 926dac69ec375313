#pragma once
/// \file app/cli/eval_table.h
/// `stereo eval`'s table: the averages added up row by row and the lines printed, all from the
/// rows' JSON (app/cli/eval_command.cpp's scene_row), so rows made by another device or MPI
/// rank print and add up exactly as one process's do.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/registry.h"

namespace stereo::cli::eval {

/// Sums for one column (nonocc, all or disc) of the averages.
struct ColumnSums {
  double ours = 0.0;  ///< over every scene with our figure, under the run's protocol
  int n = 0;
  double ours_vs = 0.0;  ///< over the scenes where the paper has a figure too, under the paper's protocol
  double paper = 0.0;
  int n_vs = 0;

  void add(const std::optional<double>& mine, const std::optional<double>& mine_as_paper_scored,
           const std::optional<double>& theirs) {
    if (mine) ours += *mine, ++n;
    if (mine_as_paper_scored && theirs) ours_vs += *mine_as_paper_scored, paper += *theirs, ++n_vs;
  }
  [[nodiscard]] std::optional<double> average() const { return n ? std::optional(ours / n) : std::nullopt; }
  [[nodiscard]] std::optional<double> average_vs() const { return n_vs ? std::optional(ours_vs / n_vs) : std::nullopt; }
  [[nodiscard]] std::optional<double> paper_average() const {
    return n_vs ? std::optional(paper / n_vs) : std::nullopt;
  }
};

/// nonocc, all and disc over the scenes, for the block of the other protocol's figures.
struct TripleSums {
  ColumnSums nonocc, all, disc;
};

// Column widths of the eval table, shared by the header, the rows and the averages.
inline constexpr int W_SCENE = 14, W_SIZE = 10, W_RANGE = 12, W_BAD = 8, W_TIME = 10, W_MDES = 9;
inline constexpr int W_LEAD = W_SCENE + W_SIZE + W_RANGE;

/// The table's averages, added up row by row in scene order.
struct Totals {
  ColumnSums nonocc, all, disc;
  TripleSums other_sums;
  std::vector<std::string> other_lines;
  // --also-threshold: nonocc and all at each extra threshold, per scene (printed after the table).
  std::vector<ColumnSums> also_nonocc, also_all;
  std::vector<std::string> also_lines;
  std::vector<std::string> paper_scenes;

  /// A row of the table (scene_row's JSON), in scene order.
  void add(const nlohmann::json& row, ScoreProtocol protocol, ScoreProtocol other, ScoreProtocol paper_protocol);
};

/// The value of a JSON number, or nothing for null.
std::optional<double> opt(const nlohmann::json& v);

/// The table's header line.
void print_eval_header();
/// A row of the table (and the line of its pictures); with `on`, the device it ran on.
void print_row(const nlohmann::json& row, bool on);
/// The lines under the table: the averages, the comparison with the paper, the other
/// protocol's table where a format quantises, and the --also-threshold table.
void print_totals(const Totals& totals, ScoreProtocol protocol, ScoreProtocol other, ScoreProtocol paper_protocol,
                  bool any_quantized, const std::vector<double>& also_thresholds);
/// The paper's side of `c` as a ColumnSums of its own (for mean_of_columns over the paper's figures).
ColumnSums paper_sums(const ColumnSums& c);
/// The papers' usual ranking figure: the mean of nonocc, all and disc over the scenes, where
/// every scene has all three (vs_paper: ours scored as the paper was, over the paper's scenes).
std::optional<double> mean_of_columns(const ColumnSums& nonocc, const ColumnSums& all, const ColumnSums& disc,
                                      bool vs_paper);

}  // namespace stereo::cli::eval
