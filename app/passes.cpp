#include "app/passes.h"

#include <nlohmann/json.hpp>

#include <fnmatch.h>
#include <stb_image_write.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>
#include <system_error>
#include <utility>

#include "app/bitmap_font.h"
#include "app/image_io.h"
#include "core/error.h"

namespace stereo {
namespace fs = std::filesystem;

namespace {

constexpr int PAD = 2;                                // around the labels and between panels
constexpr std::array<std::uint8_t, 3> LABEL_INK = {255, 255, 255};
constexpr std::array<std::uint8_t, 3> NON_FINITE = {255, 0, 255};
constexpr std::array<std::uint8_t, 3> BACKGROUND = {32, 32, 48};

// The channels of slice `slice` that hold a disparity inside `range` (all of them without one).
int channels_in_range(const PassLayout& l, int slice, const std::optional<DisparityRange>& range) {
  if (!range || l.disparities_per_slice == 0) return l.channels;
  int n = 0;
  while (n < l.channels && l.disparity(slice, n) <= range->max()) ++n;
  return n;
}

// The pass name as a file name: what is not a letter, digit or one of "._+-" becomes '_'
// (crossrt's "arms x").
std::string stem(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '+' && c != '-') c = '_';
  return out;
}

std::string channel_label(const PassLayout& l, int slice, int channel) {
  // Appended rather than "d=" + to_string(): GCC 12's -Wrestrict misfires on that form.
  const int d = l.disparity(slice, channel);
  std::string label = l.disparities_per_slice > 0 ? "d=" : "c";
  label += std::to_string(l.disparities_per_slice > 0 ? d : channel);
  return label;
}

// The bytes write_png writes for `img` (stb's encoder, as there): encoded first, so that the
// dump knows its size before it writes anything.
std::vector<std::uint8_t> encode_png(const ImageU8& img) {
  std::vector<std::uint8_t> out;
  const auto append = [](void* context, void* data, int size) {
    auto* bytes = static_cast<std::vector<std::uint8_t>*>(context);
    const auto* first = static_cast<const std::uint8_t*>(data);
    bytes->insert(bytes->end(), first, first + size);
  };
  if (!stbi_write_png_to_func(append, &out, img.width, img.height, img.channels, img.data.data(),
                              img.width * img.channels))
    throw Error("dump-passes: the PNG encoder failed on a " + std::to_string(img.width) + "x" +
                std::to_string(img.height) + "x" + std::to_string(img.channels) + " image");
  return out;
}

void write_bytes(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  write_atomically(path, [&](const fs::path& tmp) {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw Error("cannot write " + path.string() + ": cannot open for writing");
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) throw Error("cannot write " + path.string() + ": write failed");
  });
}

// The size of the file write_pfm (app/image_io.h) writes for a width x height map: its header,
// then the rows of 4-byte floats.
std::uintmax_t pfm_bytes(int width, int height) {
  const std::string header = "Pf\n" + std::to_string(width) + " " + std::to_string(height) + "\n-1\n";
  return header.size() + std::uintmax_t(width) * std::uintmax_t(height) * 4u;
}

// A fresh folder beside `dir` for the dump, refusing a `dir` that holds anything.
fs::path prepare(const fs::path& dir) {
  std::error_code ec;
  require(!dir.empty(), "dump-passes: the output folder is empty", ErrorKind::invalid_argument);
  const fs::path parent = dir.parent_path().empty() ? fs::path(".") : dir.parent_path();
  require(fs::is_directory(parent, ec),
          "dump-passes: cannot write " + dir.string() + ": folder " + parent.string() + " does not exist",
          ErrorKind::invalid_argument);
  if (fs::exists(dir, ec)) {
    require(fs::is_directory(dir, ec), "dump-passes: " + dir.string() + " exists and is not a folder",
            ErrorKind::invalid_argument);
    require(fs::is_empty(dir, ec), "dump-passes: " + dir.string() + " exists and is not empty",
            ErrorKind::invalid_argument);
  }
  std::string name = ".";  // appended: GCC 12's -Wrestrict misfires on "." + string
  name += dir.filename().string();
  name += ".part-";
  name += std::to_string(::getpid());
  fs::path tmp = parent / name;
  fs::remove_all(tmp, ec);
  fs::create_directory(tmp, ec);
  require(!ec, "dump-passes: cannot create " + tmp.string() + ": " + ec.message());
  return tmp;
}

}  // namespace

std::string slice_png_name(const PassLayout& l, int slice, int channels) {
  if (l.disparities_per_slice == 0) return stem(l.name) + ".png";
  const int first = l.disparity(slice, 0);
  const int last = l.disparities_per_slice == 1 ? first : l.disparity(slice, std::max(channels, 1) - 1);
  return stem(l.name) + "_d" + std::to_string(first) + "-" + std::to_string(last) + ".png";
}

std::string channel_pfm_name(const PassLayout& l, int slice, int channel) {
  if (l.disparities_per_slice == 0)
    return l.channels == 1 ? stem(l.name) + ".pfm" : stem(l.name) + "_c" + std::to_string(channel) + ".pfm";
  return stem(l.name) + "_d" + std::to_string(l.disparity(slice, channel)) + ".pfm";
}

