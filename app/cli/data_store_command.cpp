#include "app/cli/data_store_command.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "app/data/installed.h"
#include "app/dataset.h"
#include "core/error.h"

#ifdef STEREO_WITH_DATA_DOWNLOAD
#include <unistd.h>

#include "app/data/interrupt.h"
#include "app/data/store.h"
#endif

namespace stereo::cli {
namespace {

struct DataArgs {
  std::vector<std::string> names;
  std::string name;
  std::vector<std::string> files;
  std::string mirror;
  int attempts = 5;
};

namespace fs = std::filesystem;

#ifdef STEREO_WITH_DATA_DOWNLOAD
constexpr bool DOWNLOADS = true;
#else
constexpr bool DOWNLOADS = false;
#endif

// What a build without the download libraries says (get, add and verify refuse with it; list
// notes it below the table, whose "stereo data get" hints it cannot follow).
std::string without_downloads() {
  return "this stereo was built without downloads (libcurl, libarchive and libcrypto were not found at configure "
         "time: apt-get install libcurl4-openssl-dev libarchive-dev libssl-dev, then configure again); datasets can "
         "still be placed by hand under " + data_root().string();
}

std::string size_text(std::uint64_t bytes) {
  char buf[32];
  if (bytes >= 1000000000ull)
    std::snprintf(buf, sizeof buf, "%.1f GB", double(bytes) / 1e9);
  else
    std::snprintf(buf, sizeof buf, "%.1f MB", double(bytes) / 1e6);
  return buf;
}

void cmd_list() {
  const fs::path root = data_root();
  std::cout << "data root: " << root.string() << " (" << data_root_origin() << ")\n";
  std::printf("%-22s %-9s %-14s %s\n", "dataset", "download", "installed", "where / how");
  for (const data::DatasetStatus& s : data::dataset_status(root)) {
    const data::Dataset& d = *s.dataset;
    const std::string state = s.installed ? "yes " + size_text(s.bytes) : "no";
    const std::string how = s.installed ? (root / d.name).string()
                            : d.downloadable ? "stereo data get " + d.name
                                             : "stereo data add " + d.name + " ARCHIVE (from " + d.page + ")";
    std::printf("%-22s %-9s %-14s %s\n", d.name.c_str(), d.size.c_str(), state.c_str(), how.c_str());
  }
  if (!DOWNLOADS) std::cout << "note: " << without_downloads() << "\n";
}

#ifdef STEREO_WITH_DATA_DOWNLOAD
data::StoreOptions store_options(const DataArgs& a) {
  data::StoreOptions o;
  o.root = data_root();
  o.mirror = a.mirror;
  o.fetch.attempts = a.attempts;
  o.fetch.progress = ::isatty(STDERR_FILENO) != 0;
  return o;
}

void cmd_get(const DataArgs& a) {
  const data::StoreOptions o = store_options(a);
  data::InterruptScope ctrl_c;
  for (const std::string& name : a.names) {
    const data::Dataset& d = data::find_dataset(name);
    std::cerr << "data: " << d.name << ": " << d.title << " (" << d.size << " from " << d.page << ")\n";
    const fs::path dir = data::get_dataset(d, o);
    std::cout << "data: installed " << d.name << " in " << dir.string() << "\n";
  }
}

void cmd_add(const DataArgs& a) {
  const data::StoreOptions o = store_options(a);
  data::InterruptScope ctrl_c;
  const data::Dataset& d = data::find_dataset(a.name);
  std::vector<fs::path> files(a.files.begin(), a.files.end());
  const fs::path dir = data::add_dataset(d, files, o);
  std::cout << "data: installed " << d.name << " in " << dir.string() << "\n";
}

void cmd_verify(const DataArgs& a) {
  const fs::path root = data_root();
  const std::vector<std::string> problems = data::verify_datasets(root, a.names);
  for (const std::string& p : problems) std::cerr << "data: " << p << "\n";
  require(problems.empty(), "data verify: " + std::to_string(problems.size()) + " problem(s) under " + root.string());
  std::cout << "data verify: every recorded file under " << root.string() << " matches its SHA-256\n";
}
#else
[[noreturn]] void unavailable() { throw Error("data: " + without_downloads()); }
void cmd_get(const DataArgs&) { unavailable(); }
void cmd_add(const DataArgs&) { unavailable(); }
void cmd_verify(const DataArgs&) { unavailable(); }
#endif

}  // namespace

void add_data_store_command(CLI::App& app) {
  app.add_option_function<std::string>("--data", [](const std::string& dir) { set_data_root(dir); },
                                       "the data root, where datasets are installed and looked up by name "
                                       "(else STEREO_DATA, else $XDG_DATA_HOME/stereo or ~/.local/share/stereo)")
      ->type_name("DIR")
      ->trigger_on_parse();
  auto args = std::make_shared<DataArgs>();
  CLI::App* data = app.add_subcommand("data", "the benchmark datasets under the data root: list, get, add, verify");
  data->require_subcommand(1);
  data->add_subcommand("list", "the known datasets: download size, installed or not, where")->callback([] { cmd_list(); });
  CLI::App* get = data->add_subcommand("get", "download, check and install datasets from their projects' pages");
  get->add_option("NAME", args->names, "dataset names (stereo data list)")->required();
  get->add_option("--mirror", args->mirror, "fetch <URL>/<host>/<path> of each official URL instead (what wget -x writes)")
      ->type_name("URL");
  get->add_option("--tries", args->attempts, "tries per file, the first included")->check(CLI::Range(1, 100));
  get->callback([args] { cmd_get(*args); });
  CLI::App* add = data->add_subcommand("add", "install a dataset from archives you downloaded (KITTI: after registration)");
  add->add_option("NAME", args->name, "dataset name (stereo data list)")->required();
  add->add_option("ARCHIVE", args->files, "the downloaded archive(s)")->required()->check(CLI::ExistingFile);
  add->callback([args] { cmd_add(*args); });
  CLI::App* verify = data->add_subcommand("verify", "re-hash installed files against the manifest");
  verify->add_option("NAME", args->names, "dataset names (default: every recorded one)");
  verify->callback([args] { cmd_verify(*args); });
}

}  // namespace stereo::cli
