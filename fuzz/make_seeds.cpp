// Seed corpora for the fuzz targets, made at run time from the shared Middlebury data (never
// copied into the repository): small crops of real scenes written in every format a loader
// reads, and the scene archives of fuzz_util.h. scripts/fuzz.sh runs it.
//   make_seeds DATA_ROOT OUT_DIR   (writes OUT_DIR/<target>/seed_*)

#include <stb_image_write.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "app/dataset.h"
#include "core/error.h"
#include "app/image_io.h"

namespace fs = std::filesystem;
using namespace stereo;

namespace {

template <class T>
Image<T> crop(const Image<T>& img, int x0, int y0, int w, int h) {
  Image<T> out(w, h, img.channels);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < img.channels; ++c) out.at(x, y, c) = at_clamped(img, x0 + x, y0 + y, c);
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Bytes of `img` as `writer` would put them in a file.
template <class Fn>
std::string bytes_of(Fn&& writer) {
  const fs::path tmp = fuzz::scratch() / "seed";
  writer(tmp);
  return slurp(tmp);
}

std::string pnm(const ImageU8& img) {
  std::string s = std::string(img.channels == 1 ? "P5" : "P6") + "\n# seed\n" + std::to_string(img.width) + " " +
                  std::to_string(img.height) + "\n255\n";
  return s + std::string(img.data.begin(), img.data.end());
}

std::string pnm16(const ImageU8& grey) {
  std::string s = "P5\n" + std::to_string(grey.width) + " " + std::to_string(grey.height) + "\n65535\n";
  for (std::uint8_t v : grey.data) s += static_cast<char>(v), s += static_cast<char>(v ^ 0x5a);
  return s;
}

std::string jpeg(const ImageU8& img, int quality) {
  std::string out;
  stbi_write_jpg_to_func(
      [](void* ctx, void* data, int size) { static_cast<std::string*>(ctx)->append(static_cast<char*>(data), std::size_t(size)); },
      &out, img.width, img.height, img.channels, img.data.data(), quality);
  return out;
}

ImageU8 grey_of(const ImageU8& rgb) {
  ImageU8 g(rgb.width, rgb.height, 1);
  for (std::size_t i = 0; i < g.data.size(); ++i)
    g.data[i] = static_cast<std::uint8_t>((rgb.data[3 * i] + rgb.data[3 * i + 1] + rgb.data[3 * i + 2]) / 3);
  return g;
}

void put(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: make_seeds DATA_ROOT OUT_DIR\n";
    return 2;
  }
  const fs::path data = argv[1], out = argv[2];
  int written = 0;
  const auto seed = [&](const std::string& target, const std::string& name, const std::string& bytes) {
    put(out / target, name, bytes);
    ++written;
  };
  try {
    // Middlebury v2: crops of each scene's six files, in the archive and one by one.
    for (const char* scene : {"tsukuba", "venus", "teddy", "cones"}) {
      const fs::path dir = data / "middlebury-v2" / scene;
      if (!fs::exists(dir / "left.png")) continue;
      std::vector<std::pair<std::size_t, std::string>> files;
      const auto& names = fuzz::layout_files(1);
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (!fs::exists(dir / names[i])) continue;
        const ImageU8 c = crop(read_image(dir / names[i]), 100, 100, 24, 12);
        files.emplace_back(i, bytes_of([&](const fs::path& p) { write_png(p, c); }));
      }
      seed("middlebury_v2", std::string("seed_") + scene, fuzz::pack(files));
      const ImageU8 left = crop(read_image(dir / "left.png"), 60, 80, 32, 24);
      seed("png", std::string("seed_") + scene, bytes_of([&](const fs::path& p) { write_png(p, left); }));
      seed("png", std::string("seed_grey_") + scene, bytes_of([&](const fs::path& p) { write_png(p, grey_of(left)); }));
      seed("pnm", std::string("seed_") + scene + ".ppm", pnm(left));
      seed("pnm", std::string("seed_") + scene + ".pgm", pnm(grey_of(left)));
      seed("pnm", std::string("seed16_") + scene + ".pgm", pnm16(grey_of(left)));
      seed("jpeg", std::string("seed_") + scene, jpeg(left, 90));
      seed("jpeg", std::string("seed_grey_") + scene, jpeg(grey_of(left), 50));
    }
    // MiddEval3: crops of im0/im1/disp0GT/mask0nocc with the real calib.txt; the calib.txt
    // alone; the ground truth as PFM and as KITTI's 16-bit PNG; a KITTI archive of the same.
    for (const char* scene : {"Adirondack", "Motorcycle", "Pipes", "Vintage"}) {
      const fs::path dir = data / "middlebury-v3-quarter" / scene;
      if (!fs::exists(dir / "im0.png")) continue;
      const ImageU8 im0 = crop(read_image(dir / "im0.png"), 200, 150, 24, 12);
      const ImageU8 im1 = crop(read_image(dir / "im1.png"), 200, 150, 24, 12);
      const ImageF gt = crop(read_pfm(dir / "disp0GT.pfm"), 200, 150, 24, 12);
      const ImageU8 mask = crop(read_image(dir / "mask0nocc.png"), 200, 150, 24, 12);
      const std::string calib = slurp(dir / "calib.txt");
      const std::string png0 = bytes_of([&](const fs::path& p) { write_png(p, im0); });
      const std::string png1 = bytes_of([&](const fs::path& p) { write_png(p, im1); });
      const std::string pfm = bytes_of([&](const fs::path& p) { write_pfm(p, gt); });
      const std::string gt16 = bytes_of([&](const fs::path& p) { write_disparity_png16(p, gt); });
      const std::string mask_png = bytes_of([&](const fs::path& p) { write_png(p, mask); });
      seed("middeval3", std::string("seed_") + scene,
           fuzz::pack({{0, png0}, {1, png1}, {2, pfm}, {3, mask_png}, {4, calib}}));
      seed("kitti", std::string("seed_") + scene, fuzz::pack({{0, png0}, {1, png1}, {2, gt16}, {3, gt16}}));
      seed("calib", std::string("seed_") + scene, calib);
      seed("pfm", std::string("seed_") + scene, pfm);
      ImageF colour(gt.width, gt.height, 3);
      for (std::size_t i = 0; i < colour.data.size(); ++i) colour.data[i] = gt.data[i / 3];
      std::string pf = "PF\n" + std::to_string(gt.width) + " " + std::to_string(gt.height) + "\n1.0\n";
      for (float v : colour.data) {  // big-endian (scale > 0)
        std::uint32_t u = 0;
        std::memcpy(&u, &v, 4);
        for (int b = 3; b >= 0; --b) pf += static_cast<char>((u >> (8 * b)) & 0xff);
      }
      seed("pfm", std::string("seed_colour_be_") + scene, pf);
      seed("png16", std::string("seed_") + scene, gt16);
    }
  } catch (const Error& e) {
    std::cerr << "make_seeds: " << e.what() << "\n";
    return 1;
  }
  // Hand-made seeds that need no data: the smallest valid file of each kind.
  seed("pfm", "seed_tiny", std::string("Pf\n1 1\n-1\n") + std::string("\0\0\x80\x3f", 4));
  seed("pnm", "seed_tiny.pgm", "P5 1 1 255\n\x7f");
  seed("calib", "seed_vmin_negative", "ndisp=8\nvmin=-2.5\nvmax=5\n");
  std::cout << "make_seeds: " << written << " seeds under " << out.string() << "\n";
  return 0;
}
