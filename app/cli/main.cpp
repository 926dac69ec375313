// stereo: the suite's one driver. Every failure ends as one line on stderr and exit code 1
// (2 for command-line usage errors, as CLI11 reports them).

#include <CLI/CLI.hpp>

#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/data_commands.h"
#include "app/cli/data_store_command.h"
#include "app/cli/stream_command.h"
#include "app/parallel/ranks.h"
#include "core/error.h"
#include "core/gpu_select.h"

int main(int argc, char** argv) {
  CLI::App app{"stereo: GPU dense stereo matching reference suite (render-pass GLSL, CUDA, CPU reference)"};
  app.require_subcommand(1);
  // Global, before the subcommand (`stereo --device 1 bench ...`). It only sets STEREO_DEVICE,
  // on parse and so before any subcommand creates a matcher; every backend reads that.
  app.add_option_function<int>("--device", [](const int& ordinal) { stereo::request_gpu(ordinal); },
                               "GPU for the CUDA and GL backends: a CUDA device ordinal (CUDA_VISIBLE_DEVICES and "
                               "CUDA_DEVICE_ORDER apply); sets STEREO_DEVICE")
      ->type_name("N")
      ->trigger_on_parse();  // request_gpu rejects N < 0 with a stereo::Error
  stereo::cli::add_core_commands(app);
  stereo::add_data_commands(app);
  stereo::cli::add_data_store_command(app);
  stereo::cli::add_stream_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message (and --help its text); its own codes (104, 106, ...) become the
    // one usage code the README promises.
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const stereo::parallel::PeerFailure&) {
    return 1;  // another MPI rank failed; rank 0 prints that error (app/parallel/ranks.h)
  } catch (const stereo::Error& e) {
    std::cerr << "stereo: error: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "stereo: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
