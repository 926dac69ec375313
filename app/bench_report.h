#pragma once
/// \file app/bench_report.h
/// What `bench` adds to a timed row beyond the times (app/measure.h bench_one): each stage's
/// floor (its accounted bytes at the copy rate measured in the same run) and the whole
/// method's, the matcher's device memory, the energy over a window of frames; and the row as
/// the table prints it.

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "core/matcher.h"

namespace stereo::cli {

/// Adds the floor to a bench row `j` (its "stages" with "bytes" where the backend accounts
/// them, its "algorithm_ms"): per accounted stage "floor_ms" (bytes / copy rate) and
/// "floor_multiple" (its time / floor_ms); at the top "floor" {bytes, ms, copy_gb_s, multiple,
/// multiple_of, stages_accounted, stages, accounted_ms, time_share, unaccounted}: the sum over
/// the accounted stages, its time at the copy rate, and the algorithm time over it where every
/// stage is accounted ("multiple_of": "algorithm"), else the accounted stages' time over it
/// ("accounted stages"). "floor" is null where the backend accounts no timed stage or measured
/// no copy rate.
void add_floor(nlohmann::json& j, const std::optional<MemoryStats>& memory);

/// How bench reads the energy counter: back-to-back frames after the timed runs for at least
/// `min_ms` of wall time, each end of the window placed at a step of the counter (which
/// advances only every few tens of ms), waiting at most `edge_ms` for one.
struct EnergyWindow {
  double min_ms = 1000.0;  ///< 0: energy is not measured
  double edge_ms = 250.0;
};

/// "energy" {mj_per_frame, gde_per_j, watts, joules, frames, window_ms} of `frame` (one
/// frame of the configuration, W x H x levels) run over `w` on `m`'s device, or null, with
/// "energy_unavailable" saying why (the counter's reason, or that it did not advance).
nlohmann::json measure_energy(Matcher& m, const std::function<void()>& frame, const EnergyWindow& w, double
                              disparity_evaluations);

/// The header lines that say what the floor, device memory and energy columns are, the energy
/// window `w` named.
std::string bench_legend(const EnergyWindow& w);
/// The column titles of print_bench_row.
void print_bench_columns(std::ostream& out);
/// One row of the table: the times, the paper's figures, device memory and energy; then one
/// line per stage (time, bytes, GB/s, share of the copy, floor and multiple), the whole
/// method's floor, and the device memory and energy in words (or why they are not known).
void print_bench_row(std::ostream& out, const nlohmann::json& j);

}  // namespace stereo::cli
