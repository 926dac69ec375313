#pragma once
// Helpers shared by the tests that run the `stereo` binary or write files of their own: a
// fresh folder per test, a file's bytes, and one CLI run with its output captured.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace stereo::test {

/// The whole of a file, byte for byte ("" where it cannot be opened).
inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A new, empty folder under the temp directory named `<prefix><pid>_<current test's name>`,
/// so that tests running in parallel processes never share one.
inline std::filesystem::path fresh_test_dir(const std::string& prefix) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      (prefix + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// One CLI run: its exit code (-1 where it did not exit normally), stdout and stderr.
struct CliOutcome {
  int code;
  std::string out, err;
};

/// Runs `stereo <args>` (the binary at STEREO_BIN, through the shell) with stdout and stderr
/// captured in the files `dir`/stdout and `dir`/stderr.
inline CliOutcome run_stereo(const std::filesystem::path& dir, const std::string& args) {
  const std::string cmd =
      std::string(STEREO_BIN) + " " + args + " >" + (dir / "stdout").string() + " 2>" + (dir / "stderr").string();
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "stdout"), slurp(dir / "stderr")};
}

}  // namespace stereo::test
