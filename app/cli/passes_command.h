#pragma once
/// \file app/cli/passes_command.h
/// `stereo passes LEFT RIGHT -m METHOD -b BACKEND -d LEVELS --out DIR`: one run with the pass
/// inspector on (Matcher::keep_passes), every pass or stage dumped into DIR (app/passes.h).

#include <CLI/CLI.hpp>

namespace stereo::cli {

void add_passes_command(CLI::App& app);

}  // namespace stereo::cli