ImageU8 render_slice(const PassLayout& l, int slice, const ImageF& values, float lo, float hi, int channels) {
  const int scale = l.width >= 200 ? 2 : 1;
  std::string title = l.label(slice);
  if (l.disparities_per_slice > 1 && channels < l.disparities_per_slice) {  // a last quad cut at the range
    title = l.name;
    title += ", disparities ";
    title += std::to_string(l.disparity(slice, 0));
    title += "..";
    title += std::to_string(l.disparity(slice, channels - 1));
  }
  const int text_h = GLYPH_HEIGHT * scale;
  const int panels_w = channels * l.width + (channels - 1) * PAD;
  const int width = std::max(panels_w, text_width(title, scale)) + 2 * PAD;
  const bool sub_labels = l.channels > 1;
  const int top = PAD + text_h + PAD + (sub_labels ? text_h + PAD : 0);
  ImageU8 out(width, top + l.height + PAD, 3);
  for (int i = 0; i < out.width * out.height; ++i)
    for (int c = 0; c < 3; ++c) out.data[std::size_t(i) * 3 + std::size_t(c)] = BACKGROUND[std::size_t(c)];
  draw_text(out, PAD, PAD, title, scale, LABEL_INK);
  const float span = hi > lo ? hi - lo : 1.0f;
  for (int k = 0; k < channels; ++k) {
    const int x0 = PAD + k * (l.width + PAD);
    if (sub_labels) draw_text(out, x0, PAD + text_h + PAD, channel_label(l, slice, k), scale, LABEL_INK);
    for (int y = 0; y < l.height; ++y)
      for (int x = 0; x < l.width; ++x) {
        const float v = values.at(x, y, k);
        std::array<std::uint8_t, 3> rgb = NON_FINITE;
        if (std::isfinite(v)) {
          const auto g = std::uint8_t(std::lround(std::clamp((v - lo) / span, 0.0f, 1.0f) * 255.0f));
          rgb = {g, g, g};
        }
        for (int c = 0; c < 3; ++c) out.at(x0 + x, top + y, c) = rgb[std::size_t(c)];
      }
  }
  return out;
}

bool pass_selected(const std::string& name, const std::vector<std::string>& patterns) {
  if (patterns.empty()) return true;
  const std::string stage = name.substr(0, name.find('.'));
  for (const std::string& p : patterns)
    if (::fnmatch(p.c_str(), name.c_str(), 0) == 0 || ::fnmatch(p.c_str(), stage.c_str(), 0) == 0) return true;
  return false;
}

std::string describe_size(const PassDumpSize& size) {
  std::ostringstream out;
  out << size.files << " files, " << std::fixed << std::setprecision(1) << double(size.bytes) / 1e6 << " MB ("
      << size.bytes << " bytes)";
  return out.str();
}

