#include "app/data/installed.h"

#include <system_error>

#include "app/data/manifest.h"

namespace stereo::data {

namespace fs = std::filesystem;

std::vector<DatasetStatus> dataset_status(const fs::path& root) {
  const Manifest manifest = Manifest::load(root);
  std::vector<DatasetStatus> out;
  for (const Dataset& d : catalog()) {
    DatasetStatus s;
    s.dataset = &d;
    std::error_code ec;
    s.installed = fs::is_directory(root / d.name, ec);
    if (s.installed)
      for (const auto& e : fs::recursive_directory_iterator(root / d.name, ec))
        if (e.is_regular_file(ec)) s.bytes += e.file_size(ec);
    if (const auto it = manifest.files.find(d.name); it != manifest.files.end()) s.recorded_files = it->second.size();
    out.push_back(s);
  }
  return out;
}

}  // namespace stereo::data
