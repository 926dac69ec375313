// The shape every method follows (docs/architecture.md), checked on the source tree and the built
// registry: each registered method has its tests and its docs page, and no layer includes a layer
// above it or a backend beside it.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/registry.h"
#include "methods/builtin.h"

namespace stereo {
namespace {

namespace fs = std::filesystem;

const fs::path SOURCE = STEREO_SOURCE_DIR;

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

/// One row of the manifest stereo_add_method writes: the folder, the registry names it
/// registers, and its test files per test executable.
struct FolderRow {
  std::string folder;
  std::vector<std::string> registers;
  std::map<std::string, std::vector<std::string>> tests;  // "cpu", "gl", "cuda"
};

std::vector<FolderRow> read_manifest() {
  std::ifstream in(STEREO_METHOD_MANIFEST);
  EXPECT_TRUE(in) << "no method manifest at " << STEREO_METHOD_MANIFEST;
  std::vector<FolderRow> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream s(line);
    for (std::string f; std::getline(s, f, '|');) fields.push_back(f);
    fields.resize(5);
    rows.push_back({fields[0], words(fields[1]), {{"cpu", words(fields[2])}, {"gl", words(fields[3])}, {"cuda", words(fields[4])}}});
  }
  return rows;
}

/// The test executable a backend's tests belong to.
std::string test_kind(const std::string& backend) {
  if (backend == "gl" || backend == "glcompute") return "gl";
  if (backend == "cuda") return "cuda";
  return "cpu";  // cpu, and peers such as opencv, which run on the host
}

TEST(Layout, EveryRegisteredBackendHasTestsInItsMethodFolder) {
  const std::vector<FolderRow> manifest = read_manifest();
  ASSERT_FALSE(manifest.empty());
  for (const BackendEntry& e : builtin_registry().entries()) {
    const FolderRow* row = nullptr;
    for (const FolderRow& r : manifest)
      for (const std::string& name : r.registers)
        if (name == e.method) row = &r;
    ASSERT_NE(row, nullptr) << e.method << " is registered but no stereo_add_method(... REGISTERS " << e.method
                            << ") names it";
    const auto& tests = row->tests.at(test_kind(e.backend));
    EXPECT_FALSE(tests.empty()) << e.method << "/" << e.backend << ": methods/" << row->folder
                                << "/CMakeLists.txt lists no TESTS_" << test_kind(e.backend);
    for (const std::string& t : tests)
      EXPECT_TRUE(fs::exists(SOURCE / "methods" / row->folder / "tests" / t))
          << "methods/" << row->folder << "/tests/" << t << " is listed but missing";
  }
}

TEST(Layout, EveryMethodHasADocsPageNamingEachParameter) {
  for (const MethodInfo& m : builtin_registry().methods()) {
    const fs::path page = SOURCE / "docs" / "methods" / (m.name + ".md");
    ASSERT_TRUE(fs::exists(page)) << m.name << " is registered but docs/methods/" << m.name << ".md is missing";
    const std::string text = read_text(page);
    // Every "key = default  (doc)" line of the parameter table: the page names the key.
    std::istringstream table(m.describe_params());
    for (std::string line; std::getline(table, line);) {
      const std::string key = line.substr(0, line.find(' '));
      if (key.empty()) continue;
      EXPECT_NE(text.find("`" + key + "`"), std::string::npos)
          << "docs/methods/" << m.name << ".md does not name the parameter `" << key << "`";
    }
  }
}

/// The project includes ("dir/...") of every C++ and CUDA source under `dir`.
std::map<std::string, std::set<std::string>> includes_under(const fs::path& dir) {
  static const std::regex include(R"re(#include "([a-z_]+)/)re");
  std::map<std::string, std::set<std::string>> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cpp" && ext != ".cu" && ext != ".cuh") continue;
    const std::string text = read_text(entry.path());
    for (std::sregex_iterator it(text.begin(), text.end(), include), end; it != end; ++it)
      out[fs::relative(entry.path(), SOURCE).string()].insert((*it)[1].str());
  }
  return out;
}

