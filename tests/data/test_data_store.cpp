// `stereo data`'s downloads, archives and installs (app/data/) against a loopback HTTP server on
// 127.0.0.1 started by each test, with archives the test builds with libarchive.

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>
#include <cstdio>
#include <functional>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "app/data/catalog.h"
#include "app/data/extract.h"
#include "app/data/interrupt.h"
#include "app/data/sha256.h"
#include "app/data/store.h"
#include "app/dataset.h"
#include "app/image_io.h"
#include "core/error.h"
#include "tests/data/loopback_server.h"

namespace fs = std::filesystem;
using stereo::testing::LoopbackServer;
namespace data = stereo::data;

namespace {

struct Entry {
  std::string name;
  std::string content;
  std::string link;  // non-empty: a symbolic link to this target
};

// A zip (deflate) or a tar.gz of `entries`, as libarchive writes it.
std::string make_archive(const std::vector<Entry>& entries, bool zip = true) {
  struct archive* a = archive_write_new();
  if (zip) {
    archive_write_set_format_zip(a);
  } else {
    archive_write_set_format_pax_restricted(a);
    archive_write_add_filter_gzip(a);
  }
  std::vector<char> buf(std::size_t(64) << 20);
  std::size_t used = 0;
  EXPECT_EQ(archive_write_open_memory(a, buf.data(), buf.size(), &used), ARCHIVE_OK);
  for (const Entry& e : entries) {
    struct archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, e.name.c_str());
    if (!e.link.empty()) {
      archive_entry_set_filetype(entry, AE_IFLNK);
      archive_entry_set_symlink(entry, e.link.c_str());
      archive_entry_set_perm(entry, 0777);
    } else {
      archive_entry_set_filetype(entry, AE_IFREG);
      archive_entry_set_perm(entry, 0644);
      archive_entry_set_size(entry, static_cast<la_int64_t>(e.content.size()));
    }
    EXPECT_EQ(archive_write_header(a, entry), ARCHIVE_OK) << archive_error_string(a);
    if (e.link.empty() && !e.content.empty()) {
      EXPECT_EQ(archive_write_data(a, e.content.data(), e.content.size()), static_cast<la_ssize_t>(e.content.size()));
    }
    archive_entry_free(entry);
  }
  archive_write_close(a);
  archive_write_free(a);
  return std::string(buf.data(), used);
}

std::string noise(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng() & 0xff);
  return s;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_all(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "stereo_data_test.XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, ec);
    fs::remove_all(path, ec);
  }
};

// The data root's entries other than the staging folder's (what a user would see installed).
std::vector<std::string> visible(const fs::path& root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec))
    if (e.path().filename() != ".staging") out.push_back(e.path().filename().string());
  return out;
}

// Nothing in the staging folder but partial downloads kept for a resume.
void expect_staging_clean(const fs::path& root) {
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(root / ".staging", ec)) {
    const fs::path rel = fs::relative(e.path(), root / ".staging");
    EXPECT_TRUE(rel == "downloads" || (rel.parent_path() == "downloads" && rel.extension() == ".part"))
        << "left in staging: " << rel;
  }
}

// A one-archive dataset served by `server`: scene folders a/ and b/ with im0.png and a payload.
struct TestSet {
  std::string a_payload = noise(300000, 1), b_payload = noise(200000, 2);
  std::string archive = make_archive({{"pack/a/im0.png", a_payload, ""}, {"pack/b/im0.png", b_payload, ""},
                                      {"pack/b/calib.txt", "ndisp=16\n", ""}});
  data::Dataset dataset(const LoopbackServer& server, const std::string& sha = "") const {
    data::Dataset d;
    d.name = "testset";
    d.sources = {{server.url("/files/pack.zip"), sha, true}};
    d.arrange = [](const fs::path& unpacked, const fs::path& out) {
      ASSERT_EQ(data::merge_scene_folders(unpacked, out, "im0.png", ""), 2);
    };
    return d;
  }
};

