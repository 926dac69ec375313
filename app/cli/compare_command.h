#pragma once
/// \file app/cli/compare_command.h
/// `stereo compare`: every method x backend of the registry on the Middlebury data (accuracy)
/// and on a size x levels grid plus each paper's own settings (speed), into results.json,
/// results.csv, report.md and plots (app/report.h); `stereo report DIR` remakes the report
/// from results.json alone.

namespace CLI {
class App;
}

namespace stereo::cli {

void add_compare_commands(CLI::App& app);

}  // namespace stereo::cli
