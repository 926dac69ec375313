// Image views (stereo/image_view.h) and the public library (include/stereo/stereo.h) on the host:
// the views' contract, the cpu and opencv backends on views with a pitch (each the map it gives
// on ImageU8s), and the registry as stereo::list / params / options / create give it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <stereo/stereo.h>

#include "core/validate.h"
#include "methods/builtin.h"
#include "test_util.h"
#include "view_util.h"

namespace stereo {
namespace {

using test::error_of;

TEST(ImageView, DenseByDefaultAndRowsByPitch) {
  const ImageU8 image = test::random_texture(5, 4, 1);
  const ImageView dense(image);
  EXPECT_EQ(dense.pitch, 15u);
  EXPECT_TRUE(dense.dense());
  const test::PitchedImage pitched(image, 3);
  EXPECT_EQ(pitched.view.pitch, 18u);
  EXPECT_FALSE(pitched.view.dense());
  EXPECT_EQ(pitched.view.row(2)[4], image.at(1, 2, 1));
  EXPECT_EQ(to_image(pitched.view).data, image.data);
  EXPECT_EQ(to_image(dense).data, image.data);
}

TEST(ImageView, CopyRowsLeavesThePaddingAlone) {
  ImageF map(3, 2, 1);
  for (std::size_t i = 0; i < map.data.size(); ++i) map.data[i] = float(i);
  map.data[4] = std::numeric_limits<float>::infinity();
  test::PitchedMap out(3, 2, 2);
  copy_rows(map, out.view);
  EXPECT_EQ(test::differing_pixels(out.dense(), map), 0);
  EXPECT_TRUE(out.padding_untouched());
  EXPECT_NE(error_of([&] { copy_rows(ImageF(4, 2, 1), out.view); }).find("a 4x2 map into a 3x2 view"), std::string::npos);
}

TEST(ImageView, ValidatePairNamesWhatIsWrong) {
  const ImageU8 a = test::random_texture(20, 10, 2), grey = test::random_texture(20, 10, 2, 1);
  const ImageView va(a);
  const auto check = [&](ImageView l, ImageView r, DisparityRange range = {0, 4}) {
    return error_of([&] { validate_pair(l, r, range, "t/cpu"); });
  };
  EXPECT_EQ(check(va, va), "");
  ImageView narrow = va;
  narrow.pitch = 59;
  EXPECT_EQ(check(narrow, va), "t/cpu: the left view's pitch 59 bytes is below its row of 60 bytes (width x channels)");
  EXPECT_NE(check(va, narrow).find("the right view's pitch 59"), std::string::npos);
  ImageView null = va;
  null.data = nullptr;
  EXPECT_EQ(check(null, va), "t/cpu: an input view has no memory (null data)");
  EXPECT_EQ(check(ImageView(), va), "t/cpu: empty input image");
  EXPECT_EQ(check(va, ImageView(grey)), "t/cpu: left has 3 channels, right 1");
  ImageView two(a.data.data(), 20, 10, 2);
  EXPECT_EQ(check(two, two), "t/cpu: inputs must be grey or RGB, got 2 channels");
  EXPECT_EQ(check(va, ImageView(a.data.data(), 19, 10, 3)), "t/cpu: left is 20x10 but right is 19x10");
  EXPECT_EQ(check(va, va, {0, 20}), "t/cpu: disparity levels 20 must be below the image width 20");
  const ImageView on_device = ImageView::cuda(a.data.data(), 20, 10, 3, 0, 0);
  EXPECT_EQ(check(va, on_device), "t/cpu: the left view is in host memory, the right in cuda memory");
  EXPECT_NE(check(on_device, ImageView::cuda(a.data.data(), 20, 10, 3, 0, 1)).find("CUDA devices 0 and 1"),
            std::string::npos);
  // The ImageU8 overload keeps its words.
  EXPECT_EQ(error_of([&] { validate_pair(a, grey, 4, "t/cpu"); }), "t/cpu: left has 3 channels, right 1");
}

TEST(ImageView, OutputViewIsChecked) {
  std::vector<float> buffer(64);
  const auto check = [&](DisparityView out) { return error_of([&] { validate_output(out, 4, 3, "t/cpu"); }); };
  EXPECT_EQ(check(DisparityView(buffer.data(), 4, 3)), "");
  EXPECT_EQ(check(DisparityView(buffer.data(), 4, 3, 20)), "");
  EXPECT_EQ(check(DisparityView(nullptr, 4, 3)), "t/cpu: the disparity view has no memory (null data)");
  EXPECT_EQ(check(DisparityView(buffer.data(), 5, 3)), "t/cpu: the disparity view is 5x3 but the images are 4x3");
  EXPECT_NE(check(DisparityView(buffer.data(), 4, 3, 12)).find("pitch 12 bytes is below its row of 16"),
            std::string::npos);
  EXPECT_NE(check(DisparityView(buffer.data(), 4, 3, 18)).find("4-byte aligned"), std::string::npos);
}

// Every host backend of this build on views with a pitch, grey and RGB, at an odd size.
TEST(ImageView, HostBackendsGiveTheImageMapOnViews) {
  const ImageU8 rgb = test::random_texture(41, 23, 5), rgb_right = test::shifted(rgb, 3);
  const ImageU8 grey = test::random_texture(41, 23, 6, 1), grey_right = test::shifted(grey, 2);
  int checked = 0;
  for (const Backend& b : list()) {
    if (b.backend != "cpu" && b.backend != "opencv") continue;
    ASSERT_TRUE(b.available) << b.method << "/" << b.backend << ": " << b.unavailable_reason;
    SCOPED_TRACE(b.method + "/" + b.backend);
    auto matcher = create_matcher(b.method, b.backend, {});
    test::expect_views_match_images(*matcher, rgb, rgb_right, DisparityRange{0, 8});
    test::expect_views_match_images(*matcher, grey, grey_right, DisparityRange{-2, 7});
    ++checked;
  }
  EXPECT_GE(checked, 6) << "salap, adcensus, crossrt, esaw, esmp and symstereo (with FFTW) have cpu backends";
}

TEST(ImageView, HostBackendsRefuseDeviceMemoryNamingThemselves) {
  const ImageU8 image = test::random_texture(24, 8, 3);
  StereoMatcher matcher = create("salap", "cpu");
  const ImageView on_device = ImageView::cuda(image.data.data(), 24, 8, 3, 0, 0);
  EXPECT_EQ(error_of([&] { (void)matcher.compute(on_device, on_device, DisparityRange{0, 4}); }),
            "salap/cpu: the image pair is in CUDA device memory; this backend reads and writes host memory only");
  std::vector<float> map(24 * 8);
  EXPECT_EQ(error_of([&] {
              (void)matcher.compute_into(ImageView(image), ImageView(image), DisparityRange{0, 4},
                                          DisparityView::cuda(map.data(), 24, 8, 0, 0));
            }),
            "salap/cpu: the disparity view is in CUDA device memory; this backend reads and writes host memory only");
}

TEST(Library, ListsEveryRegistryEntry) {
  const std::vector<Backend> backends = list();
  ASSERT_EQ(backends.size(), builtin_registry().entries().size());
  for (std::size_t i = 0; i < backends.size(); ++i) {
    const BackendEntry& e = builtin_registry().entries()[i];
    EXPECT_EQ(backends[i].method, e.method);
    EXPECT_EQ(backends[i].backend, e.backend);
    EXPECT_EQ(backends[i].summary, e.summary);
    const auto why = e.unavailable();
    EXPECT_EQ(backends[i].available, !why.has_value());
    EXPECT_EQ(backends[i].unavailable_reason, why.value_or(""));
  }
}

// params() reads back the table each method registers as text: every key with the value a
// matcher made with no overrides reports (both as `--set` text), and its doc.
TEST(Library, ParamsAreTheDefaultsAMatcherReports) {
  for (const MethodInfo& m : builtin_registry().methods()) {
    SCOPED_TRACE(m.name);
    const std::vector<Param> table = params(m.name);
    ASSERT_FALSE(table.empty());
    std::string backend;
    for (const Backend& b : list())
      if (b.method == m.name && b.available && backend.empty()) backend = b.backend;
    ASSERT_FALSE(backend.empty()) << m.name << " has no backend available here";
    const ParamValues used = create(m.name, backend).params();
    for (const Param& p : table) {
      EXPECT_FALSE(p.doc.empty()) << p.key;
      const auto it = std::find_if(used.begin(), used.end(), [&](const auto& kv) { return kv.first == p.key; });
      ASSERT_NE(it, used.end()) << p.key << " is in the table but not in " << m.name << "/" << backend;
      EXPECT_EQ(p.value, it->second) << p.key;
    }
  }
  EXPECT_NE(error_of([] { (void)params("nosuch"); }).find("nosuch"), std::string::npos);
}

TEST(Library, OptionsAndOverridesReachTheMatcher) {
  const std::vector<Param> threads = options("salap", "cpu");
  ASSERT_FALSE(threads.empty());
  const std::string key = threads.front().key;
  const ParamValues used = create("salap", "cpu", {{"gamma", "7.5"}}).params();
  const auto value_of = [&](const std::string& k) {
    for (const auto& [name, value] : used)
      if (name == k) return value;
    return std::string("(absent)");
  };
  EXPECT_EQ(value_of("gamma"), "7.5");
  EXPECT_NE(value_of(key), "(absent)");
  EXPECT_NE(error_of([] { (void)create("salap", "cpu", {{"nosuch", "1"}}); }).find("unknown parameter 'nosuch'"),
            std::string::npos);
  EXPECT_EQ(method_info("salap").name, "salap");
}

TEST(Library, ParamTableRoundTrip) {
  const std::string text = "  gamma = 5.0  (SA-LAP fall-off (Sec. 4))\n  cost = \"a  (b\"  (doc (x|y))\n  on = true  (flag)\n";
  const std::vector<ParamDoc> rows = parse_param_table(text);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].key, "gamma");
  EXPECT_EQ(rows[0].value, 5.0);
  EXPECT_EQ(rows[0].doc, "SA-LAP fall-off (Sec. 4)");
  EXPECT_EQ(rows[1].value, "a  (b");
  EXPECT_EQ(rows[1].doc, "doc (x|y)");
  EXPECT_EQ(rows[2].value, true);
  EXPECT_NE(error_of([] { (void)parse_param_table("gamma: 5\n"); }).find("'gamma: 5'"), std::string::npos);
}

}  // namespace
}  // namespace stereo
