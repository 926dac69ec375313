#pragma once
/// \file app/cli/commands.h
/// The CLI contract: `stereo list | run | eval | bench` (README "Commands").

#include <CLI/CLI.hpp>

namespace stereo::cli {

void add_core_commands(CLI::App& app);

}  // namespace stereo::cli
