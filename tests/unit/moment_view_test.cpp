// The moment view's model (render/moment): the nearest sample, the grouping and its order (waits
// first), how long each thread has been so, the thread filter, the page's lock / I/O
// classification of frames, the durations as the page writes them, and the picture's contents.
// tests/golden (heat-moment*.txt) hold whole texts; tests/browser/moment.test.mjs checks that the
// page groups the same way.
#include "render/moment/moment.h"

#include <gtest/gtest.h>

#include "render/moment/moment_picture.h"
#include "render/moment/moment_text.h"

namespace hearth::moment {
namespace {

// Two processes: the moment shows the one of the nearest sample only.
constexpr std::string_view kMomentFile =
    "# hearth samples 1\tpid=1\tname=set\tmono_ns=0\treal_ns=0\n"
    "s\t0\tmain;pthread_mutex_lock;futex_wait\n"
    "s\t1\tmain;work\n"
    "s\t2\tmain;io;pread64\n"
    "t\t10\t1\t[a tid=10]\n"
    "t\t11\t1\t[b tid=11]\n"
    "t\t12\t1\t[c tid=12]\n"
    "t\t20\t2\t[z tid=20]\n"
    "r\t0\t1\tcopied=3\treused=0\tstopped=0\tstall_ns=0\n"
    "10\tS\t0\n11\tR\t1\n12\tS\t0\n"
    "r\t5\t2\tcopied=1\treused=0\tstopped=0\tstall_ns=0\n"
    "20\tS\t0\n"
    "r\t1000\t1\tcopied=1\treused=2\tstopped=0\tstall_ns=0\n"
    "11\tS\t2\n"
    "r\t3000\t1\tcopied=1\treused=2\tstopped=0\tstall_ns=0\n"
    "10\tR\t1\n";

timed_samples::Samples moment_samples() {
  auto s = timed_samples::parse(kMomentFile, "moment.samples.txt");
  EXPECT_TRUE(s.has_value());
  return *s;
}

TEST(MomentView, NearestSampleEarlierOnATie) {
  const auto s = moment_samples();
  EXPECT_EQ(nearest_round(s, 0), 0u);
  EXPECT_EQ(nearest_round(s, 2), 0u);
  EXPECT_EQ(nearest_round(s, 3), 1u);
  EXPECT_EQ(nearest_round(s, 2000), 2u);  // 1000 and 3000 tie: the earlier
  EXPECT_EQ(nearest_round(s, 2001), 3u);
  EXPECT_EQ(nearest_round(s, 1u << 30), 3u);
}

TEST(MomentView, GroupsWaitsFirstWithDurations) {
  const auto s = moment_samples();
  const Moment m = moment_at(s, 3, nullptr);
  EXPECT_EQ(m.pid, 1);
  EXPECT_EQ(m.threads, 3u);  // process 2's thread is not in process 1's sample
  ASSERT_EQ(m.groups.size(), 3u);
  EXPECT_EQ(m.groups[0].rank, Rank::kLock);
  EXPECT_EQ(m.groups[0].threads.size(), 1u);
  EXPECT_EQ(s.threads[m.groups[0].threads[0].thread].tid, 12);
  EXPECT_EQ(m.groups[0].threads[0].since_ns, 3000u);
  EXPECT_TRUE(m.groups[0].threads[0].first);
  EXPECT_EQ(m.groups[1].rank, Rank::kIo);
  EXPECT_EQ(m.groups[1].threads[0].since_ns, 2000u);
  EXPECT_FALSE(m.groups[1].threads[0].first);
  EXPECT_EQ(m.groups[2].rank, Rank::kRunning);
  EXPECT_EQ(m.groups[2].threads[0].since_ns, 0u);
  EXPECT_EQ(head_text(s, m.groups[0]),
            "1 thread waiting here \u00b7 lock wait, S \u00b7 for up to 3 \u00b5s \u00b7 in "
            "futex_wait");
  EXPECT_EQ(thread_text(s, m.groups[2], m.groups[2].threads[0]),
            "[a tid=10] (tid 10): R since this sample (the one before differs)");
  EXPECT_EQ(thread_text(s, m.groups[0], m.groups[0].threads[0]),
            "[c tid=12] (tid 12): S for \u2265 3 \u00b5s (since its first sample)");
}

TEST(MomentView, SameStackAndStateIsOneGroupMoreThreadsFirst) {
  const auto s = moment_samples();
  const Moment m = moment_at(s, 0, nullptr);
  ASSERT_EQ(m.groups.size(), 2u);
  EXPECT_EQ(m.groups[0].threads.size(), 2u);  // a and c, both in the lock wait
  EXPECT_EQ(m.groups[0].threads[0].thread, 0u);
  EXPECT_EQ(m.groups[0].threads[1].thread, 2u);
  EXPECT_EQ(head_text(s, m.groups[0]).substr(0, 25), "2 threads waiting here \u00b7");
}

TEST(MomentView, ThreadFilterSearchesTheRoot) {
  const auto s = moment_samples();
  auto only = Pattern::compile("\\[c ");
  ASSERT_TRUE(only.has_value());
  const Moment m = moment_at(s, 3, &*only);
  ASSERT_EQ(m.threads, 1u);
  EXPECT_EQ(s.threads[m.groups[0].threads[0].thread].tid, 12);
}

TEST(MomentView, LockAndIoFramesAsThePageClassifiesThem) {
  EXPECT_EQ(wait_kind_of_frame("futex_wait_queue_me_[k]"), 1);
  EXPECT_EQ(wait_kind_of_frame("pthread_mutex_lock"), 1);
  EXPECT_EQ(wait_kind_of_frame("_raw_spin_lock_[k]"), 1);
  EXPECT_EQ(wait_kind_of_frame("std::condition_variable::wait"), 1);
  EXPECT_EQ(wait_kind_of_frame("Lock"), 1);  // case-insensitive
  EXPECT_EQ(wait_kind_of_frame("clock_gettime"), 0);
  EXPECT_EQ(wait_kind_of_frame("tcp_recvmsg_locked"), 2);  // recv, not lock
  EXPECT_EQ(wait_kind_of_frame("block"), 0);
  EXPECT_EQ(wait_kind_of_frame("__GI___libc_read"), 2);
  EXPECT_EQ(wait_kind_of_frame("ep_poll_[k]"), 2);
  EXPECT_EQ(wait_kind_of_frame("spread"), 0);  // "read" inside a word
  EXPECT_EQ(wait_kind_of_frame("submit_bio"), 2);
  EXPECT_EQ(wait_kind_of_frame("main"), 0);
}

TEST(MomentView, DurationsAsJavaScriptWritesThem) {
  EXPECT_EQ(duration_text(850), "850 ns");
  EXPECT_EQ(duration_text(1250), "1.3 \u00b5s");  // toFixed rounds an exact tie up
  EXPECT_EQ(duration_text(10000), "10 \u00b5s");
  EXPECT_EQ(duration_text(1234500), "1.234 ms");  // 1.2345 is a little below in binary
  EXPECT_EQ(duration_text(62500000), "62.5 ms");
  EXPECT_EQ(duration_text(1500000000), "1.5 s");
  EXPECT_EQ(duration_text(90000000000), "1.5 min");
  EXPECT_EQ(duration_text(5400000000000), "1.5 h");
}

TEST(MomentView, PictureHasEveryGroupInOrder) {
  const auto s = moment_samples();
  const Moment m = moment_at(s, 3, nullptr);
  const scene::Scene sc = layout_moment(s, m, {.width = 900});
  ASSERT_EQ(sc.layers.size(), 1u);
  EXPECT_EQ(sc.layers[0].rects.size(), 2 * m.groups.size());  // a band and its edge each
  for (size_t i = 0; i < m.groups.size(); ++i) {
    EXPECT_EQ(sc.layers[0].rects[2 * i].label, head_text(s, m.groups[i]));
  }
  EXPECT_EQ(sc.layers[0].rects[3].fill, rank_color(Rank::kIo));  // the I/O band's edge
  EXPECT_GT(sc.height, 100);
}

}  // namespace
}  // namespace hearth::moment