/// "stereo/" (include/stereo/, the public headers, which include nothing of the project) lies
/// beneath every layer: core declares its public types there, so any layer may include it.
void expect_only(const std::map<std::string, std::set<std::string>>& found, const std::set<std::string>& allowed,
                 const std::string& layer) {
  for (const auto& [file, tops] : found)
    for (const std::string& top : tops)
      EXPECT_TRUE(allowed.count(top) || top == "stereo") << file << " (" << layer << ") includes " << top << "/";
}

TEST(Layout, CoreIncludesOnlyItself) { expect_only(includes_under(SOURCE / "core"), {"core"}, "core"); }

TEST(Layout, BackendFramesIncludeOnlyCoreAndThemselves) {
  expect_only(includes_under(SOURCE / "reference"), {"core", "reference"}, "the cpu backend");
  expect_only(includes_under(SOURCE / "cuda"), {"core", "cuda"}, "the CUDA backend");
  expect_only(includes_under(SOURCE / "gl"), {"core", "gl"}, "the GL backend");
}

// A method's backend code sees core, its backend's frame and its own folder (model header,
// Params, register.h); the reference and the GPU code never include each other: only tests see
// both backends.
TEST(Layout, MethodBackendsIncludeNoOtherBackendAndNoApp) {
  for (const auto& method : fs::directory_iterator(SOURCE / "methods")) {
    if (!method.is_directory()) continue;
    for (const auto& [sub, frame] : std::map<std::string, std::string>{
             {"reference", "reference"}, {"cuda", "cuda"}, {"gl", "gl"}, {"opencv", ""}}) {
      if (!fs::exists(method.path() / sub)) continue;
      std::set<std::string> allowed{"core", "methods"};
      if (!frame.empty()) allowed.insert(frame);
      const auto found = includes_under(method.path() / sub);
      expect_only(found, allowed, method.path().filename().string() + "/" + sub);
      for (const auto& [file, tops] : found) {
        const std::string text = read_text(SOURCE / file);
        for (const std::string other : {"reference", "cuda", "gl", "opencv"}) {
          if (other == sub) continue;
          EXPECT_EQ(text.find("#include \"methods/" + method.path().filename().string() + "/" + other + "/"),
                    std::string::npos)
              << file << " (" << sub << ") includes its method's " << other << " backend";
        }
      }
    }
  }
}

// The public headers (include/stereo/ and each method's include/stereo/<method>.h, installed
// together by cmake/StereoInstall.cmake and stereo_add_method): each includes only another public
// header ("stereo/<name>.h") and standard headers (<vector>), so the installed library stands alone.
// tests/test_install.sh checks the same of the installed tree with the preprocessor itself.
TEST(Layout, PublicHeadersIncludeOnlyEachOtherAndTheStandardLibrary) {
  static const std::regex include_line(R"re(^\s*#\s*include\s*([<"])([^>"]+)[>"])re");
  std::map<std::string, fs::path> public_headers;  // "stereo/<name>.h" -> file
  for (const auto& e : fs::directory_iterator(SOURCE / "include" / "stereo"))
    public_headers["stereo/" + e.path().filename().string()] = e.path();
  for (const auto& method : fs::directory_iterator(SOURCE / "methods")) {
    const fs::path dir = method.path() / "include" / "stereo";
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      EXPECT_EQ(e.path().filename().string(), method.path().filename().string() + ".h")
          << e.path() << ": a method's public header is include/stereo/<folder>.h";
      EXPECT_FALSE(public_headers.count("stereo/" + e.path().filename().string())) << e.path() << " twice";
      public_headers["stereo/" + e.path().filename().string()] = e.path();
    }
  }
  ASSERT_TRUE(public_headers.count("stereo/stereo.h") && public_headers.count("stereo/adcensus.h") &&
              public_headers.count("stereo/testing.h"));
  for (const auto& [name, file] : public_headers) {
    std::istringstream lines(read_text(file));
    for (std::string line; std::getline(lines, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, include_line)) continue;
      const std::string target = m[2].str();
      if (m[1].str() == "<") {
        EXPECT_EQ(target.find_first_of("./"), std::string::npos)
            << name << " includes <" << target << ">, which is not a standard library header";
      } else {
        EXPECT_TRUE(public_headers.count(target)) << name << " includes \"" << target << "\", not a public header";
      }
    }
  }
}

}  // namespace
}  // namespace stereo
