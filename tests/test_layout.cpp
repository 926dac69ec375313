// The shape every method follows (docs/architecture.md), checked on the source tree and the built
// registry: each registered method has its tests and its docs page, no layer includes a layer
// above it or a backend beside it, and no code outside methods/ names a method's folder.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
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

// ---- method knowledge stays in the method's folder ---------------------------------------

// Adding a method edits nothing outside methods/<folder>/ but its add_subdirectory line in
// methods/CMakeLists.txt and the README's table. So no code outside the allowed places below may
// name a method folder's path (methods/<folder>), its namespaces (stereo::cu::<folder>,
// <folder>::, <folder>_cuda::) or its registration functions (register_<folder>...,
// <name>_method_info). Tests and tools that need a method take it from the registry or from the
// cases the method declares (tests/method_cases.h); the app-level tests may still run a method
// by its registered name, as a user would (the rule heads tests/CMakeLists.txt).

/// The places that may name a method, and why; everything else in the source tree (every
/// top-level folder and file but .git, build trees and what git ignores) is scanned.
const std::vector<std::pair<std::string, std::string>> ALLOWED_MENTIONS = {
    {"methods/", "the methods' own folders, and methods/CMakeLists.txt's one add_subdirectory line per method"},
    {"README.md", "the table of methods"},
    {"examples/", "programs a user reads, as the README: they show a method by its name"},
    {"docs/", "the pages that describe each method (docs/methods/<name>.md) and the design"},
    {"*.md", "notes beside the code (a backend's STATE.md) describe what runs on it"},
};

bool is_allowed(const std::string& rel) {
  for (const auto& [place, why] : ALLOWED_MENTIONS) {
    if (place.rfind("*.", 0) == 0) {
      const std::string ext = place.substr(1);
      if (rel.size() >= ext.size() && rel.compare(rel.size() - ext.size(), ext.size(), ext) == 0) return true;
    } else if (rel.rfind(place, 0) == 0) {
      return true;
    }
  }
  return false;
}

bool is_code(const fs::path& path) {
  static const std::set<std::string> exts{".h",    ".hpp",  ".cpp", ".cc",  ".c",     ".cu",  ".cuh", ".frag",
                                          ".vert", ".comp", ".glsl", ".py", ".pyi",   ".sh",  ".cmake", ".in",
                                          ".toml", ".cfg"};
  return exts.count(path.extension().string()) || path.filename() == "CMakeLists.txt";
}

/// The patterns that name a method folder `folder` or a registered name `name` in code.
std::vector<std::regex> method_patterns(const std::string& n) {
  return {std::regex("methods/" + n + "\\b"),                      // its path
          std::regex("\\b" + n + "\\w*::"),                        // a qualifier: m::, m_cuda::
          std::regex("::" + n + "\\b"),                            // cu::m
          std::regex("namespace\\s+[\\w:]*\\b" + n + "\\w*"),      // namespace stereo::cu::m
          std::regex("\\bregister_" + n + "(_\\w+)?\\b"),          // register_m, register_m_gl
          std::regex("\\b" + n + "_method_info\\b")};
}

/// `line` without its comment: a line that starts one (`//`, `/*`, a block comment's `*`, or `#`
/// where `hash` says the language comments so) is all comment; a C-family line loses what follows
/// `//`. A block comment's middle lines start with `*` by this codebase's style.
std::string code_part(const std::string& line, bool hash) {
  const std::size_t first = line.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  const std::string rest = line.substr(first);
  if (rest.rfind("//", 0) == 0 || rest.rfind("/*", 0) == 0 || rest.rfind("*", 0) == 0) return {};
  if (hash && rest.rfind("#", 0) == 0) return {};
  if (hash) return line;
  const std::size_t slashes = line.find("//");
  return slashes == std::string::npos ? line : line.substr(0, slashes);
}

