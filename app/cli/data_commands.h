#pragma once
/// \file app/cli/data_commands.h
/// The data subcommands of the `stereo` driver:
///  - `synth`: write a synthetic scene with exact ground truth (MiddEval3 layout);
///  - `import-pair`: bring a public pair with ground truth into that layout;
///  - `check-gt`: warp the right view onto the left with the ground truth and compare the
///    photometric error with that of rescaled and shifted ground truths.
/// Each callback throws stereo::Error on user errors; main() prints it as one line.

namespace CLI {
class App;
}

namespace stereo {

void add_data_commands(CLI::App& app);

}  // namespace stereo