namespace {

// One pass as the dump writes it: its PNGs encoded, its PFMs to be read again when written.
struct PlannedPass {
  PassLayout layout;
  float lo = 0.0f, hi = 0.0f;
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> pngs;  // name, encoded file
  std::vector<std::pair<int, int>> pfms;                                // (slice, channel) per PFM
  nlohmann::json files = nlohmann::json::array();                       // in the order written
};

// The layouts `patterns` select, in pipeline order; a pattern that selects none is an error.
std::vector<PassLayout> selected(const std::vector<PassLayout>& layouts, const std::vector<std::string>& patterns,
                                 const std::string& component) {
  std::vector<PassLayout> out;
  for (const PassLayout& l : layouts)
    if (pass_selected(l.name, patterns)) out.push_back(l);
  for (const std::string& p : patterns) {
    bool any = false;
    for (const PassLayout& l : layouts) any = any || pass_selected(l.name, {p});
    if (any) continue;
    std::string names;
    for (const PassLayout& l : layouts) names += (names.empty() ? "" : ", ") + l.name;
    throw Error("dump-passes: stage pattern '" + p + "' matches no pass of " + component + " (passes: " + names + ")",
                ErrorKind::invalid_argument);
  }
  return out;
}

// Reads every slice of `l`: the value range (one scale per pass, so its slices compare by
// eye), the PNGs encoded, the PFMs listed.
PlannedPass plan(PassInspector& inspector, const PassLayout& l, const std::optional<DisparityRange>& range,
                 const std::string& component) {
  PlannedPass p;
  p.layout = l;
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (int s = 0; s < l.slices; ++s) {
    const ImageF v = inspector.read(l.name, s);
    require(v.width == l.width && v.height == l.height && v.channels == l.channels,
            "dump-passes: " + component + " pass " + l.name + " read " + std::to_string(v.width) + "x" +
                std::to_string(v.height) + "x" + std::to_string(v.channels) + ", its layout says " +
                std::to_string(l.width) + "x" + std::to_string(l.height) + "x" + std::to_string(l.channels));
    const int n = channels_in_range(l, s, range);
    for (std::size_t i = 0; i < v.data.size(); ++i)
      if (int(i % std::size_t(l.channels)) < n && std::isfinite(v.data[i])) {
        lo = std::min(lo, v.data[i]);
        hi = std::max(hi, v.data[i]);
      }
  }
  if (lo > hi) lo = hi = 0.0f;
  p.lo = lo;
  p.hi = hi;
  for (int s = 0; s < l.slices; ++s) {
    const int n = channels_in_range(l, s, range);
    if (n == 0) continue;
    const std::string png = slice_png_name(l, s, n);
    p.pngs.emplace_back(png, encode_png(render_slice(l, s, inspector.read(l.name, s), lo, hi, n)));
    p.files.push_back(png);
    for (int k = 0; k < n; ++k) {
      p.pfms.emplace_back(s, k);
      p.files.push_back(channel_pfm_name(l, s, k));
    }
  }
  return p;
}

// Writes `p`'s files into `tmp`: the encoded PNGs, and each slice's channels as PFMs.
void write_pass(PassInspector& inspector, const PlannedPass& p, const fs::path& tmp) {
  const PassLayout& l = p.layout;
  for (const auto& [name, bytes] : p.pngs) write_bytes(tmp / name, bytes);
  int read_slice = -1;
  ImageF v;
  for (const auto& [s, k] : p.pfms) {
    if (s != read_slice) {
      v = inspector.read(l.name, s);
      read_slice = s;
    }
    ImageF channel(l.width, l.height, 1);
    for (std::size_t i = 0; i < channel.data.size(); ++i)
      channel.data[i] = v.data[i * std::size_t(l.channels) + std::size_t(k)];
    write_pfm(tmp / channel_pfm_name(l, s, k), channel);
  }
}

// Every selected pass planned (so the size is known), announced, then written into `tmp`.
PassDump write_dump(Matcher& matcher, PassInspector& inspector, const std::vector<PassLayout>& all,
                    const std::vector<PassLayout>& layouts, const PassDumpOptions& options, const fs::path& tmp) {
  std::vector<PlannedPass> planned;
  PassDumpSize size;
  size.passes = int(layouts.size());
  size.passes_kept = int(all.size());
  nlohmann::json passes = nlohmann::json::array();
  for (const PassLayout& l : layouts) {
    planned.push_back(plan(inspector, l, options.range, matcher.component()));
    const PlannedPass& p = planned.back();
    for (const auto& png : p.pngs) size.bytes += png.second.size();
    size.bytes += p.pfms.size() * pfm_bytes(l.width, l.height);
    size.files += p.pngs.size() + p.pfms.size();
    passes.push_back({{"name", l.name}, {"what", l.what}, {"storage", l.storage}, {"width", l.width},
                      {"height", l.height}, {"channels", l.channels}, {"slices", l.slices},
                      {"disparities_per_slice", l.disparities_per_slice}, {"first_disparity", l.first_disparity},
                      {"value_range", {p.lo, p.hi}}, {"files", p.files}});
  }
  const nlohmann::json doc = {{"component", matcher.component()}, {"device", matcher.device()},
                              {"params", matcher.params()}, {"passes", passes}};
  const std::string json = doc.dump(2) + "\n";
  size.files += 1;
  size.bytes += json.size();
  if (options.announce) options.announce(size);

  PassDump dump;
  for (const PlannedPass& p : planned) {
    write_pass(inspector, p, tmp);
    for (const auto& f : p.files) dump.files.push_back(f.get<std::string>());
  }
  std::ofstream out(tmp / "passes.json", std::ios::binary);
  out << json;
  out.close();
  require(bool(out), "dump-passes: cannot write " + (tmp / "passes.json").string());
  dump.files.push_back("passes.json");
  dump.passes = size.passes;
  dump.bytes = size.bytes;
  return dump;
}

}  // namespace

PassDump dump_passes(Matcher& matcher, const fs::path& dir, std::optional<DisparityRange> range) {
  PassDumpOptions options;
  options.range = range;
  return dump_passes(matcher, dir, options);
}

PassDump dump_passes(Matcher& matcher, const fs::path& dir, const PassDumpOptions& options) {
  PassInspector* inspector = matcher.inspector();
  require(inspector != nullptr,
          "dump-passes: " + matcher.component() + " kept no passes (keep_passes(true) before the run)",
          ErrorKind::invalid_argument);
  const std::vector<PassLayout> all = inspector->passes();
  require(!all.empty(), "dump-passes: " + matcher.component() + " has no passes yet (run it first)",
          ErrorKind::invalid_argument);
  const std::vector<PassLayout> layouts = selected(all, options.stages, matcher.component());
  const fs::path tmp = prepare(dir);  // a bad `dir` fails before the passes are read
  try {
    PassDump dump = write_dump(matcher, *inspector, all, layouts, options, tmp);
    std::error_code ec;
    if (fs::exists(dir, ec)) fs::remove(dir, ec);  // empty (prepare): rename cannot replace it everywhere
    fs::rename(tmp, dir, ec);
    require(!ec, "dump-passes: cannot rename " + tmp.string() + " to " + dir.string() + ": " + ec.message());
    dump.dir = dir;
    return dump;
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    throw;
  }
}

}  // namespace stereo
