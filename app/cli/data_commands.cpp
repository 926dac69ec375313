#include "app/cli/data_commands.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/dataset.h"
#include "core/error.h"
#include "app/image_io.h"
#include "app/npy.h"
#include "app/synth.h"

namespace stereo {
namespace {

namespace fs = std::filesystem;

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// ---- synth -----------------------------------------------------------------------------

struct SynthArgs {
  std::string size = "160x120";
  int levels = 32;
  std::string layout = "planes";
  std::uint32_t seed = SynthOptions{}.seed;
  std::string out;
};

void parse_size(const std::string& text, int& w, int& h) {
  const std::size_t x = text.find_first_of("xX");
  bool ok = x != std::string::npos && x > 0 && x + 1 < text.size();
  if (ok) {
    try {
      std::size_t used_w = 0, used_h = 0;
      w = std::stoi(text.substr(0, x), &used_w);
      h = std::stoi(text.substr(x + 1), &used_h);
      ok = used_w == x && used_h == text.size() - x - 1;
    } catch (const std::exception&) {
      ok = false;
    }
  }
  require(ok, "synth: bad --size '" + text + "' (expected WxH, e.g. 160x120)");
}

void cmd_synth(const SynthArgs& args) {
  SynthOptions o;
  parse_size(args.size, o.width, o.height);
  o.levels = args.levels;
  o.layout = parse_synth_layout(args.layout);
  o.seed = args.seed;
  const Scene scene = make_synthetic_scene(o);
  write_scene(scene, args.out);
  std::size_t visible = 0;
  for (std::uint8_t m : scene.mask_nonocc.data) visible += m == 255;
  const double pixels = static_cast<double>(scene.mask_nonocc.pixel_count());
  std::cout << "synth: wrote " << scene.name << " (" << o.width << "x" << o.height << ", " << o.levels
            << " levels, " << fixed(100.0 * static_cast<double>(visible) / pixels, 1)
            << "% non-occluded) to " << args.out << "\n";
}

// ---- import-pair -------------------------------------------------------------------------

struct ImportArgs {
  std::string left, right, gt;
  double gt_scale = 1.0;
  std::string gt_format = "auto";
  std::string gt_invalid = "0";
  int levels = 0;
  std::string name;
  std::string out;
};

// Bit depth from a PNG's IHDR chunk (byte 24), so a 16-bit map is not read through the
// 8-bit decoder, which would reduce it.
int png_bit_depth(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char head[25] = {};
  in.read(reinterpret_cast<char*>(head), sizeof head);
  static constexpr unsigned char SIGNATURE[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  require(in.gcount() == 25 && std::equal(SIGNATURE, SIGNATURE + 8, head),
          "import-pair: " + path.string() + " is not a PNG file");
  return head[24];
}

std::string detect_format(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".pfm") return "pfm";
  if (ext == ".npy") return "npy";
  if (ext == ".npz") return "npz";
  if (ext == ".png") return png_bit_depth(path) == 16 ? "png16" : "png8";
  throw Error("import-pair: cannot tell the format of " + path.string() +
              " from its extension; pass --gt-format png8|png16|pfm|npy|npz");
}

ImageF read_raw_gt(const fs::path& path, const std::string& format) {
  ImageF raw;
  if (format == "png8") {
    const ImageU8 img = read_image(path);
    require(img.channels == 1, "import-pair: " + path.string() + " is a colour image; a disparity map is grey");
    raw = ImageF(img.width, img.height, 1);
    for (std::size_t i = 0; i < img.data.size(); ++i) raw.data[i] = img.data[i];
  } else if (format == "png16") {
    const ImageU16 img = read_png16(path);
    raw = ImageF(img.width, img.height, 1);
    for (std::size_t i = 0; i < img.data.size(); ++i) raw.data[i] = img.data[i];
  } else if (format == "pfm") {
    raw = read_pfm(path);
  } else if (format == "npy") {
    raw = read_npy(path);
  } else if (format == "npz") {
    raw = read_npz(path);
  } else {
    throw Error("import-pair: unknown --gt-format '" + format + "' (expected png8, png16, pfm, npy or npz)");
  }
  require(raw.channels == 1, "import-pair: ground truth " + path.string() + " has " + std::to_string(raw.channels) +
                                 " channels; expected a one-channel disparity map");
  return raw;
}

void cmd_import_pair(const ImportArgs& args) {
  require(args.gt_scale > 0.0 && std::isfinite(args.gt_scale),
          "import-pair: --gt-scale must be positive, got " + std::to_string(args.gt_scale));
  std::optional<double> invalid;
  if (args.gt_invalid != "none") {
    try {
      std::size_t used = 0;
      invalid = std::stod(args.gt_invalid, &used);
      require(used == args.gt_invalid.size(), "");
    } catch (const std::exception&) {
      throw Error("import-pair: bad --gt-invalid '" + args.gt_invalid + "' (a number or 'none')");
    }
  }

  Scene scene;
  scene.name = args.name;
  scene.kind = SceneKind::plain;
  scene.default_threshold = 1.0;
  scene.left = to_rgb(read_image(args.left));
  scene.right = to_rgb(read_image(args.right));
  const int w = scene.left.width, h = scene.left.height;
  require(scene.right.same_size(w, h), "import-pair: left " + std::to_string(w) + "x" + std::to_string(h) +
                                           " and right " + std::to_string(scene.right.width) + "x" +
                                           std::to_string(scene.right.height) + " differ in size");

  const std::string format = args.gt_format == "auto" ? detect_format(args.gt) : args.gt_format;
  const ImageF raw = read_raw_gt(args.gt, format);
  require(raw.same_size(w, h), "import-pair: ground truth is " + std::to_string(raw.width) + "x" +
                                   std::to_string(raw.height) + " but the views are " + std::to_string(w) + "x" +
                                   std::to_string(h));

  // disparity = raw / scale; non-finite, the invalid code and negative values are unknown.
  scene.gt = ImageF(w, h, 1, std::numeric_limits<float>::infinity());
  double d_min = std::numeric_limits<double>::infinity(), d_max = -d_min;
  std::size_t known = 0;
  for (std::size_t i = 0; i < raw.data.size(); ++i) {
    const double r = raw.data[i];
    if (!std::isfinite(r) || (invalid && r == *invalid) || r < 0.0) continue;
    const double d = r / args.gt_scale;
    scene.gt.data[i] = static_cast<float>(d);
    d_min = std::min(d_min, d);
    d_max = std::max(d_max, d);
    ++known;
  }
  require(known > 0, "import-pair: ground truth " + args.gt + " has no valid pixel");

  // Default search range: every ground-truth disparity inside it (ceil(max) + 1 levels),
  // rounded up to a multiple of 4 as GPU kernels like, capped at width - 1.
  if (args.levels > 0) {
    scene.levels = args.levels;
    if (d_max > args.levels - 1)
      std::cout << "import-pair: note: ground truth reaches " << fixed(d_max, 2) << " px, beyond --levels "
                << args.levels << "\n";
  } else {
    const int needed = static_cast<int>(std::ceil(d_max)) + 1;
    scene.levels = std::min((needed + 3) / 4 * 4, w - 1);
  }
  require(scene.levels >= 1 && scene.levels < w, "import-pair: levels " + std::to_string(scene.levels) +
                                                     " outside [1, width-1] for width " + std::to_string(w));

  scene.mask_all = ImageU8(w, h, 1, 0);
  for (std::size_t i = 0; i < scene.gt.data.size(); ++i)
    if (std::isfinite(scene.gt.data[i])) scene.mask_all.data[i] = 255;
  scene.mask_nonocc = nonocc_mask_from_gt(scene.gt);
  std::size_t visible = 0;
  for (std::uint8_t m : scene.mask_nonocc.data) visible += m == 255;

  write_scene(scene, args.out);
  const double pixels = static_cast<double>(scene.gt.pixel_count());
  std::cout << "import-pair: wrote " << scene.name << " (" << w << "x" << h << ", " << scene.levels
            << " levels, gt " << fixed(d_min, 2) << " .. " << fixed(d_max, 2) << " px on "
            << fixed(100.0 * static_cast<double>(known) / pixels, 1) << "% of pixels, "
            << fixed(100.0 * static_cast<double>(visible) / pixels, 1)
            << "% non-occluded) to " << args.out << "\n";
}

// ---- check-gt ----------------------------------------------------------------------------

void cmd_check_gt(const std::string& dir) {
  const Scene scene = load_scene(dir);
  require(scene.has_ground_truth(), "check-gt: " + dir + " has no ground truth");

  struct Candidate {
    std::string label;
    double factor;
    double offset;
    double error = 0.0;
  };
  std::vector<Candidate> candidates;
  for (double f : {0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0})
    candidates.push_back({"x" + (f < 1.0 ? fixed(f, 3) : fixed(f, 0)) + (f == 1.0 ? " (stored)" : ""), f, 0.0});
  for (double off : {-2.0, -1.0, 1.0, 2.0})
    candidates.push_back({std::string("x1 ") + (off < 0 ? "- " : "+ ") + fixed(std::abs(off), 0) + " px", 1.0, off});

  std::cout << "check-gt: " << scene.name << " (" << scene.left.width << "x" << scene.left.height
            << "): mean |left(x) - right(x - d)| in grey levels over non-occluded pixels with gt\n";
  const Candidate* stored = nullptr;
  const Candidate* best_other = nullptr;
  for (Candidate& c : candidates) {
    c.error = warp_error(scene, c.factor, c.offset);
    std::cout << "  " << c.label << std::string(c.label.size() < 16 ? 16 - c.label.size() : 1, ' ')
              << (std::isfinite(c.error) ? fixed(c.error, 3) : std::string("n/a (no pixel in range)")) << "\n";
  }
  for (const Candidate& c : candidates) {
    if (c.factor == 1.0 && c.offset == 0.0)
      stored = &c;
    else if (!best_other || c.error < best_other->error)
      best_other = &c;
  }
  const double right_view = warp_error_right_view(scene, 1.0);
  std::cout << "  read as the right view's gt, all pixels: " << fixed(right_view, 3) << " (for comparison)\n";

  if (!(stored->error < best_other->error))
    throw Error("check-gt: " + scene.name + ": the stored ground truth is not the best fit: " + best_other->label +
                " gives " + fixed(best_other->error, 3) + ", the stored one " + fixed(stored->error, 3));
  std::cout << "check-gt: " << scene.name << ": stored ground truth fits best (" << fixed(stored->error, 3)
            << "; next best " << best_other->label << " " << fixed(best_other->error, 3) << ")\n";
}

}  // namespace

void add_data_commands(CLI::App& app) {
  {
    auto args = std::make_shared<SynthArgs>();
    auto* sub = app.add_subcommand("synth", "write a synthetic scene with exact ground truth (MiddEval3 layout)");
    sub->add_option("--size", args->size, "image size WxH (at least 16x16)")->capture_default_str();
    sub->add_option("-d,--levels", args->levels, "disparity levels 0 .. LEVELS-1 (2 <= LEVELS < width)")
        ->capture_default_str();
    sub->add_option("--layout", args->layout, "planes (fronto-parallel) or slanted")
        ->check(CLI::IsMember({"planes", "slanted"}))
        ->capture_default_str();
    sub->add_option("--seed", args->seed, "random seed (std::mt19937)")->capture_default_str();
    sub->add_option("--out", args->out, "output folder (created)")->required();
    sub->callback([args] { cmd_synth(*args); });
  }
  {
    auto args = std::make_shared<ImportArgs>();
    auto* sub = app.add_subcommand("import-pair", "convert a pair with ground truth into the MiddEval3 layout");
    sub->add_option("--left", args->left, "left (reference) view")->required();
    sub->add_option("--right", args->right, "right view")->required();
    sub->add_option("--gt", args->gt, "ground-truth disparity of the left view")->required();
    sub->add_option("--gt-scale", args->gt_scale, "disparity in pixels = stored value / scale")
        ->capture_default_str();
    sub->add_option("--gt-format", args->gt_format, "auto (from the extension and PNG bit depth), png8, png16, pfm, npy, npz")
        ->check(CLI::IsMember({"auto", "png8", "png16", "pfm", "npy", "npz"}))
        ->capture_default_str();
    sub->add_option("--gt-invalid", args->gt_invalid,
                    "stored value meaning 'no ground truth' ('none' for no such value; non-finite values are "
                    "always unknown)")
        ->capture_default_str();
    sub->add_option("--levels", args->levels,
                    "disparity levels; default ceil(max gt) + 1 rounded up to a multiple of 4, at most width - 1");
    sub->add_option("--name", args->name, "scene name")->required();
    sub->add_option("--out", args->out, "output folder (created)")->required();
    sub->callback([args] { cmd_import_pair(*args); });
  }
  {
    auto dir = std::make_shared<std::string>();
    auto* sub = app.add_subcommand(
        "check-gt", "warp the right view onto the left with the ground truth; fails unless the stored scale fits best");
    sub->add_option("dir", *dir, "scene folder")->required();
    sub->callback([dir] { cmd_check_gt(*dir); });
  }
}

}  // namespace stereo
