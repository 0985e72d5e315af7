// gen_intervals: writes a synthetic scheduler recording into a directory, for benchmarking
// `hearth timeline` (timeline_bench.sh). Not part of any test.
//
//   gen_intervals -o DIR [--seconds 60] [--threads 100] [--switches 1000000] [--hz 100]
//                 [--seed 1]
//
// DIR/sched.intervals.tsv (README, "Scheduler intervals and slots": every interval kept whole),
// DIR/sched.states.tsv (the threads' names and totals) and, with --hz above 0, DIR/
// stacks.samples.txt (timed samples, README "Timed samples": every thread sampled HZ times a
// second, its stack one of a few per pool, chosen by its state then).
//
// One process of THREADS threads: main, then pools (70% worker-N, 15% io-N, 10% rpc-N, the rest
// bg-N). SWITCHES switch-outs are shared among the threads with Zipf-like weights (a few busy
// threads, a long tail of quiet ones); each switch-out ends an on-CPU interval and starts an
// off-CPU one: runnable (preempted by another thread of the process, or by the idle task's
// tid 0 neighbour kworker 77) one time in three, else sleeping (io threads: blocked a third of
// the time), ended by a wakeup from another thread. Each thread's share of time on CPU is drawn
// between 5% and 90%, and its interval lengths are exponential around the mean its switch count
// gives, so intervals from a few microseconds to seconds appear. Intermittent stalls: every 7 s
// for 300 ms the workers sleep (one mutex). The output depends only on the arguments: own PRNG.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string dir;
  double seconds = 60;
  uint32_t threads = 100;
  uint64_t switches = 1'000'000;
  double hz = 100;
  uint64_t seed = 1;
};

class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed * 0x9e3779b97f4a7c15ULL + 1) {}
  uint64_t next() {
    s_ ^= s_ << 13;
    s_ ^= s_ >> 7;
    s_ ^= s_ << 17;
    return s_;
  }
  double uniform() { return static_cast<double>(next() >> 11) / 9007199254740992.0; }
  double exponential(double mean) { return -mean * std::log(1 - uniform()); }

 private:
  uint64_t s_;
};

constexpr uint64_t kStart = 500'000'000'000'000;  // CLOCK_MONOTONIC of the window's start
constexpr int64_t kPid = 4000;

std::string thread_name(uint32_t i, uint32_t n) {
  if (i == 0) return "app";
  const uint32_t w = n * 70 / 100, io = n * 15 / 100, rpc = n * 10 / 100;
  if (i <= w) return "worker-" + std::to_string(i);
  if (i <= w + io) return "io-" + std::to_string(i - w);
  if (i <= w + io + rpc) return "rpc-" + std::to_string(i - w - io);
  return "bg-" + std::to_string(i - w - io - rpc);
}

void usage() {
  std::fprintf(stderr,
               "usage: gen_intervals -o DIR [--seconds 60] [--threads 100] [--switches 1000000] "
               "[--hz 100] [--seed 1]\n");
  std::exit(2);
}

bool write_file(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok;
}

