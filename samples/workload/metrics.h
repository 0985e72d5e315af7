// The sample workload's metrics: an MMV file through libpcp_mmv's registry API, and the load
// phase the acceptor follows.
#pragma once

// pmapi.h first: mmv_stats.h needs its types.
// clang-format off
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
// clang-format on

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "samples/workload/runtime.h"

namespace sample {

// ---------------------------------------------------------------------------------------------
// Metrics: an MMV file through libpcp_mmv's registry API.

enum Pool { kHttp, kDb, kSleeper, kBurner, kIo, kPoolCount };
// The registry keeps every char* it is given: string literals outlive it.
constexpr const char* kPoolNames[kPoolCount] = {"http", "db", "sleeper", "burner", "io"};
constexpr int kPoolIndom = 1;

enum class Phase { kWarmup, kSteady, kBurst };
constexpr const char* phase_name(Phase p) {
  return p == Phase::kWarmup ? "warmup" : p == Phase::kSteady ? "steady" : "burst";
}

class Metrics {
 public:
  // Creates and publishes PATH (absolute). nullptr and *error on failure.
  static std::unique_ptr<Metrics> create(const std::string& path, int threads, std::string* error) {
    auto m = std::unique_ptr<Metrics>(new Metrics(path));
    if (!m->start(threads, error)) return nullptr;
    return m;
  }

  ~Metrics() {
    // MMV_FLAG_PROCESS: mmv_stats_free unmaps and unlinks the file; unlink again in case a
    // libpcp_mmv version does not.
    if (registry_) mmv_stats_free(registry_);
    ::unlink(path_.c_str());
  }

  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  void served(Pool pool, uint64_t n = 1) { add(requests_[pool], n); }
  void lock_waiting(int delta) {
    std::atomic_ref<int32_t>(lock_waiters_->l).fetch_add(delta, std::memory_order_relaxed);
  }
  void lock_acquired(uint64_t waited_ns) {
    add(lock_acquisitions_, 1);
    add(lock_wait_time_, waited_ns);
  }
  void bytes_written(uint64_t n) { add(bytes_written_, n); }
  void sync_took(double ms) { store_double(sync_latency_, ms); }
  void queue_depth(int64_t depth) {
    std::atomic_ref<int64_t>(queue_depth_->ll).store(depth, std::memory_order_relaxed);
    int64_t peak = peak_.load(std::memory_order_relaxed);
    while (depth > peak && !peak_.compare_exchange_weak(peak, depth)) {
    }
  }

  // The metrics thread, every interval: gauges over the interval, and the phase.
  void publish(Phase phase) {
    std::atomic_ref<int64_t>(queue_peak_->ll)
        .store(peak_.exchange(0, std::memory_order_relaxed), std::memory_order_relaxed);
    uint64_t acq = load(lock_acquisitions_), waited = load(lock_wait_time_);
    if (acq > last_acquisitions_) {
      store_double(lock_wait_avg_, static_cast<double>(waited - last_wait_ns_) /
                                       static_cast<double>(acq - last_acquisitions_) / 1000.0);
    }
    last_acquisitions_ = acq;
    last_wait_ns_ = waited;
    if (phase != phase_) {
      phase_ = phase;
      mmv_stats_set_string(addr_, "phase", nullptr, phase_name(phase));
    }
  }

 private:
  explicit Metrics(std::string path) : path_(std::move(path)) {}

