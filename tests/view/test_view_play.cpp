// A sequence played through the pipelined player (app/view/sequence_player.h): every frame it
// hands over is the map compute() gives for that frame, in sequence order, wrapping at the end;
// a stop ends it without an error, a bad frame with the frame's line; the window plays N frames
// that way and shows the last one as a run of it would.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>

#include "app/view/sequence_player.h"
#include "app/view/viewer_state.h"
#include "app/view/viewer_window.h"
#include "tests/view/view_test_util.h"

namespace stereo::view {
namespace {

namespace fs = std::filesystem;

/// Five frames, l/NNN.png and r/NNN.png: three synthetic scenes cycling (frame i is scene i % 3).
fs::path five_frames(const std::string& prefix) {
  const fs::path dir = stereo::test::fresh_test_dir(prefix);
  char text[1024];
  for (int s = 0; s < 3; ++s) {
    std::snprintf(text, sizeof text, "synth --size 96x64 -d 8 --seed %d --out %s/s%d", 50 + s, dir.c_str(), s);
    const auto r = stereo::test::run_stereo(dir, text);
    EXPECT_EQ(r.code, 0) << r.err;
  }
  fs::create_directories(dir / "l");
  fs::create_directories(dir / "r");
  for (int i = 0; i < 5; ++i) {
    char name[16], scene[8];
    std::snprintf(name, sizeof name, "%03d.png", i);
    std::snprintf(scene, sizeof scene, "s%d", i % 3);
    fs::copy_file(dir / scene / "im0.png", dir / "l" / name);
    fs::copy_file(dir / scene / "im1.png", dir / "r" / name);
  }
  return dir;
}

bool same_bits(const ImageF& a, const ImageF& b) {
  return a.width == b.width && a.height == b.height &&
         std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)) == 0;
}

/// The map compute() gives for frame `i` of the state's sequence.
ImageF computed(ViewerState& s, std::size_t i) {
  const Scene frame = s.input().read_frame(i);
  return s.matcher()->compute(frame.left, frame.right, s.range()).disparity;
}