struct Iv {
  uint64_t a, b;
  char state;
  int cpu;
  int64_t by;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "-o"))
      o.dir = value();
    else if (!std::strcmp(argv[i], "--seconds"))
      o.seconds = std::atof(value());
    else if (!std::strcmp(argv[i], "--threads"))
      o.threads = static_cast<uint32_t>(std::atoi(value()));
    else if (!std::strcmp(argv[i], "--switches"))
      o.switches = std::strtoull(value(), nullptr, 10);
    else if (!std::strcmp(argv[i], "--hz"))
      o.hz = std::atof(value());
    else if (!std::strcmp(argv[i], "--seed"))
      o.seed = std::strtoull(value(), nullptr, 10);
    else
      usage();
  }
  if (o.dir.empty() || o.threads < 2 || o.seconds <= 0) usage();
  Rng rng(o.seed);
  const uint64_t span = static_cast<uint64_t>(o.seconds * 1e9);
  const uint64_t end = kStart + span;
  const uint32_t n = o.threads;

  // Switches per thread: weights 1/(rank+1)^0.7, shuffled over the threads.
  std::vector<double> weight(n);
  double total = 0;
  for (uint32_t i = 0; i < n; ++i) total += weight[i] = 1 / std::pow(i + 1.0, 0.7);
  for (uint32_t i = n - 1; i > 0; --i) std::swap(weight[i], weight[rng.next() % (i + 1)]);

  std::string iv_text, states_text;
  iv_text.reserve(static_cast<size_t>(o.switches) * 2 * 48);
  auto header = [&](std::string* out, const char* kind) {
    *out += std::string("# hearth sched.") + kind + (std::strcmp(kind, "states") ? " 1\n" : " 2\n");
    *out += "# target\tpid=" + std::to_string(kPid) + "\tcomm=app\n";
    *out += "# window_ns\t" + std::to_string(kStart) + "\t" + std::to_string(end) + "\t" +
            std::to_string(span) + "\n";
    *out += "# events\tsched_switch=" + std::to_string(o.switches) +
            "\tsched_waking=0\tsched_wakeup=" + std::to_string(o.switches) +
            "\tsched_migrate_task=0\n";
    *out += "# lost\t0\n";
  };
  header(&iv_text, "intervals");
  iv_text += "# kept\twhole_from_ns=" + std::to_string(kStart) + "\tslot_ns=1000000000\n";
  iv_text += "tid\tpid\tstart_ns\tend_ns\tstate\tcpu\tby\n";
  header(&states_text, "states");
  states_text +=
      "tid\tcomm\tpid\ton_cpu_ns\trunnable_ns\tsleeping_ns\tblocked_ns\tother_ns\tswitches_"
      "runnable\t"
      "switches_sleeping\tswitches_blocked\tswitches_other\tstopped_ns\tswitches_stopped\n";
  uint64_t rows = 0;
  // Each thread's state at the sample times, for the samples file: [thread][sample] = 'R'/'S'/'D'.
  const uint64_t samples = o.hz > 0 ? static_cast<uint64_t>(o.seconds * o.hz) : 0;
  const uint64_t sample_ns = samples ? static_cast<uint64_t>(1e9 / o.hz) : 0;
  std::vector<std::string> sampled(n, std::string(samples, 'S'));
  std::vector<Iv> ivs;
  char buf[160];
  for (uint32_t i = 0; i < n; ++i) {
    const int64_t tid = kPid + i;
    const std::string name = thread_name(i, n);
    const bool worker = name.starts_with("worker-"), io = name.starts_with("io-");
    const uint64_t sw =
        std::max<uint64_t>(1, static_cast<uint64_t>(o.switches * weight[i] / total));
    const double on_share = 0.05 + 0.85 * rng.uniform();
    const double cycle = static_cast<double>(span) / static_cast<double>(sw);
    ivs.clear();
    uint64_t t = kStart;
    int cpu = static_cast<int>(rng.next() % 2);
    uint64_t sums[4] = {0, 0, 0, 0}, counts[4] = {0, 0, 0, 0};
    while (t < end) {
      uint64_t on = 1000 + static_cast<uint64_t>(rng.exponential(cycle * on_share));
      // The stall: every 7 s for 300 ms the workers wait on one mutex.
      const uint64_t rel = t - kStart;
      const bool stall = worker && rel % 7'000'000'000 >= 6'700'000'000;
      if (stall) on = 2000;
      const uint64_t a = t, b = std::min(end, t + on);
      ivs.push_back({a, b, 'C', cpu, -1});
      sums[0] += b - a;
      t = b;
      if (t >= end) break;
      uint64_t off = 1000 + static_cast<uint64_t>(rng.exponential(cycle * (1 - on_share)));
      char state = 'S';
      int64_t by = kPid + static_cast<int64_t>(rng.next() % n);
      const uint64_t r = rng.next() % 3;
      if (stall) {
        off = 7'000'000'000 - (t - kStart) % 7'000'000'000 + rng.next() % 1'000'000;
      } else if (r == 0) {
        state = 'R';
        off = 1000 + static_cast<uint64_t>(rng.exponential(std::min(cycle * (1 - on_share), 2e6)));
        by = rng.next() % 4 == 0 ? 77 : by;
      } else if (io && r == 1) {
        state = 'D';
      }
      const uint64_t c = std::min(end, t + off);
      ivs.push_back({t, c, state, cpu, by == tid ? -1 : by});
      const int k = state == 'R' ? 1 : state == 'S' ? 2 : 3;
      sums[k] += c - t;
      ++counts[k];
      t = c;
      if (rng.next() % 8 == 0) cpu ^= 1;
    }
    for (const Iv& v : ivs) {
      const int len = std::snprintf(
          buf, sizeof buf, "%lld\t%lld\t%llu\t%llu\t%c\t%d\t%lld\n", static_cast<long long>(tid),
          static_cast<long long>(kPid), static_cast<unsigned long long>(v.a),
          static_cast<unsigned long long>(v.b), v.state, v.cpu, static_cast<long long>(v.by));
      iv_text.append(buf, static_cast<size_t>(len));
      ++rows;
    }
    // The state at each sample time.
    size_t k = 0;
    for (uint64_t s = 0; s < samples; ++s) {
      const uint64_t at = kStart + s * sample_ns;
      while (k + 1 < ivs.size() && ivs[k].b <= at) ++k;
      const char st = ivs[k].state;
      sampled[i][s] = st == 'C' || st == 'R' ? 'R' : st;
    }
    states_text += std::to_string(tid) + "\t" + name + "\t" + std::to_string(kPid) + "\t" +
                   std::to_string(sums[0]) + "\t" + std::to_string(sums[1]) + "\t" +
                   std::to_string(sums[2]) + "\t" + std::to_string(sums[3]) + "\t0\t" +
                   std::to_string(counts[1]) + "\t" + std::to_string(counts[2]) + "\t" +
                   std::to_string(counts[3]) + "\t0\t0\t0\n";
  }
  iv_text += "# end\t" + std::to_string(rows) + "\n";
  if (!write_file(o.dir + "/sched.intervals.tsv", iv_text) ||
      !write_file(o.dir + "/sched.states.tsv", states_text)) {
    std::fprintf(stderr, "gen_intervals: cannot write into %s\n", o.dir.c_str());
    return 1;
  }
  if (samples > 0) {
    // Stacks: per state, one of a few per pool.
    std::string out = "# hearth samples 1\tpid=" + std::to_string(kPid) +
                      "\tname=app\tmono_ns=" + std::to_string(kStart) +
                      "\treal_ns=1795762269000000000\n";
    const char* kStacks[] = {
        "start_thread;app::Pool::run();app::handle(Request&);app::parse(std::string_view)",
        "start_thread;app::Pool::run();app::Queue::pop();pthread_cond_wait;futex_wait_[k]",
        "start_thread;app::Pool::run();app::Table::flush();pthread_mutex_lock;futex_wait_[k]",
        "start_thread;app::Io::loop();pread64;filemap_read_[k];io_schedule_[k]",
        "start_thread;app::Io::loop();epoll_wait;ep_poll_[k]",
    };
    for (int s = 0; s < 5; ++s) out += "s\t" + std::to_string(s) + "\t" + kStacks[s] + "\n";
    for (uint32_t i = 0; i < n; ++i) {
      out += "t\t" + std::to_string(kPid + i) + "\t" + std::to_string(kPid) + "\t[" +
             thread_name(i, n) + " tid=" + std::to_string(kPid + i) + "]\n";
    }
    std::vector<std::string> current(n);
    for (uint64_t s = 0; s < samples; ++s) {
      std::string changes;
      uint32_t changed = 0;
      for (uint32_t i = 0; i < n; ++i) {
        const char st = sampled[i][s];
        const int stack = st == 'R'                              ? 0
                          : st == 'D'                            ? 3
                          : thread_name(i, n).starts_with("io-") ? 4
                                                                 : 1;
        const std::string line =
            std::to_string(kPid + i) + "\t" + st + "\t" + std::to_string(stack) + "\n";
        if (current[i] == line) continue;
        current[i] = line;
        changes += line;
        ++changed;
      }
      out += "r\t" + std::to_string(s * sample_ns) + "\t" + std::to_string(kPid) +
             "\tcopied=" + std::to_string(changed) + "\treused=" + std::to_string(n - changed) +
             "\tstopped=0\tstall_ns=0\n" + changes;
    }
    if (!write_file(o.dir + "/stacks.samples.txt", out)) {
      std::fprintf(stderr, "gen_intervals: cannot write into %s\n", o.dir.c_str());
      return 1;
    }
  }
  std::fprintf(stderr, "gen_intervals: %llu intervals of %u threads over %g s\n",
               static_cast<unsigned long long>(rows), n, o.seconds);
  return 0;
}
