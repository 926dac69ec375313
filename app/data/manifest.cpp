#include "app/data/manifest.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "core/error.h"

namespace stereo::data {
namespace fs = std::filesystem;

fs::path Manifest::path(const fs::path& root) { return root / "stereo-data.manifest"; }

Manifest Manifest::load(const fs::path& root) {
  Manifest m;
  const fs::path file = path(root);
  std::error_code ec;
  if (!fs::exists(file, ec)) return m;
  std::ifstream in(file);
  require(bool(in), "data: cannot read " + file.string());
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string kind, dataset;
    Recorded r;
    fields >> kind;
    if (kind == "file") fields >> dataset;
    fields >> r.sha256 >> r.bytes >> std::ws;
    std::string rest;
    std::getline(fields, rest);
    require((kind == "source" || kind == "file") && r.sha256.size() == 64 && !rest.empty(),
            "data: " + file.string() + " line " + std::to_string(number) + " is malformed: '" + line + "'");
    if (kind == "source")
      m.sources[rest] = r;
    else
      m.files[dataset][rest] = r;
  }
  return m;
}

void Manifest::save(const fs::path& root) const {
  const fs::path file = path(root);
  const fs::path tmp = file.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    require(bool(out), "data: cannot write " + tmp.string());
    out << "# stereo data: SHA-256 of each download (pinned on the first) and of each installed file\n";
    for (const auto& [url, r] : sources) out << "source " << r.sha256 << ' ' << r.bytes << ' ' << url << '\n';
    for (const auto& [dataset, entries] : files)
      for (const auto& [rel, r] : entries) out << "file " << dataset << ' ' << r.sha256 << ' ' << r.bytes << ' ' << rel << '\n';
    out.close();
    require(!out.fail(), "data: cannot write " + tmp.string() + " (disk full?)");
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) {
    fs::remove(tmp);
    throw Error("data: cannot replace " + file.string() + ": " + ec.message());
  }
}

}  // namespace stereo::data
