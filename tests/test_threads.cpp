// Two matchers in two threads at once, for every pair of registered (method, backend) entries
// available here (the same entry twice included): each thread creates its own matcher and
// runs its own pair; the map must be bit-identical to the same matcher's map computed alone.
// A backend that must stay on one thread has to say so with a stereo::Error naming the rule
// (the GL backends: gl/context.h, Context::make_current), never crash or give another map.

#include <gtest/gtest.h>

#include <barrier>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/matcher.h"
#include "tests/test_util.h"
#include "methods/builtin.h"

using namespace stereo;

namespace {

struct Ran {
  std::optional<ImageF> map;
  std::string error;
};

bool identical(const ImageF& a, const ImageF& b) {
  return a.width == b.width && a.height == b.height && a.data.size() == b.data.size() &&
         std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)) == 0;
}

}  // namespace

TEST(TwoThreads, EveryPairGivesTheMapsOfEachAloneOrRefusesClearly) {
  std::vector<const BackendEntry*> entries;
  for (const BackendEntry& e : builtin_registry().entries())
    if (!(e.unavailable && e.unavailable())) entries.push_back(&e);
  ASSERT_FALSE(entries.empty());

  // Two different pairs, so that a backend sharing state between instances would mix them.
  const ImageU8 left_a = test::random_texture(47, 19, 31), right_a = test::shifted(left_a, 3);
  const ImageU8 left_b = test::random_texture(47, 19, 32), right_b = test::shifted(left_b, 5);
  const DisparityRange range{0, 8};
  std::vector<ImageF> alone_a, alone_b;
  for (const BackendEntry* e : entries) {
    auto m = create_matcher(e->method, e->backend, {});
    alone_a.push_back(m->compute(left_a, right_a, range).disparity);
    alone_b.push_back(m->compute(left_b, right_b, range).disparity);
  }

  int concurrent = 0, refused = 0;
  for (std::size_t i = 0; i < entries.size(); ++i)
    for (std::size_t j = i; j < entries.size(); ++j) {
      const std::string label = entries[i]->method + "/" + entries[i]->backend + " with " + entries[j]->method +
                                "/" + entries[j]->backend;
      SCOPED_TRACE(label);
      Ran ran[2];
      std::barrier start(2);
      // A thread whose matcher throws before the start line drops out of the barrier, so the
      // other one is not left waiting.
      const auto work = [&](int k, const BackendEntry* e, const ImageU8& l, const ImageU8& r) {
        bool arrived = false;
        try {
          auto m = create_matcher(e->method, e->backend, {});
          start.arrive_and_wait();
          arrived = true;
          ran[k].map = m->compute(l, r, range).disparity;
        } catch (const Error& ex) {
          ran[k].error = ex.what();
        } catch (const std::exception& ex) {
          ran[k].error = std::string("not a stereo::Error: ") + ex.what();
        }
        if (!arrived) start.arrive_and_drop();
      };
      std::thread t0([&] { work(0, entries[i], left_a, right_a); });
      std::thread t1([&] { work(1, entries[j], left_b, right_b); });
      t0.join();
      t1.join();
      const ImageF* expected[2] = {&alone_a[i], &alone_b[j]};
      bool both_ran = true;
      for (int k = 0; k < 2; ++k) {
        if (ran[k].map) {
          EXPECT_TRUE(identical(*ran[k].map, *expected[k])) << "thread " << k << " gave a different map than alone";
        } else {
          both_ran = false;
          EXPECT_NE(ran[k].error.find("one thread"), std::string::npos)
              << "thread " << k << " failed without naming the one-thread rule: " << ran[k].error;
          EXPECT_EQ(ran[k].error.find('\n'), std::string::npos) << ran[k].error;
        }
      }
      (both_ran ? concurrent : refused)++;
      std::cout << "[ threads  ] " << label << ": "
                << (both_ran ? "both ran concurrently, bit-identical" : "refused: " + ran[0].error + ran[1].error) << "\n";
    }
  std::cout << "[ threads  ] " << concurrent << " pairs ran concurrently, " << refused << " refused by a one-thread rule\n";
}