data::StoreOptions quick(const fs::path& root) {
  data::StoreOptions o;
  o.root = root;
  o.fetch.attempts = 3;
  o.fetch.retry_pause_s = 0.01;
  o.fetch.connect_timeout_s = 5;
  o.fetch.stall_timeout_s = 5;
  return o;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const stereo::Error& e) {
    return e.what();
  }
  return "";
}

// In a death test's child: as an unprivileged user, tries an install into `ro` and prints the error.
[[noreturn]] void try_read_only_root(const fs::path& ro) {
  if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) std::_Exit(3);
  data::Dataset d;
  d.name = "testset";
  d.sources = {{"http://127.0.0.1:9/none.zip", "", true}};
  d.arrange = [](const fs::path&, const fs::path&) {};
  std::fprintf(stderr, "%s\n", error_of([&] { data::get_dataset(d, quick(ro)); }).c_str());
  std::_Exit(0);
}

}  // namespace

TEST(DataFetch, InstallsArrangesAndRecordsChecksums) {
  LoopbackServer server;
  TestSet t;
  server.put("/files/pack.zip", t.archive);
  TempDir root;
  const fs::path dir = data::get_dataset(t.dataset(server), quick(root.path));
  EXPECT_EQ(dir, root.path / "testset");
  EXPECT_EQ(read_all(dir / "a/im0.png"), t.a_payload);
  EXPECT_EQ(read_all(dir / "b/im0.png"), t.b_payload);
  EXPECT_EQ(read_all(dir / "b/calib.txt"), "ndisp=16\n");
  // The download's SHA-256 is recorded; so is every installed file's, which verify checks.
  const std::string manifest = read_all(root.path / "stereo-data.manifest");
  EXPECT_NE(manifest.find(data::sha256_bytes(t.archive.data(), t.archive.size())), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("file testset " + data::sha256_bytes(t.a_payload.data(), t.a_payload.size()) + " 300000 a/im0.png"),
            std::string::npos) << manifest;
  EXPECT_TRUE(data::verify_datasets(root.path, {}).empty());
  EXPECT_FALSE(fs::exists(root.path / ".staging"));  // removed once empty
  write_all(dir / "a/im0.png", "changed");
  const auto problems = data::verify_datasets(root.path, {"testset"});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("a/im0.png has SHA-256"), std::string::npos) << problems[0];
}

TEST(DataFetch, ResumesAfterTheServerDropsMidBody) {
  LoopbackServer server;
  TestSet t;
  server.put("/files/pack.zip", t.archive);
  server.fault_after(t.archive.size() / 2);
  TempDir root;
  const fs::path dir = data::get_dataset(t.dataset(server), quick(root.path));
  EXPECT_EQ(read_all(dir / "a/im0.png"), t.a_payload);
  const auto req = server.requests();
  ASSERT_EQ(req.size(), 2u);
  EXPECT_EQ(req[0].second, "");
  // The second try asks only for the rest.
  EXPECT_EQ(req[1].second, std::to_string(t.archive.size() / 2) + "-");
}

TEST(DataFetch, RestartsWhenTheServerIgnoresTheRange) {
  LoopbackServer server;
  TestSet t;
  server.put("/files/pack.zip", t.archive);
  server.fault_after(t.archive.size() / 2);
  server.ignore_ranges();
  TempDir root;
  const fs::path dir = data::get_dataset(t.dataset(server), quick(root.path));
  EXPECT_EQ(read_all(dir / "b/im0.png"), t.b_payload);
  EXPECT_EQ(server.requests().size(), 3u);  // cut; the whole file for a Range (dropped); from nothing
}

