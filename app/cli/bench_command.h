#pragma once
/// \file app/cli/bench_command.h
/// `stereo bench`: a method timed on its paper's own speed settings (MethodInfo::speed) or on
/// one --size, with the paper's figures beside ours.

namespace CLI {
class App;
}

namespace stereo::cli {

void add_bench_command(CLI::App& app);

}  // namespace stereo::cli
