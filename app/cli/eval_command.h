#pragma once
/// \file app/cli/eval_command.h
/// `stereo eval`: a method over a dataset, scored against ground truth (app/protocol.h).

#include <CLI/CLI.hpp>

namespace stereo::cli {

void add_eval_command(CLI::App& app);

}  // namespace stereo::cli