TEST(DataFetch, ChecksumMismatchInstallsNothingAndNamesBothHashes) {
  LoopbackServer server;
  TestSet t;
  server.put("/files/pack.zip", t.archive);
  TempDir root;
  const std::string wrong(64, 'a');
  const std::string got = data::sha256_bytes(t.archive.data(), t.archive.size());
  const std::string err = error_of([&] { data::get_dataset(t.dataset(server, wrong), quick(root.path)); });
  EXPECT_NE(err.find("files_pack.zip"), std::string::npos) << err;
  EXPECT_NE(err.find("SHA-256 " + got), std::string::npos) << err;
  EXPECT_NE(err.find("expected " + wrong), std::string::npos) << err;
  EXPECT_TRUE(visible(root.path).empty());
  EXPECT_TRUE(fs::is_empty(root.path / ".staging/downloads"));  // the bad file is deleted

  // Without a pin, the first download's SHA-256 is recorded; a changed file later is refused.
  data::get_dataset(t.dataset(server), quick(root.path));
  server.put("/files/pack.zip", make_archive({{"pack/a/im0.png", "other", ""}}));
  const std::string again = error_of([&] { data::get_dataset(t.dataset(server), quick(root.path)); });
  EXPECT_NE(again.find("expected " + got + " (recorded at the first download"), std::string::npos) << again;
  EXPECT_EQ(read_all(root.path / "testset/a/im0.png"), t.a_payload);  // the installed copy stays
}

TEST(DataFetch, NotFoundIsNotRetried) {
  LoopbackServer server;
  TestSet t;
  TempDir root;
  const std::string err = error_of([&] { data::get_dataset(t.dataset(server), quick(root.path)); });
  EXPECT_NE(err.find("HTTP 404"), std::string::npos) << err;
  EXPECT_NE(err.find(server.url("/files/pack.zip")), std::string::npos) << err;
  EXPECT_EQ(server.requests().size(), 1u);
  EXPECT_TRUE(visible(root.path).empty());
  expect_staging_clean(root.path);
}

TEST(DataFetch, ConnectionRefusedFailsAfterItsTries) {
  std::string url;
  {
    LoopbackServer gone;  // a port that was free a moment ago and now has no listener
    url = gone.url("/files/pack.zip");
  }
  TempDir root;
  data::Dataset d;
  d.name = "testset";
  d.sources = {{url, "", true}};
  d.arrange = [](const fs::path&, const fs::path&) {};
  auto o = quick(root.path);
  o.fetch.attempts = 2;
  const std::string err = error_of([&] { data::get_dataset(d, o); });
  EXPECT_NE(err.find("Couldn't connect"), std::string::npos) << err;
  EXPECT_NE(err.find("after 2 of 2 tries"), std::string::npos) << err;
  EXPECT_TRUE(visible(root.path).empty());
}

TEST(DataFetch, InterruptMidDownloadLeavesNothingInstalledAndResumesLater) {
  LoopbackServer server;
  TestSet t;
  server.put("/files/pack.zip", t.archive);
  TempDir root;
  // SIGINT, as Ctrl-C sends it, once the first third of the body has reached the partial file;
  // the server then holds the line without sending.
  const fs::path downloads = root.path / ".staging/downloads";
  server.fault_after(
      t.archive.size() / 3,
      [downloads] {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        const auto arrived = [&] {
          std::error_code ec;
          for (const auto& e : fs::directory_iterator(downloads, ec))
            if (e.file_size(ec) > 0) return true;
          return false;
        };
        while (!arrived() && std::chrono::steady_clock::now() < until)
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
        std::raise(SIGINT);
      },
      2000);
  std::string err;
  {
    data::InterruptScope ctrl_c;
    err = error_of([&] { data::get_dataset(t.dataset(server), quick(root.path)); });
  }
  EXPECT_NE(err.find("interrupted"), std::string::npos) << err;
  EXPECT_TRUE(visible(root.path).empty());
  expect_staging_clean(root.path);
  data::InterruptScope fresh;  // clears the flag
  const fs::path dir = data::get_dataset(t.dataset(server), quick(root.path));
  EXPECT_EQ(read_all(dir / "b/im0.png"), t.b_payload);
  EXPECT_FALSE(server.requests().back().second.empty());  // resumed
}