void wait_until_finished(const SequencePlayer& p) {
  for (int k = 0; k < 3000 && !p.finished(); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(p.finished()) << "the player did not finish in 30 s";
}

TEST(SequencePlayer, FramesComeInOrderWrappingAndEqualCompute) {
  const fs::path dir = five_frames("stereo_view_play_");
  ViewerState s(ViewInput::sequence(dir / "l", dir / "r", 8, 0), Choice{"salap", "cpu", 0, 0, {}});
  ASSERT_TRUE(s.start()) << s.error();
  // From frame 3, seven frames: 3 4 0 1 2 3 4. Taking after each delivery sees them in order.
  std::vector<std::size_t> seen;
  {
    SequencePlayer p(*s.matcher(), s.range(), s.input(), 3, 7, 3, true);
    for (int k = 0; k < 30000; ++k) {
      const bool done = p.finished();  // then one last take() gets the newest
      if (auto f = p.take()) {
        seen.push_back(f->index);
        EXPECT_TRUE(same_bits(f->map.to_float(), computed(s, f->index))) << "frame " << f->index;
        const Scene want = s.input().read_frame(f->index);
        EXPECT_EQ(f->scene.left.data, want.left.data) << "the views of frame " << f->index;
      }
      if (done) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_TRUE(p.finished());
    EXPECT_EQ(p.error(), "");
    EXPECT_EQ(p.matched(), 7u);
  }
  ASSERT_FALSE(seen.empty());
  for (std::size_t k = 1; k < seen.size(); ++k)  // newest-first hand-over may skip, never go back
    EXPECT_NE(seen[k], seen[k - 1]);
  EXPECT_EQ(seen.back(), 4u);  // the last of 3 4 0 1 2 3 4
}

TEST(SequencePlayer, StopEndsWithoutAnErrorAndABadFrameWithItsLine) {
  const fs::path dir = five_frames("stereo_view_play_stop_");
  ViewerState s(ViewInput::sequence(dir / "l", dir / "r", 8, 0), Choice{"salap", "cpu", 0, 0, {}});
  ASSERT_TRUE(s.start()) << s.error();
  {
    SequencePlayer p(*s.matcher(), s.range(), s.input(), 0, 100000, 2, false);
    while (p.matched() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    p.stop();
    EXPECT_TRUE(p.finished());
    EXPECT_EQ(p.error(), "");
    EXPECT_LT(p.matched(), 100000u);
    const auto f = p.take();
    if (f) {
      EXPECT_TRUE(f->scene.left.empty()) << "keep_views off: no images kept";
    }
  }
  // Frame 2's right image replaced by one of another size: the frames before it come, then its line.
  write_png(dir / "r" / "002.png", ImageU8(17, 9, 3));
  SequencePlayer p(*s.matcher(), s.range(), s.input(), 0, 5, 2, false);
  wait_until_finished(p);
  EXPECT_NE(p.error().find("002.png"), std::string::npos) << p.error();
  EXPECT_EQ(p.matched(), 2u);
}

TEST(SequencePlayer, TakeByWaitsForTheNextFrameAndNotPastTheEnd) {
  const fs::path dir = five_frames("stereo_view_play_take_by_");
  ViewerState s(ViewInput::sequence(dir / "l", dir / "r", 8, 0), Choice{"salap", "cpu", 0, 0, {}});
  ASSERT_TRUE(s.start()) << s.error();
  using Clock = std::chrono::steady_clock;
  SequencePlayer p(*s.matcher(), s.range(), s.input(), 0, 3, 2, false);
  // Each wait ends with a frame well before its generous deadline: the window is woken by the
  // frame, not by the clock.
  std::vector<std::size_t> seen;
  while (seen.empty() || seen.back() != 2) {
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    const auto f = p.take_by(deadline);
    ASSERT_TRUE(f.has_value() || p.finished()) << "take_by returned before its deadline with nothing";
    if (!f) break;
    EXPECT_LT(Clock::now(), deadline);
    seen.push_back(f->index);
  }
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), 2u);
  // The play has ended: no frame comes, and the wait returns at once, not at its deadline.
  wait_until_finished(p);
  const auto start = Clock::now();
  EXPECT_FALSE(p.take_by(start + std::chrono::seconds(60)).has_value());
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
}

TEST(ViewerWindow, PlaysFramesPipelinedAndShowsTheLastAsARunWould) {
  if (!test::window_possible())
    GTEST_SKIP() << "no display (run under xvfb-run, as scripts/test.sh does, or with STEREO_VIEW_CONTEXT=headless)";
  const fs::path dir = five_frames("stereo_view_play_window_");
  ViewerState s(ViewInput::sequence(dir / "l", dir / "r", 8, 0), Choice{"salap", "cpu", 0, 0, {}});
  WindowOptions o;
  o.width = 640;
  o.height = 480;
  ViewerWindow w(s, o);
  ASSERT_TRUE(s.error().empty()) << s.error();
  w.play_frames(7);  // from frame 0: 1 2 3 4, then (loop) 0 1 2
  w.ui().playing = true;
  for (int k = 0; k < 10000 && w.ui().playing; ++k) ASSERT_TRUE(w.frame());
  EXPECT_FALSE(w.ui().playing);
  EXPECT_TRUE(w.played_pipelined());
  EXPECT_EQ(w.frames_played(), 7u);
  EXPECT_EQ(s.error(), "");
  ASSERT_NE(s.result(), nullptr);
  EXPECT_EQ(s.result()->frame, 2u);
  EXPECT_EQ(s.input().frame(), 2u);
  ASSERT_TRUE(s.result()->disparity.has_value());
  EXPECT_TRUE(same_bits(*s.result()->disparity, computed(s, 2)));
  EXPECT_EQ(s.input().current().left.data, s.input().read_frame(2).left.data);
}

}  // namespace
}  // namespace stereo::view
