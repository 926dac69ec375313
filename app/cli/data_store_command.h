#pragma once
/// \file app/cli/data_store_command.h
/// `stereo data list|get|add|verify`: the benchmark datasets under the data root
/// (app/data/store.h), and the global `--data DIR` that names the data root.

namespace CLI {
class App;
}

namespace stereo::cli {

/// Adds `--data DIR` to `app` and the `data` subcommand. A build without libcurl, libarchive or
/// libcrypto still has the subcommand; it then says what the build lacks.
void add_data_store_command(CLI::App& app);

}  // namespace stereo::cli