/// What git ignores in the source tree (.gitignore, .git/info/exclude: a contributor's scratch
/// folders and copies), as git lists it: paths relative to the tree, folders ending in '/'.
/// Empty where the tree is no git checkout or git does not run; then everything is scanned.
std::vector<std::string> ignored_by_git() {
  std::vector<std::string> out;
  if (!fs::exists(SOURCE / ".git")) return out;
  const std::string command =
      "git -C '" + SOURCE.string() + "' ls-files --others --ignored --exclude-standard --directory 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  std::string text;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
  if (::pclose(pipe) != 0) return out;  // no git, or not a checkout git reads: scan everything
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

bool is_ignored(const std::string& rel, const std::vector<std::string>& ignored) {
  for (const std::string& i : ignored)
    if (i.back() == '/' ? rel.rfind(i, 0) == 0 : rel == i) return true;
  return false;
}

/// The code files outside the allowed places that name a method, with the first line that does.
std::map<std::string, std::string> method_mentions_outside_methods(const std::vector<FolderRow>& manifest) {
  std::set<std::string> names;
  for (const FolderRow& row : manifest) {
    names.insert(row.folder);
    names.insert(row.registers.begin(), row.registers.end());
  }
  std::vector<std::pair<std::string, std::regex>> patterns;
  for (const std::string& n : names)
    for (std::regex& r : method_patterns(n)) patterns.emplace_back(n, std::move(r));
  std::vector<fs::path> files;
  for (const auto& top : fs::directory_iterator(SOURCE)) {
    const std::string name = top.path().filename().string();
    // .git, and build trees configured inside the source tree.
    if (name == ".git" || fs::exists(top.path() / "CMakeCache.txt")) continue;
    if (top.is_regular_file()) {
      if (is_code(top.path())) files.push_back(top.path());
      continue;
    }
    for (auto it = fs::recursive_directory_iterator(top.path()); it != fs::recursive_directory_iterator(); ++it) {
      if (it->is_directory() && fs::exists(it->path() / "CMakeCache.txt")) it.disable_recursion_pending();
      if (it->is_regular_file() && is_code(it->path())) files.push_back(it->path());
    }
  }
  const std::vector<std::string> ignored = ignored_by_git();
  std::map<std::string, std::string> found;
  for (const fs::path& file : files) {
    const std::string rel = fs::relative(file, SOURCE).generic_string();
    if (is_allowed(rel) || is_ignored(rel, ignored)) continue;
    std::istringstream text(read_text(file));
    int number = 0;
    const bool hash_comments = file.extension() == ".py" || file.extension() == ".sh" ||
                               file.extension() == ".cmake" || file.extension() == ".toml" ||
                               file.extension() == ".cfg" || file.filename() == "CMakeLists.txt";
    for (std::string line; std::getline(text, line) && !found.count(rel);) {
      ++number;
      // Comments may name a method as an example or a user of what the file holds: adding a
      // method needs no comment edited. The rule is for code.
      line = code_part(line, hash_comments);
      for (const auto& [name, r] : patterns)
        if (line.find(name) != std::string::npos && std::regex_search(line, r)) {
          found[rel] = std::to_string(number) + ": names " + name + ": " + line;
          break;
        }
    }
  }
  return found;
}

TEST(Layout, NoCodeOutsideMethodsNamesAMethod) {
  const std::vector<FolderRow> manifest = read_manifest();
  ASSERT_FALSE(manifest.empty());
  for (const auto& [file, where] : method_mentions_outside_methods(manifest))
    ADD_FAILURE() << file << ":" << where
                  << "\n  a method's knowledge belongs in its folder: take the method from the registry or from"
                     " the cases it declares (tests/method_cases.h), or move the test into methods/<folder>/tests/";
}

// The scan itself, on a made-up method (a real one named here would fail the scan): each
// pattern finds what it is for, and the name is not found in words that merely contain it.
TEST(Layout, MethodMentionPatternsFindPathsAndNamespaces) {
  const auto hits = [](const std::string& line) {
    for (const std::regex& r : method_patterns("newmethod"))
      if (std::regex_search(line, r)) return true;
    return false;
  };
  EXPECT_TRUE(hits("#include \"methods/newmethod/params.h\""));
  EXPECT_TRUE(hits("namespace nm = cu::newmethod;"));
  EXPECT_TRUE(hits("namespace stereo::cu::newmethod {"));
  EXPECT_TRUE(hits("newmethod::Params p;"));
  EXPECT_TRUE(hits("register_newmethod_cpu(r);"));
  EXPECT_TRUE(hits("const MethodInfo m = newmethod_method_info();"));
  EXPECT_FALSE(hits("create_matcher(first_method(\"cuda\"), \"cuda\", {});"));
  EXPECT_FALSE(hits("methods/newmethodx/"));
  EXPECT_FALSE(hits("the methods' own folders"));
  // The allowed places, and only they.
  EXPECT_TRUE(is_allowed("methods/CMakeLists.txt"));
  EXPECT_TRUE(is_allowed("README.md"));
  EXPECT_TRUE(is_allowed("docs/methods/newmethod.md"));
  EXPECT_TRUE(is_allowed("gl/STATE.md"));
  EXPECT_FALSE(is_allowed("tests/test_stream.cpp"));
  EXPECT_FALSE(is_allowed("CMakeLists.txt"));
  EXPECT_FALSE(is_allowed("app/methods/x.h"));
  EXPECT_FALSE(is_allowed("gl/STATE.md.in"));
}

}  // namespace
}  // namespace stereo