TEST(DataFetch, ReadOnlyDataRootIsRefusedBeforeDownloading) {
  TempDir root;
  fs::permissions(root.path, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                 fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  // Root writes anywhere: the child drops to nobody first, so the permissions apply.
  EXPECT_EXIT(try_read_only_root(root.path), ::testing::ExitedWithCode(0),
              "cannot write to the data root .*Permission denied");
  EXPECT_TRUE(visible(root.path).empty());
}

TEST(DataExtract, RefusesEntriesOutsideTheRoot) {
  TempDir dir;
  const auto refused = [&](const std::vector<Entry>& entries, const std::string& why, bool zip) {
    const fs::path archive = dir.path / "evil.archive";
    write_all(archive, make_archive(entries, zip));
    const fs::path dest = dir.path / "out";
    fs::remove_all(dest);
    const std::string err = error_of([&] { data::extract_archive(archive, dest); });
    EXPECT_NE(err.find("refusing archive evil.archive"), std::string::npos) << err;
    EXPECT_NE(err.find(why), std::string::npos) << err;
  };
  for (bool zip : {true, false}) {
    refused({{"ok.txt", "fine", ""}, {"../escaped.txt", "bad", ""}}, "'../escaped.txt' lies outside", zip);
    refused({{"a/../../escaped.txt", "bad", ""}}, "lies outside", zip);
    refused({{"/tmp/stereo_abs_escape.txt", "bad", ""}}, "lies outside", zip);
    refused({{"link", "", "../../etc"}}, "link 'link' points to '../../etc'", zip);
    refused({{"link", "", "/etc"}}, "points to '/etc'", zip);
    refused({{"inside", "", "."}, {"inside/x.txt", "through the link", ""}}, "goes through the link 'inside'", zip);
  }
  EXPECT_FALSE(fs::exists(dir.path / "escaped.txt"));
  EXPECT_FALSE(fs::exists("/tmp/stereo_abs_escape.txt"));
  // A link that stays inside is kept.
  write_all(dir.path / "fine.zip", make_archive({{"d/f.txt", "x", ""}, {"d/l", "", "f.txt"}}));
  data::extract_archive(dir.path / "fine.zip", dir.path / "fine");
  EXPECT_EQ(read_all(dir.path / "fine/d/l"), "x");
}

TEST(DataExtract, RefusesAnExpansionBomb) {
  TempDir dir;
  // 64 MB of zeros deflate to ~64 KB: ~1000x.
  write_all(dir.path / "bomb.zip", make_archive({{"zeros.bin", std::string(std::size_t(64) << 20, '\0'), ""}}));
  ASSERT_LT(fs::file_size(dir.path / "bomb.zip"), std::uintmax_t(1) << 20);
  const std::string err = error_of([&] { data::extract_archive(dir.path / "bomb.zip", dir.path / "out"); });
  EXPECT_NE(err.find("more than 200x"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir.path / "out/zeros.bin") && fs::file_size(dir.path / "out/zeros.bin") > (8u << 20));
  // The absolute cap, whatever the ratio: 300 kB of noise under a 100 kB cap.
  write_all(dir.path / "big.tgz", make_archive({{"n.bin", noise(300000, 3), ""}}, false));
  data::ExtractLimits tight;
  tight.max_bytes = 100000;
  const std::string cap = error_of([&] { data::extract_archive(dir.path / "big.tgz", dir.path / "out2", tight); });
  EXPECT_NE(cap.find("more than 100000 bytes"), std::string::npos) << cap;
  // Through get_dataset the refusal leaves nothing installed.
  LoopbackServer server;
  server.put("/files/pack.zip", read_all(dir.path / "bomb.zip"));
  data::Dataset d;
  d.name = "testset";
  d.sources = {{server.url("/files/pack.zip"), "", true}};
  d.arrange = [](const fs::path&, const fs::path&) {};
  TempDir root;
  EXPECT_NE(error_of([&] { data::get_dataset(d, quick(root.path)); }).find("200x"), std::string::npos);
  EXPECT_TRUE(visible(root.path).empty());
  expect_staging_clean(root.path);
}

TEST(DataCatalog, MirroredUrlsKeepHostAndPath) {
  EXPECT_EQ(data::mirrored_url("https://vision.middlebury.edu/stereo/submit3/zip/MiddEval3-data-Q.zip", "http://lab:8000/m/"),
            "http://lab:8000/m/vision.middlebury.edu/stereo/submit3/zip/MiddEval3-data-Q.zip");
  EXPECT_EQ(data::mirrored_url("https://x.org/a", ""), "https://x.org/a");
  EXPECT_THROW(data::find_dataset("middlebury-v9"), stereo::Error);
  EXPECT_FALSE(data::find_dataset("kitti-2015").downloadable);
}

// The catalog's Middlebury v2 entry through a mirror on the loopback: the evaluation's files
// (palette-like RGB masks included) become the folders app/dataset.cpp loads.
TEST(DataCatalog, MiddleburyV2ThroughAMirrorLoadsAsADataset) {
  LoopbackServer server;
  const data::Dataset& v2 = data::find_dataset("middlebury-v2");
  TempDir files;
  for (const data::Source& src : v2.sources) {
    const std::string name = fs::path(src.url).filename().string();
    const bool view = name == "imL.png" || name == "imR.png";
    stereo::ImageU8 img(12, 9, 3);
    for (std::size_t i = 0; i < img.data.size(); ++i) img.data[i] = view ? std::uint8_t(i * 7) : std::uint8_t(i / 3 % 2 ? 255 : 80);
    stereo::write_png(files.path / "x.png", img);
    server.put("/mirror/" + src.url.substr(src.url.find("://") + 3), read_all(files.path / "x.png"));
  }
  TempDir root;
  auto o = quick(root.path);
  o.mirror = server.url("/mirror");
  data::get_dataset(v2, o);
  const auto scenes = stereo::load_dataset(root.path / "middlebury-v2");
  ASSERT_EQ(scenes.size(), 4u);
  EXPECT_EQ(scenes[0].name, "cones");
  EXPECT_TRUE(scenes[0].has_ground_truth());
  EXPECT_EQ(scenes[0].mask_nonocc.channels, 1);
}

TEST(DataRoot, DataOverridesEnvironmentOverridesXdg) {
  const char* saved = std::getenv("STEREO_DATA");
  const std::string keep = saved != nullptr ? saved : "";
  ::setenv("STEREO_DATA", "/from/env", 1);
  ::setenv("XDG_DATA_HOME", "/xdg", 1);
  EXPECT_EQ(stereo::data_root(), fs::path("/from/env"));
  stereo::set_data_root("/from/flag");
  EXPECT_EQ(stereo::data_root(), fs::path("/from/flag"));
  EXPECT_EQ(stereo::data_root_origin(), "--data");
  stereo::set_data_root({});
  ::unsetenv("STEREO_DATA");
  EXPECT_EQ(stereo::data_root(), fs::path("/xdg/stereo"));
  ::unsetenv("XDG_DATA_HOME");
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(stereo::data_root(), fs::path("/home/u/.local/share/stereo"));
  const std::string err = error_of([] { stereo::resolve_dataset("middlebury-v2/tsukuba"); });
  EXPECT_NE(err.find("stereo data get middlebury-v2"), std::string::npos) << err;
  if (!keep.empty()) ::setenv("STEREO_DATA", keep.c_str(), 1);
}

// ---- the `stereo` program ---------------------------------------------------------------------

namespace {

// Starts `stereo ARGS...` with stdout and stderr into `log`; returns its pid.
pid_t spawn_stereo(const std::vector<std::string>& args, const fs::path& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> argv{const_cast<char*>(STEREO_BIN)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(STEREO_BIN, argv.data());
    std::_Exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Serves the catalog's Middlebury v2 files under /mirror/<host>/<path>, small grey-masked scenes.
void serve_v2(LoopbackServer& server, const fs::path& scratch) {
  for (const data::Source& src : data::find_dataset("middlebury-v2").sources) {
    const std::string name = fs::path(src.url).filename().string();
    const bool view = name == "imL.png" || name == "imR.png";
    stereo::ImageU8 img(24, 18, 3);
    for (std::size_t i = 0; i < img.data.size(); ++i)
      img.data[i] = view ? std::uint8_t(i * 7) : std::uint8_t(i / 3 % 2 ? 255 : 80);
    stereo::write_png(scratch / "x.png", img);
    server.put("/mirror/" + src.url.substr(src.url.find("://") + 3), read_all(scratch / "x.png"));
  }
}

}  // namespace

TEST(DataCli, GetListVerifyAndEvalByName) {
  LoopbackServer server;
  TempDir root, scratch;
  serve_v2(server, scratch.path);
  const fs::path log = scratch.path / "log.txt";
  const std::string r = root.path.string();
  ASSERT_EQ(wait_exit(spawn_stereo({"--data", r, "data", "get", "middlebury-v2", "--mirror", server.url("/mirror")}, log)), 0)
      << read_all(log);
  EXPECT_NE(read_all(log).find("installed middlebury-v2 in " + r + "/middlebury-v2"), std::string::npos) << read_all(log);
  ASSERT_EQ(wait_exit(spawn_stereo({"--data", r, "data", "list"}, log)), 0) << read_all(log);
  const std::string list = read_all(log);
  EXPECT_NE(list.find("data root: " + r + " (--data)"), std::string::npos) << list;
  EXPECT_NE(list.find("stereo data get middlebury-v3-quarter"), std::string::npos) << list;  // not installed
  EXPECT_NE(list.find("stereo data add kitti-2015 ARCHIVE"), std::string::npos) << list;
  EXPECT_NE(list.find(r + "/middlebury-v2"), std::string::npos) << list;
  EXPECT_EQ(wait_exit(spawn_stereo({"--data", r, "data", "verify"}, log)), 0) << read_all(log);
  // STEREO_DATA is the same root for a dataset's name.
  ::setenv("STEREO_DATA", r.c_str(), 1);
  EXPECT_EQ(wait_exit(spawn_stereo({"eval", "middlebury-v2/tsukuba", "-m", "salap", "-b", "cpu"}, log)), 0) << read_all(log);
  ::unsetenv("STEREO_DATA");
  EXPECT_EQ(wait_exit(spawn_stereo({"--data", (scratch.path / "empty").string(), "eval", "middlebury-v2", "-m", "salap",
                                    "-b", "cpu"}, log)), 1);
  EXPECT_NE(read_all(log).find("install it with: stereo data get middlebury-v2"), std::string::npos) << read_all(log);
  write_all(root.path / "middlebury-v2/venus/gt.png", "changed");
  EXPECT_EQ(wait_exit(spawn_stereo({"--data", r, "data", "verify"}, log)), 1);
  EXPECT_NE(read_all(log).find("middlebury-v2: venus/gt.png has SHA-256"), std::string::npos) << read_all(log);
}

TEST(DataCli, CtrlCLeavesNothingInTheDataRoot) {
  LoopbackServer server;
  TempDir root, scratch;
  TestSet t;
  // ETH3D's first archive under the mirror, held open after a third of it.
  const data::Dataset& eth = data::find_dataset("eth3d-two-view");
  const std::string path = "/mirror/" + eth.sources[0].url.substr(eth.sources[0].url.find("://") + 3);
  server.put(path, t.archive);
  std::atomic<bool> stalled{false};
  server.fault_after(t.archive.size() / 3, [&] { stalled = true; }, 20000);
  const fs::path log = scratch.path / "log.txt";
  const pid_t pid = spawn_stereo({"--data", root.path.string(), "data", "get", "eth3d-two-view", "--mirror",
                                  server.url("/mirror")}, log);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!stalled && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(stalled.load());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(pid, SIGINT);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(wait_exit(pid), 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));  // well before the stall ends
  EXPECT_NE(read_all(log).find("stereo: error: data: interrupted"), std::string::npos) << read_all(log);
  EXPECT_TRUE(visible(root.path).empty());
  expect_staging_clean(root.path);
}
