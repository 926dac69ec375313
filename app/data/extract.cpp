#include "app/data/extract.h"

#include <archive.h>
#include <archive_entry.h>

#include <fstream>
#include <memory>
#include <set>
#include <string>

#include "app/data/interrupt.h"
#include "core/error.h"

namespace stereo::data {
namespace fs = std::filesystem;
namespace {

struct ArchiveDeleter {
  void operator()(struct archive* a) const noexcept { archive_read_free(a); }
};

// The entry's path relative to the archive's root, or an empty path when it would leave it.
fs::path contained(const std::string& name) {
  if (name.empty() || name.front() == '/') return {};
  fs::path out;
  for (const fs::path& part : fs::path(name)) {
    const std::string p = part.string();
    if (p == "..") return {};
    if (p.empty() || p == ".") continue;
    out /= part;
  }
  return out;
}

// A link at `entry` pointing to `target` (relative to the link's folder) stays inside when its
// lexically normal form does not climb above the root.
bool link_stays_inside(const fs::path& entry, const std::string& target) {
  if (target.empty() || target.front() == '/') return false;
  const fs::path joined = (entry.parent_path() / target).lexically_normal();
  return !joined.empty() && *joined.begin() != ".." && !joined.is_absolute();
}

class Unpacker {
 public:
  Unpacker(const fs::path& archive, const fs::path& dest, const ExtractLimits& limits)
      : archive_(archive), dest_(dest), limits_(limits) {
    std::error_code ec;
    archive_bytes_ = fs::file_size(archive, ec);
    require(!ec, "data: cannot read " + archive.string() + ": " + ec.message());
  }

  void run() {
    std::unique_ptr<struct archive, ArchiveDeleter> a(archive_read_new());
    require(a != nullptr, "data: libarchive could not start");
    archive_read_support_filter_all(a.get());
    archive_read_support_format_all(a.get());
    require(archive_read_open_filename(a.get(), archive_.c_str(), 1 << 16) == ARCHIVE_OK,
            "data: cannot open archive " + archive_.string() + ": " + error(a.get()));
    fs::create_directories(dest_);
    struct archive_entry* entry = nullptr;
    for (;;) {
      throw_if_interrupted("data");
      const int rc = archive_read_next_header(a.get(), &entry);
      if (rc == ARCHIVE_EOF) break;
      require(rc == ARCHIVE_OK || rc == ARCHIVE_WARN,
              "data: " + archive_.string() + " is damaged or not an archive: " + error(a.get()));
      require(++entries_ <= limits_.max_entries, refusal("more than " + std::to_string(limits_.max_entries) + " entries"));
      unpack(a.get(), entry);
    }
  }

 private:
  static std::string error(struct archive* a) {
    const char* e = archive_error_string(a);
    return e != nullptr ? e : "unknown libarchive error";
  }

  std::string refusal(const std::string& why) const {
    return "data: refusing archive " + archive_.filename().string() + ": " + why;
  }

  // No entry may be written through a link an earlier entry made.
  void check_no_link_above(const fs::path& rel) const {
    fs::path prefix;
    for (const fs::path& part : rel) {
      prefix /= part;
      require(links_.count(prefix) == 0, refusal("entry '" + rel.string() + "' goes through the link '" + prefix.string() + "'"));
    }
  }

  void unpack(struct archive* a, struct archive_entry* entry) {
    const char* raw = archive_entry_pathname(entry);
    const std::string name = raw != nullptr ? raw : "";
    const fs::path rel = contained(name);
    require(!rel.empty() || name == "." || name == "./", refusal("entry '" + name + "' lies outside the archive's root"));
    if (rel.empty()) return;
    check_no_link_above(rel);
    const fs::path out = dest_ / rel;
    if (const char* hard = archive_entry_hardlink(entry)) {
      const fs::path target = contained(hard);
      require(!target.empty(), refusal("hard link '" + name + "' points to '" + hard + "', outside the archive's root"));
      check_no_link_above(target);
      fs::create_directories(out.parent_path());
      fs::copy_file(dest_ / target, out, fs::copy_options::overwrite_existing);
      return;
    }
    switch (archive_entry_filetype(entry)) {
      case AE_IFDIR: fs::create_directories(out); return;
      case AE_IFLNK: {
        const char* t = archive_entry_symlink(entry);
        const std::string target = t != nullptr ? t : "";
        require(link_stays_inside(rel, target), refusal("link '" + name + "' points to '" + target + "', outside the archive's root"));
        fs::create_directories(out.parent_path());
        std::error_code ec;
        fs::remove(out, ec);
        fs::create_symlink(target, out);
        links_.insert(rel);
        return;
      }
      case AE_IFREG: write_file(a, entry, rel, out); return;
      default: throw Error(refusal("entry '" + name + "' is neither a file, a folder nor a link"));
    }
  }

  // Refuses when `total` unpacked bytes would pass a limit.
  void check(std::uint64_t total, const fs::path& rel) const {
    require(total <= limits_.max_bytes,
            refusal("it unpacks to more than " + std::to_string(limits_.max_bytes) + " bytes (at '" + rel.string() + "')"));
    if (total > limits_.ratio_floor_bytes)
      require(double(total) <= limits_.max_ratio * double(archive_bytes_),
              refusal("it unpacks to more than " + std::to_string(int(limits_.max_ratio)) + "x its " +
                      std::to_string(archive_bytes_) + " bytes (an archive bomb?) at '" + rel.string() + "'"));
  }

  void write_file(struct archive* a, struct archive_entry* entry, const fs::path& rel, const fs::path& out) {
    // The size the header declares is checked first: a bomb is refused before a byte is written.
    // The bytes written are counted too, since a header may lie.
    if (archive_entry_size_is_set(entry) != 0 && archive_entry_size(entry) > 0)
      check(written_ + static_cast<std::uint64_t>(archive_entry_size(entry)), rel);
    fs::create_directories(out.parent_path());
    std::ofstream file(out, std::ios::binary | std::ios::trunc);
    require(bool(file), "data: cannot write " + out.string());
    const void* block = nullptr;
    std::size_t size = 0;
    la_int64_t offset = 0;
    for (;;) {
      throw_if_interrupted("data");
      const int rc = archive_read_data_block(a, &block, &size, &offset);
      if (rc == ARCHIVE_EOF) break;
      require(rc == ARCHIVE_OK || rc == ARCHIVE_WARN,
              "data: " + archive_.string() + ": cannot unpack '" + rel.string() + "': " + error(a));
      written_ += size;
      check(written_, rel);
      file.seekp(offset);
      file.write(static_cast<const char*>(block), static_cast<std::streamsize>(size));
    }
    file.close();
    require(!file.fail(), "data: cannot write " + out.string() + " (disk full?)");
  }

  fs::path archive_, dest_;
  ExtractLimits limits_;
  std::uint64_t archive_bytes_ = 0, written_ = 0, entries_ = 0;
  std::set<fs::path> links_;
};

}  // namespace

void extract_archive(const fs::path& archive, const fs::path& dest, const ExtractLimits& limits) {
  Unpacker(archive, dest, limits).run();
}

}  // namespace stereo::data
