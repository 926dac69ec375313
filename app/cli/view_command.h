#pragma once
/// \file app/cli/view_command.h
/// `stereo view`: the interactive window (app/view/, docs/viewer.md).

#include <CLI/CLI.hpp>

namespace stereo::cli {

void add_view_command(CLI::App& app);

}  // namespace stereo::cli