  bool start(int threads, std::string* error) {
    // Cluster: any id below 4096; from the pid so that several workloads can coexist in pmcd.
    registry_ =
        mmv_stats_registry(path_.c_str(), 1 + static_cast<int>(getpid() % 4000), MMV_FLAG_PROCESS);
    if (!registry_) return fail(error, "mmv_stats_registry");
    const pmUnits count = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
    const pmUnits bytes = MMV_UNITS(1, 0, 0, PM_SPACE_BYTE, 0, 0);
    const pmUnits nsec = MMV_UNITS(0, 1, 0, 0, PM_TIME_NSEC, 0);
    const pmUnits usec = MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0);
    const pmUnits msec = MMV_UNITS(0, 1, 0, 0, PM_TIME_MSEC, 0);
    const pmUnits none = MMV_UNITS(0, 0, 0, 0, 0, 0);
    if (mmv_stats_add_indom(registry_, kPoolIndom, "thread pools",
                            "The workload's thread pools: http, db, sleeper, burner, io") != 0)
      return fail(error, "mmv_stats_add_indom");
    // Returns -1 even on success (libpcp_mmv 6.0.3): the result says nothing.
    for (int p = 0; p < kPoolCount; ++p)
      mmv_stats_add_instance(registry_, kPoolIndom, p, kPoolNames[p]);
    struct Def {
      const char* name;
      mmv_metric_type_t type;
      mmv_metric_sem_t sem;
      pmUnits units;
      int indom;
      const char* shorttext;
      const char* helptext;
    };
    const Def defs[] = {
        {"requests", MMV_TYPE_U64, MMV_SEM_COUNTER, count, kPoolIndom,
         "Work items completed, per pool",
         "http: requests answered; db: transactions committed; sleeper: wakeups; burner: "
         "Mandelbrot rows computed; io: writes synced to disk"},
        {"lock.acquisitions", MMV_TYPE_U64, MMV_SEM_COUNTER, count, 0,
         "Acquisitions of the db pool's shared mutex", "Once per committed transaction"},
        {"lock.wait_time", MMV_TYPE_U64, MMV_SEM_COUNTER, nsec, 0,
         "Time db threads spent waiting for the shared mutex",
         "Summed over the db threads: its rate is the mean number of threads waiting"},
        {"lock.waiters", MMV_TYPE_I32, MMV_SEM_INSTANT, count, 0,
         "Threads waiting for the shared mutex now", "db threads inside std::mutex::lock"},
        {"lock.wait_avg", MMV_TYPE_DOUBLE, MMV_SEM_INSTANT, usec, 0,
         "Mean wait for the shared mutex over the last interval",
         "lock.wait_time / lock.acquisitions over the last 250 ms"},
        {"http.queue.depth", MMV_TYPE_I64, MMV_SEM_INSTANT, count, 0,
         "Requests waiting in the http queue now", "Set by the acceptor and the http threads"},
        {"http.queue.peak", MMV_TYPE_I64, MMV_SEM_INSTANT, count, 0,
         "Largest http queue depth in the last interval",
         "The queue drains within a millisecond of each batch: its peak over the last 250 ms "
         "shows the load that the current depth mostly misses"},
        {"io.bytes_written", MMV_TYPE_U64, MMV_SEM_COUNTER, bytes, 0,
         "Bytes the io-wait thread wrote and synced", "16 KiB per fdatasync"},
        {"io.sync_latency", MMV_TYPE_DOUBLE, MMV_SEM_INSTANT, msec, 0,
         "Duration of the last fdatasync", "Of the io-wait thread's temp file"},
        {"phase", MMV_TYPE_STRING, MMV_SEM_INSTANT, none, 0, "Load phase",
         "warmup (first 3 s), then steady (7 s) and burst (3 s) in turn: the acceptor's rate"},
        {"threads", MMV_TYPE_U32, MMV_SEM_DISCRETE, count, 0, "Threads the workload started",
         "All pools, the acceptor and the metrics thread; not the main thread"},
    };
    int item = 1;
    for (const Def& d : defs) {
      if (mmv_stats_add_metric(registry_, d.name, item++, d.type, d.sem, d.units, d.indom,
                               d.shorttext, d.helptext) != 0)
        return fail(error, "mmv_stats_add_metric");
    }
    addr_ = mmv_stats_start(registry_);
    if (!addr_) return fail(error, "cannot create the MMV file");
    for (int p = 0; p < kPoolCount; ++p) requests_[p] = value("requests", kPoolNames[p]);
    lock_acquisitions_ = value("lock.acquisitions");
    lock_wait_time_ = value("lock.wait_time");
    lock_waiters_ = value("lock.waiters");
    lock_wait_avg_ = value("lock.wait_avg");
    queue_depth_ = value("http.queue.depth");
    queue_peak_ = value("http.queue.peak");
    bytes_written_ = value("io.bytes_written");
    sync_latency_ = value("io.sync_latency");
    pmAtomValue* threads_value = value("threads");
    for (pmAtomValue* v :
         {requests_[0], requests_[1], requests_[2], requests_[3], requests_[4], lock_acquisitions_,
          lock_wait_time_, lock_waiters_, lock_wait_avg_, queue_depth_, queue_peak_, bytes_written_,
          sync_latency_, threads_value}) {
      // Every value is updated with one aligned atomic access.
      if (!v || reinterpret_cast<uintptr_t>(v) % alignof(uint64_t) != 0) {
        errno = EINVAL;
        return fail(error, "unexpected MMV layout");
      }
    }
    threads_value->ul = static_cast<uint32_t>(threads);
    mmv_stats_set_string(addr_, "phase", nullptr, phase_name(phase_));
    return true;
  }

  bool fail(std::string* error, const char* what) {
    *error = std::string(what) + ": " + std::strerror(errno);
    return false;
  }
  pmAtomValue* value(const char* metric, const char* instance = nullptr) {
    return mmv_lookup_value_desc(addr_, metric, instance);
  }
  static void add(pmAtomValue* v, uint64_t n) {
    std::atomic_ref<uint64_t>(v->ull).fetch_add(n, std::memory_order_relaxed);
  }
  static uint64_t load(pmAtomValue* v) {
    return std::atomic_ref<uint64_t>(v->ull).load(std::memory_order_relaxed);
  }
  static void store_double(pmAtomValue* v, double d) {
    std::atomic_ref<double>(v->d).store(d, std::memory_order_relaxed);
  }

  const std::string path_;  // the registry keeps path_.c_str()
  mmv_registry_t* registry_ = nullptr;
  void* addr_ = nullptr;
  pmAtomValue* requests_[kPoolCount] = {};
  pmAtomValue* lock_acquisitions_ = nullptr;
  pmAtomValue* lock_wait_time_ = nullptr;
  pmAtomValue* lock_waiters_ = nullptr;
  pmAtomValue* lock_wait_avg_ = nullptr;
  pmAtomValue* queue_depth_ = nullptr;
  pmAtomValue* queue_peak_ = nullptr;
  pmAtomValue* bytes_written_ = nullptr;
  pmAtomValue* sync_latency_ = nullptr;
  std::atomic<int64_t> peak_{0};
  uint64_t last_acquisitions_ = 0, last_wait_ns_ = 0;
  Phase phase_ = Phase::kWarmup;
};

inline std::atomic<Phase> g_phase{Phase::kWarmup};

inline Phase phase_at(Clock::duration since_start) {
  auto s = std::chrono::duration_cast<std::chrono::milliseconds>(since_start).count();
  if (s < 3000) return Phase::kWarmup;
  return (s - 3000) % 10000 < 7000 ? Phase::kSteady : Phase::kBurst;
}

}  // namespace sample
