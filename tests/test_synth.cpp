// Synthetic scenes (exact ground truth, occlusions, determinism), the MiddEval3 writer against
// the loader, the photometric gt check, and the .npy/.npz readers on files written here.

#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/dataset.h"
#include "core/error.h"
#include "app/npy.h"
#include "app/synth.h"

namespace stereo {
namespace {

namespace fs = std::filesystem;

SynthOptions options(int w, int h, int levels, SynthLayout layout = SynthLayout::planes, std::uint32_t seed = 7) {
  SynthOptions o;
  o.width = w;
  o.height = h;
  o.levels = levels;
  o.layout = layout;
  o.seed = seed;
  return o;
}

double share_of(const ImageU8& mask, std::uint8_t value) {
  std::size_t n = 0;
  for (std::uint8_t m : mask.data) n += m == value;
  return static_cast<double>(n) / static_cast<double>(mask.data.size());
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("stereo_test_synth_" + name);
  fs::remove_all(dir);
  return dir;
}

TEST(Synth, PlanesGroundTruthIsExact) {
  // Integer disparities of fronto-parallel planes: the warped right view reproduces every
  // non-occluded left pixel exactly, and a rescaled gt is far off.
  const Scene s = make_synthetic_scene(options(97, 61, 16));
  EXPECT_LT(warp_error(s, 1.0), 1e-9);
  EXPECT_GT(warp_error(s, 0.5), 5.0);
  EXPECT_GT(warp_error(s, 2.0), 5.0);
  EXPECT_GT(warp_error(s, 1.0, 1.0), 5.0);
}

TEST(Synth, SlantedGroundTruthIsAccurate) {
  // The slanted plane maps to non-integer right positions, so the linear interpolation of the
  // check adds a little error there; the fronto-parallel parts stay exact.
  const Scene s = make_synthetic_scene(options(131, 89, 24, SynthLayout::slanted));
  bool fractional = false;
  for (float d : s.gt.data) fractional = fractional || d != std::floor(d);
  EXPECT_TRUE(fractional) << "the slanted layout should have non-integer disparities";
  const double e1 = warp_error(s, 1.0);
  EXPECT_LT(e1, 1.5);
  EXPECT_GT(warp_error(s, 0.5), 5.0 * e1 + 3.0);
  EXPECT_GT(warp_error(s, 2.0), 5.0 * e1 + 3.0);
}

TEST(Synth, ShapesRangesAndMasks) {
  for (SynthLayout layout : {SynthLayout::planes, SynthLayout::slanted}) {
    for (const SynthOptions& o : {options(97, 61, 16, layout), options(16, 16, 2, layout), options(64, 17, 63, layout)}) {
      SCOPED_TRACE(std::string(to_string(layout)) + " " + std::to_string(o.width) + "x" + std::to_string(o.height) +
                   " levels " + std::to_string(o.levels));
      const Scene s = make_synthetic_scene(o);
      EXPECT_EQ(s.name, std::string("synth-") + to_string(layout) + "-s7");
      EXPECT_EQ(s.kind, SceneKind::plain);
      EXPECT_EQ(s.levels, o.levels);
      EXPECT_DOUBLE_EQ(s.default_threshold, 1.0);
      for (const ImageU8* img : {&s.left, &s.right}) {
        EXPECT_TRUE(img->same_size(o.width, o.height));
        EXPECT_EQ(img->channels, 3);
      }
      ASSERT_TRUE(s.gt.same_size(o.width, o.height));
      for (float d : s.gt.data) {
        ASSERT_TRUE(std::isfinite(d));
        ASSERT_GE(d, 0.0f);
        ASSERT_LE(d, static_cast<float>(o.levels - 1));
      }
      EXPECT_EQ(share_of(s.mask_all, 255), 1.0);
      // mask_disc is a subset of mask_nonocc.
      for (std::size_t i = 0; i < s.mask_disc.data.size(); ++i)
        if (s.mask_disc.data[i] == 255) {
          ASSERT_EQ(s.mask_nonocc.data[i], 255);
        }
    }
  }
}

TEST(Synth, OcclusionMaskIsPlausible) {
  const Scene s = make_synthetic_scene(options(97, 61, 16));
  const double visible = share_of(s.mask_nonocc, 255);
  EXPECT_GT(visible, 0.6);
  EXPECT_LT(visible, 0.999) << "a scene with planes in front of a background has occlusions";
  EXPECT_GT(share_of(s.mask_disc, 255), 0.0);
  // Pixels whose match falls left of the right image are occluded.
  for (int y = 0; y < s.gt.height; ++y)
    for (int x = 0; x < s.gt.width; ++x)
      if (static_cast<float>(x) - s.gt.at(x, y) < 0.0f) {
        ASSERT_EQ(s.mask_nonocc.at(x, y), 0) << "at " << x << "," << y;
      }
  // The exact (geometric) mask and the one derived from the disparities alone agree almost
  // everywhere; they may differ where a nearer surface enters the right view from beyond the
  // left image's right edge, which the disparity map cannot see.
  const ImageU8 derived = nonocc_mask_from_gt(s.gt, 0.5f);
  std::size_t same = 0;
  for (std::size_t i = 0; i < derived.data.size(); ++i) same += derived.data[i] == s.mask_nonocc.data[i];
  EXPECT_GT(static_cast<double>(same) / static_cast<double>(derived.data.size()), 0.97);
}

TEST(Synth, DeterministicForAFixedSeed) {
  for (SynthLayout layout : {SynthLayout::planes, SynthLayout::slanted}) {
    const Scene a = make_synthetic_scene(options(80, 40, 20, layout, 11));
    const Scene b = make_synthetic_scene(options(80, 40, 20, layout, 11));
    const Scene c = make_synthetic_scene(options(80, 40, 20, layout, 12));
    EXPECT_EQ(a.left.data, b.left.data);
    EXPECT_EQ(a.right.data, b.right.data);
    EXPECT_EQ(a.gt.data, b.gt.data);
    EXPECT_EQ(a.mask_nonocc.data, b.mask_nonocc.data);
    EXPECT_EQ(a.mask_disc.data, b.mask_disc.data);
    EXPECT_NE(a.left.data, c.left.data);
  }
}

TEST(Synth, UserErrorsThrow) {
  EXPECT_THROW(make_synthetic_scene(options(15, 40, 8)), Error);
  EXPECT_THROW(make_synthetic_scene(options(40, 15, 8)), Error);
  EXPECT_THROW(make_synthetic_scene(options(40, 40, 1)), Error);
  EXPECT_THROW(make_synthetic_scene(options(40, 40, 40)), Error);
  EXPECT_NO_THROW(make_synthetic_scene(options(40, 40, 39)));
  EXPECT_THROW(parse_synth_layout("curved"), Error);
  Scene no_gt = make_synthetic_scene(options(32, 32, 4));
  no_gt.gt = ImageF();
  EXPECT_THROW(warp_error(no_gt, 1.0), Error);
}

TEST(Synth, WriteSceneThenLoadSceneRoundTrips) {
  const Scene s = make_synthetic_scene(options(97, 61, 16, SynthLayout::slanted));
  const fs::path dir = fresh_dir("roundtrip");
  write_scene(s, dir);
  for (const char* f : {"im0.png", "im1.png", "disp0GT.pfm", "mask0nocc.png", "calib.txt"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  {
    std::ifstream calib(dir / "calib.txt");
    const std::string text((std::istreambuf_iterator<char>(calib)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("ndisp=16\n"), std::string::npos) << text;
    EXPECT_NE(text.find("width=97\n"), std::string::npos) << text;
    EXPECT_NE(text.find("height=61\n"), std::string::npos) << text;
  }
  const Scene t = load_scene(dir);
  EXPECT_EQ(t.levels, 16);
  EXPECT_EQ(t.left.data, s.left.data);
  EXPECT_EQ(t.right.data, s.right.data);
  EXPECT_EQ(t.gt.data, s.gt.data);  // PFM stores the float32 values bit for bit
  EXPECT_EQ(t.mask_nonocc.data, s.mask_nonocc.data);
  EXPECT_EQ(share_of(t.mask_all, 255), 1.0);
  EXPECT_DOUBLE_EQ(warp_error(t, 1.0), warp_error(s, 1.0));
  fs::remove_all(dir);
}

#ifdef STEREO_BIN
TEST(Synth, CliSynthThenCheckGt) {
  // The driver end to end: `stereo synth` writes a scene whose gt `stereo check-gt` accepts.
  const fs::path dir = fresh_dir("cli");
  const std::string bin = STEREO_BIN;
  const std::string quiet = " > " + (fs::temp_directory_path() / "stereo_test_synth_cli.log").string() + " 2>&1";
  EXPECT_EQ(std::system((bin + " synth --size 97x61 -d 16 --layout planes --seed 3 --out " + dir.string() + quiet).c_str()), 0);
  EXPECT_EQ(std::system((bin + " check-gt " + dir.string() + quiet).c_str()), 0);
  // A gt stored at twice the true disparity must be rejected.
  Scene s = load_scene(dir);
  for (float& d : s.gt.data) d *= 2.0f;
  s.levels = 32;
  const fs::path wrong = fresh_dir("cli_wrong");
  write_scene(s, wrong);
  EXPECT_NE(std::system((bin + " check-gt " + wrong.string() + quiet).c_str()), 0);
  EXPECT_NE(std::system((bin + " synth --size 8x8 -d 4 --out " + dir.string() + quiet).c_str()), 0);
  fs::remove_all(dir);
  fs::remove_all(wrong);
}
#endif

// ---- .npy / .npz ----------------------------------------------------------------------------

void put_le(std::vector<std::uint8_t>& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// A version-1 .npy: magic, version, header length, dict padded so the data starts at a
// multiple of 64 bytes, as NumPy writes it.
std::vector<std::uint8_t> make_npy(const std::string& descr, const std::string& shape, bool fortran,
                                   const std::vector<std::uint8_t>& payload) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                     ", 'shape': " + shape + ", }";
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::vector<std::uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  put_le(out, dict.size(), 2);
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

std::vector<std::uint8_t> f32_payload(const std::vector<float>& values) {
  std::vector<std::uint8_t> out;
  for (float v : values) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v, 4);
    put_le(out, bits, 4);
  }
  return out;
}

void write_bytes(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::uint8_t> raw_deflate(const std::vector<std::uint8_t>& in) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::vector<std::uint8_t> out(deflateBound(&z, static_cast<uLong>(in.size())));
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// A zip archive (PKWARE APPNOTE 4.3.7 local headers, 4.3.12 central directory, 4.3.16 end
// record) holding the given members, each stored (method 0) or deflated (method 8).
struct ZipMember {
  std::string name;
  std::vector<std::uint8_t> data;
  bool deflated;
};
std::vector<std::uint8_t> make_zip(const std::vector<ZipMember>& members) {
  std::vector<std::uint8_t> zip, central;
  for (const ZipMember& m : members) {
    const std::vector<std::uint8_t> packed = m.deflated ? raw_deflate(m.data) : m.data;
    const std::uint32_t crc = static_cast<std::uint32_t>(crc32(0, m.data.data(), static_cast<uInt>(m.data.size())));
    const std::uint32_t offset = static_cast<std::uint32_t>(zip.size());
    auto common = [&](std::vector<std::uint8_t>& out) {
      put_le(out, 20, 2);                       // version needed
      put_le(out, 0, 2);                        // flags
      put_le(out, m.deflated ? 8 : 0, 2);       // method
      put_le(out, 0, 4);                        // time, date
      put_le(out, crc, 4);
      put_le(out, packed.size(), 4);
      put_le(out, m.data.size(), 4);
      put_le(out, m.name.size(), 2);
      put_le(out, 0, 2);                        // extra length
    };
    put_le(zip, 0x04034b50, 4);
    common(zip);
    zip.insert(zip.end(), m.name.begin(), m.name.end());
    zip.insert(zip.end(), packed.begin(), packed.end());

    put_le(central, 0x02014b50, 4);
    put_le(central, 20, 2);                     // version made by
    common(central);
    put_le(central, 0, 2);                      // comment length
    put_le(central, 0, 2);                      // disk
    put_le(central, 0, 2);                      // internal attributes
    put_le(central, 0, 4);                      // external attributes
    put_le(central, offset, 4);
    central.insert(central.end(), m.name.begin(), m.name.end());
  }
  const std::uint32_t cd_offset = static_cast<std::uint32_t>(zip.size());
  zip.insert(zip.end(), central.begin(), central.end());
  put_le(zip, 0x06054b50, 4);
  put_le(zip, 0, 4);                            // disk numbers
  put_le(zip, members.size(), 2);
  put_le(zip, members.size(), 2);
  put_le(zip, central.size(), 4);
  put_le(zip, cd_offset, 4);
  put_le(zip, 0, 2);                            // comment length
  return zip;
}

TEST(Npy, ParsesCAndFortranOrderAndIntegerTypes) {
  // A 2x3 float32 array [[0, 1, 2], [3, 4.5, nan]] in C order.
  const std::vector<float> values = {0, 1, 2, 3, 4.5f, NAN};
  const ImageF c = parse_npy(make_npy("<f4", "(2, 3)", false, f32_payload(values)), "c-order");
  ASSERT_EQ(c.width, 3);
  ASSERT_EQ(c.height, 2);
  ASSERT_EQ(c.channels, 1);
  EXPECT_EQ(c.at(2, 0), 2.0f);
  EXPECT_EQ(c.at(1, 1), 4.5f);
  EXPECT_TRUE(std::isnan(c.at(2, 1)));
  // The same array in Fortran order stores columns: 0, 3, 1, 4.5, 2, nan.
  const ImageF f = parse_npy(make_npy("<f4", "(2, 3)", true, f32_payload({0, 3, 1, 4.5f, 2, NAN})), "f-order");
  for (int i = 0; i < 5; ++i) EXPECT_EQ(f.data[static_cast<std::size_t>(i)], c.data[static_cast<std::size_t>(i)]);
  // uint16, (H, W, C) = (1, 2, 2).
  std::vector<std::uint8_t> u16;
  for (int v : {1, 2, 300, 65535}) put_le(u16, static_cast<std::uint64_t>(v), 2);
  const ImageF u = parse_npy(make_npy("<u2", "(1, 2, 2)", false, u16), "u16");
  EXPECT_EQ(u.channels, 2);
  EXPECT_EQ(u.at(1, 0, 0), 300.0f);
  EXPECT_EQ(u.at(1, 0, 1), 65535.0f);
  // float64 and uint8.
  std::vector<std::uint8_t> f64;
  double dv = -2.25;
  std::uint64_t bits = 0;
  std::memcpy(&bits, &dv, 8);
  put_le(f64, bits, 8);
  EXPECT_EQ(parse_npy(make_npy("<f8", "(1, 1)", false, f64), "f64").data[0], -2.25f);
  EXPECT_EQ(parse_npy(make_npy("|u1", "(1, 2)", false, {7, 200}), "u8").data[1], 200.0f);
}

TEST(Npy, RejectsWhatItCannotRead) {
  const std::vector<std::uint8_t> payload = f32_payload({1, 2, 3, 4});
  EXPECT_THROW(parse_npy({1, 2, 3}, "short"), Error);
  EXPECT_THROW(parse_npy(make_npy(">f4", "(2, 2)", false, payload), "big-endian"), Error);
  EXPECT_THROW(parse_npy(make_npy("<c8", "(2, 2)", false, payload), "complex"), Error);
  EXPECT_THROW(parse_npy(make_npy("<f4", "(4,)", false, payload), "1-D"), Error);
  EXPECT_THROW(parse_npy(make_npy("<f4", "(3, 2)", false, payload), "truncated"), Error);
}

TEST(Npy, ReadsStoredAndDeflatedNpzMembers) {
  // Large enough that deflate really compresses (a smooth ramp).
  std::vector<float> ramp(40 * 30);
  for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<float>(i % 40) * 0.25f + 9.0f;
  const std::vector<std::uint8_t> npy_a = make_npy("<f4", "(30, 40)", false, f32_payload(ramp));
  const std::vector<std::uint8_t> npy_b = make_npy("|u1", "(2, 2)", false, {1, 2, 3, 4});
  const fs::path dir = fresh_dir("npz");
  fs::create_directories(dir);

  const fs::path npz = dir / "arrays.npz";
  write_bytes(npz, make_zip({{"arr_0.npy", npy_a, true}, {"small.npy", npy_b, false}}));
  EXPECT_LT(fs::file_size(npz), npy_a.size()) << "the first member should be deflated";
  const ImageF a = read_npz(npz);  // first member by default
  ASSERT_EQ(a.width, 40);
  ASSERT_EQ(a.height, 30);
  EXPECT_EQ(a.data, ramp);
  EXPECT_EQ(read_npz(npz, "arr_0").data, ramp);
  const ImageF b = read_npz(npz, "small");
  EXPECT_EQ(b.width, 2);
  EXPECT_EQ(b.at(1, 1), 4.0f);
  EXPECT_THROW(read_npz(npz, "missing"), Error);

  // A stored-only archive, and the same array through read_npy.
  const fs::path stored = dir / "stored.npz";
  write_bytes(stored, make_zip({{"arr_0.npy", npy_a, false}}));
  EXPECT_EQ(read_npz(stored).data, ramp);
  write_bytes(dir / "a.npy", npy_a);
  EXPECT_EQ(read_npy(dir / "a.npy").data, ramp);

  // A corrupted deflated member is caught (by zlib or by the CRC), not returned.
  std::vector<std::uint8_t> bad = make_zip({{"arr_0.npy", npy_a, true}});
  bad[30 + 9 + 20] ^= 0x5a;
  write_bytes(dir / "bad.npz", bad);
  EXPECT_THROW(read_npz(dir / "bad.npz"), Error);
  EXPECT_THROW(read_npz(dir / "a.npy"), Error);  // not a zip
  fs::remove_all(dir);
}

}  // namespace
}  // namespace stereo
