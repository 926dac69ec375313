#include "app/data/store.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "app/data/interrupt.h"
#include "app/data/manifest.h"
#include "app/data/sha256.h"
#include "core/error.h"

namespace stereo::data {
namespace fs = std::filesystem;
namespace {

// The staging folder, created on first use; a data root that cannot take it is refused before
// anything is downloaded.
fs::path staging_of(const fs::path& root) {
  const fs::path staging = root / ".staging";
  std::error_code ec;
  fs::create_directories(staging / "downloads", ec);
  if (!ec) {
    // create_directories succeeds on existing folders even where the root is read-only now.
    const fs::path probe = staging / (".probe." + std::to_string(::getpid()));
    if (std::FILE* f = std::fopen(probe.c_str(), "w")) {
      std::fclose(f);
      fs::remove(probe, ec);
      return staging;
    }
    ec = std::error_code(errno, std::generic_category());
  }
  throw Error("data: cannot write to the data root " + root.string() + ": " + ec.message() +
              " (choose another with --data DIR or STEREO_DATA)");
}

// A work folder under the staging folder, removed with everything in it on the way out.
class WorkDir {
 public:
  WorkDir(const fs::path& staging, const std::string& name) {
    const auto tick = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = staging / (name + "." + std::to_string(::getpid()) + "." + std::to_string(tick));
    fs::create_directories(path_ / "unpacked");
  }
  ~WorkDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string part_name(const std::string& url) {
  // One partial file per official URL, kept across runs for the resume.
  return sha256_bytes(url.data(), url.size()).substr(0, 16) + ".part";
}

// The file's SHA-256 against the catalog's pin or, without one, the manifest's record; a
// mismatch deletes the file and names both hashes.
void check_sha(const Source& src, const std::string& got, const fs::path& file, const std::string& fetched_from,
               const fs::path& root, bool remove_on_mismatch) {
  const Manifest manifest = Manifest::load(root);
  std::string expected = src.sha256;
  std::string where = "pinned in the catalog";
  if (expected.empty()) {
    if (const auto it = manifest.sources.find(src.url); it != manifest.sources.end()) {
      expected = it->second.sha256;
      where = "recorded at the first download in " + Manifest::path(root).string();
    }
  }
  if (expected.empty() || expected == got) return;
  std::error_code ec;
  if (remove_on_mismatch) fs::remove(file, ec);
  throw Error("data: " + src.staging_name() + " from " + fetched_from + " has SHA-256 " + got + ", expected " +
              expected + " (" + where + ")" + (remove_on_mismatch ? "; deleted it" : "") + ", nothing was installed");
}

// Unpacks or places one checked file into unpacked/<staging name>.
void stage(const Source& src, const fs::path& file, const fs::path& work, const ExtractLimits& limits) {
  const fs::path to = work / "unpacked" / src.staging_name();
  if (src.archive) {
    extract_archive(file, to, limits);
  } else {
    fs::rename(file, to);
  }
}

// Hashes every file of `tree` into the manifest's record of `name`, then renames `tree` to
// <root>/<name> (an installed copy goes only after the new one is in place) and saves the manifest.
fs::path install(const Dataset& dataset, const fs::path& root, const fs::path& work, Manifest& manifest) {
  const fs::path tree = work / "tree";
  std::map<std::string, Recorded> files;
  for (const auto& e : fs::recursive_directory_iterator(tree)) {
    throw_if_interrupted("data");
    if (!e.is_regular_file()) continue;
    files[fs::relative(e.path(), tree).generic_string()] = {sha256_file(e.path()), e.file_size()};
  }
  require(!files.empty(), "data: " + dataset.name + ": the downloads gave no files");
  manifest.files[dataset.name] = std::move(files);
  throw_if_interrupted("data");
  const fs::path target = root / dataset.name;
  std::error_code ec;
  const bool replacing = fs::exists(target, ec);
  if (replacing) fs::rename(target, work / "previous");
  fs::rename(tree, target, ec);
  if (ec) {
    if (replacing) fs::rename(work / "previous", target);  // the installed copy stays as it was
    throw Error("data: cannot rename " + tree.string() + " to " + target.string() + ": " + ec.message());
  }
  manifest.save(root);
  return target;
}

void arrange(const Dataset& dataset, const fs::path& work) {
  fs::create_directories(work / "tree");
  dataset.arrange(work / "unpacked", work / "tree");
}

}  // namespace

std::string mirrored_url(const std::string& url, const std::string& mirror) {
  if (mirror.empty()) return url;
  std::string rest = url;
  if (const auto scheme = rest.find("://"); scheme != std::string::npos) rest = rest.substr(scheme + 3);
  std::string base = mirror;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + "/" + rest;
}

namespace {
// Removes the staging folder once nothing is left in it (another dataset's partial download
// keeps it).
void tidy_staging(const fs::path& root) {
  std::error_code ec;
  fs::remove(root / ".staging" / "downloads", ec);
  fs::remove(root / ".staging", ec);
}

fs::path get_into(const Dataset& dataset, const StoreOptions& options) {
  require(dataset.downloadable, "data: " + dataset.name + " cannot be downloaded directly (" + dataset.page +
                                    " asks for a registration); download it there and run: stereo data add " +
                                    dataset.name + " ARCHIVE");
  const fs::path staging = staging_of(options.root);
  Manifest manifest = Manifest::load(options.root);
  WorkDir work(staging, dataset.name);
  std::size_t index = 0;
  for (const Source& src : dataset.sources) {
    ++index;
    const std::string url = mirrored_url(src.url, options.mirror);
    const fs::path part = staging / "downloads" / part_name(src.url);
    FetchOptions fetch = options.fetch;
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "x" + std::string here.
    fetch.label = std::to_string(index);
    fetch.label += '/';
    fetch.label += std::to_string(dataset.sources.size());
    fetch.label += ' ';
    fetch.label += src.staging_name();
    data::fetch(url, part, fetch);
    const std::string got = sha256_file(part);
    check_sha(src, got, part, url, options.root, true);
    manifest.sources[src.url] = {got, fs::file_size(part)};
    const fs::path checked = work.path() / ("download." + std::to_string(index));
    fs::rename(part, checked);
    stage(src, checked, work.path(), options.limits);
    std::error_code ec;
    fs::remove(checked, ec);
  }
  arrange(dataset, work.path());
  return install(dataset, options.root, work.path(), manifest);
}

fs::path add_into(const Dataset& dataset, const std::vector<fs::path>& files, const StoreOptions& options) {
  require(files.size() == dataset.sources.size(),
          "data: " + dataset.name + " is made of " + std::to_string(dataset.sources.size()) + " file(s), got " +
              std::to_string(files.size()));
  const fs::path staging = staging_of(options.root);
  Manifest manifest = Manifest::load(options.root);
  WorkDir work(staging, dataset.name);
  for (const Source& src : dataset.sources) {
    const std::string wanted = fs::path(src.url).filename().string();
    auto it = std::find_if(files.begin(), files.end(), [&](const fs::path& f) {
      return dataset.sources.size() == 1 || src.staging_name().find(f.filename().string()) != std::string::npos ||
             f.filename().string() == wanted;
    });
    require(it != files.end(), "data: " + dataset.name + " needs " + wanted + " (from " + src.url + ")");
    require(fs::is_regular_file(*it), "data: cannot read " + it->string());
    const std::string got = sha256_file(*it);
    check_sha(src, got, *it, it->string(), options.root, false);
    manifest.sources[src.url] = {got, fs::file_size(*it)};
    if (src.archive) {
      extract_archive(*it, work.path() / "unpacked" / src.staging_name(), options.limits);
    } else {
      fs::copy_file(*it, work.path() / "unpacked" / src.staging_name());
    }
  }
  arrange(dataset, work.path());
  return install(dataset, options.root, work.path(), manifest);
}
}  // namespace

fs::path get_dataset(const Dataset& dataset, const StoreOptions& options) {
  const fs::path installed = get_into(dataset, options);
  tidy_staging(options.root);
  return installed;
}

fs::path add_dataset(const Dataset& dataset, const std::vector<fs::path>& files, const StoreOptions& options) {
  const fs::path installed = add_into(dataset, files, options);
  tidy_staging(options.root);
  return installed;
}

std::vector<std::string> verify_datasets(const fs::path& root, const std::vector<std::string>& names) {
  const Manifest manifest = Manifest::load(root);
  std::vector<std::string> wanted = names;
  if (wanted.empty())
    for (const auto& [name, files] : manifest.files) wanted.push_back(name);
  std::vector<std::string> problems;
  for (const std::string& name : wanted) {
    const auto it = manifest.files.find(name);
    if (it == manifest.files.end()) {
      problems.push_back(name + ": no record in " + Manifest::path(root).string() + " (not installed by stereo data)");
      continue;
    }
    for (const auto& [rel, r] : it->second) {
      const fs::path file = root / name / rel;
      std::error_code ec;
      if (!fs::is_regular_file(file, ec)) {
        problems.push_back(name + ": " + rel + " is missing");
        continue;
      }
      const std::string got = sha256_file(file);
      if (got != r.sha256) problems.push_back(name + ": " + rel + " has SHA-256 " + got + ", recorded " + r.sha256);
    }
  }
  return problems;
}

}  // namespace stereo::data
