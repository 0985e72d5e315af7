// gen_samples: writes a synthetic timed stack samples file (formats/timed_samples.h, README
// "Timed samples") to stdout, for benchmarking `hearth heatmap` (heatmap_bench.sh). Not part of
// any test.
//
//   gen_samples [--seconds 3600] [--hz 10] [--threads 100] [--seed 1] [--change 0.25]
//
// One process of THREADS threads in four pools (60% worker, 20% io, 10% rpc-handler, 10% bg),
// each pool with 40 stacks made of its start-up chain, 3-15 calls from a vocabulary of C++
// names, and often a libc + kernel tail (gen_vocabulary.h); the tail sets the state (futex,
// epoll, recv: S; pread: D half the time; else R). Every sample, each thread moves to another of
// its pool's stacks with probability CHANGE (Zipf: a few hot stacks). Intermittent stalls, the
// pattern the heatmap is for: every 7 s for 300 ms, most workers wait on one mutex (S, in
// `myapp::db::Table::flush()`) and the io threads block in fsync (D). One bg thread exits at
// the middle. The output depends only on the arguments.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "gen_vocabulary.h"

namespace {

struct Options {
  double seconds = 3600;
  double hz = 10;
  uint32_t threads = 100;
  uint64_t seed = 1;
  double change = 0.25;
};

struct StackChoice {
  uint32_t id;
  char state;  // 'R', 'S', or 'd': D half the time, else R
};

class Writer {
 public:
  uint32_t stack_id(const std::string& frames) {
    auto [it, added] = ids_.try_emplace(frames, static_cast<uint32_t>(ids_.size()));
    if (added) texts_.push_back(frames);
    return it->second;
  }
  // The file's id of stack ID (ids are numbered in file order), writing its `s` line first
  // when it is new.
  uint32_t declare(uint32_t id, std::string* out) {
    if (file_ids_.size() <= id) file_ids_.resize(id + 1, UINT32_MAX);
    if (file_ids_[id] == UINT32_MAX) {
      file_ids_[id] = next_++;
      *out += "s\t" + std::to_string(file_ids_[id]) + "\t" + texts_[id] + "\n";
    }
    return file_ids_[id];
  }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> texts_;
  std::vector<uint32_t> file_ids_;
  uint32_t next_ = 0;
};

std::string call_name(gen::Rng& rng) {
  using gen::Words;
  std::string ns(rng.pick(Words(gen::kNamespaces)));
  std::string cls = std::string(rng.pick(Words(gen::kClassPrefixes))) +
                    std::string(rng.pick(Words(gen::kClassNouns)));
  static constexpr std::string_view kVerbs[] = {"run",   "step",  "poll",    "flush", "encode",
                                                "parse", "apply", "compact", "scan",  "dispatch",
                                                "merge", "probe", "commit",  "read_block"};
  std::string verb(rng.pick(Words(kVerbs)));
  return ns + "::" + cls + "::" + verb + "(" + (rng.chance(0.5) ? "" : "unsigned long") + ")";
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--seconds") o.seconds = std::atof(v);
    else if (k == "--hz") o.hz = std::atof(v);
    else if (k == "--threads") o.threads = static_cast<uint32_t>(std::atoi(v));
    else if (k == "--seed") o.seed = std::strtoull(v, nullptr, 10);
    else if (k == "--change") o.change = std::atof(v);
    else {
      std::fprintf(stderr, "gen_samples: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  if (!(o.seconds > 0 && o.hz > 0 && o.threads > 0)) {
    std::fprintf(stderr, "usage: gen_samples [--seconds S] [--hz F] [--threads N] [--seed X] [--change P]\n");
    return 2;
  }
  gen::Rng rng(o.seed);
  const std::vector<gen::Tail> tails = gen::make_tails();
  Writer w;

  struct Pool {
    const char* name;
    std::string chain;
    std::vector<StackChoice> stacks;
  };
  const char* chain_main = "clone3;start_thread;";
  std::vector<Pool> pools = {
      {"worker", std::string(chain_main) + "myapp::sched::ThreadPool::worker_loop(unsigned long)", {}},
      {"io", std::string(chain_main) + "boost::asio::io_context::run()", {}},
      {"rpc-handler", std::string(chain_main) + "myapp::rpc::Server::serve()", {}},
      {"bg", std::string(chain_main) + "myapp::storage::Compactor::loop()", {}},
  };
  for (Pool& p : pools) {
    for (int k = 0; k < 40; ++k) {
      std::string frames = p.chain;
      const uint32_t calls = 3 + rng.below(13);
      for (uint32_t c = 0; c < calls; ++c) frames += ";" + call_name(rng);
      char state = 'R';
      if (rng.chance(0.6)) {
        const gen::Tail& t = tails[rng.below(static_cast<uint32_t>(tails.size()))];
        for (std::string_view f : t.frames) frames += ";" + std::string(f);
        const std::string& last = frames;
        if (last.find("futex") != std::string::npos || last.find("epoll") != std::string::npos ||
            last.find("recv") != std::string::npos)
          state = 'S';
        else if (last.find("pread") != std::string::npos)
          state = 'd';
      }
      p.stacks.push_back({w.stack_id(frames), state});
    }
  }
  const uint32_t lock_stall = w.stack_id(pools[0].chain +
                                         ";myapp::db::Table::flush();pthread_mutex_lock@@GLIBC_2.2.5;"
                                         "__lll_lock_wait;entry_SYSCALL_64_after_hwframe_[k];"
                                         "do_syscall_64_[k];__x64_sys_futex_[k];do_futex_[k];"
                                         "futex_wait_[k];schedule_[k]");
  const uint32_t fsync_stall = w.stack_id(pools[1].chain +
                                          ";myapp::wal::Log::sync();fdatasync;"
                                          "entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];"
                                          "__x64_sys_fdatasync_[k];ext4_sync_file_[k];"
                                          "jbd2_complete_transaction_[k];jbd2_log_wait_commit_[k]");

  struct Thread {
    int64_t tid;
    uint32_t pool;
    uint32_t stack = UINT32_MAX;
    char state = '?';
    bool declared = false;
    bool gone = false;
  };
  std::vector<Thread> threads;
  const uint32_t n_worker = o.threads * 6 / 10, n_io = o.threads * 2 / 10, n_rpc = o.threads / 10;
  for (uint32_t i = 0; i < o.threads; ++i) {
    uint32_t pool = i < n_worker ? 0 : i < n_worker + n_io ? 1 : i < n_worker + n_io + n_rpc ? 2 : 3;
    threads.push_back({4300 + static_cast<int64_t>(i), pool});
  }

  const int64_t pid = 4242;
  std::string out;
  out.reserve(1 << 20);
  out += "# hearth samples 1\tpid=4242\tname=synthetic\tmono_ns=1000000000000\treal_ns=1795762269000000000\n";
  out += "# lines: s ID FRAMES | t TID PID ROOT | r TIME_NS PID copied= reused= stopped= stall_ns= | TID STATE STACK_ID | - TID\n";
  const uint64_t interval = static_cast<uint64_t>(1e9 / o.hz);
  const uint64_t rounds = static_cast<uint64_t>(o.seconds * o.hz);
  const uint64_t gone_round = rounds / 2;
  std::string lines;
  for (uint64_t r = 0; r < rounds; ++r) {
    const uint64_t t = r * interval;
    const uint64_t in_cycle = t % 7'000'000'000ull;
    const bool stall = in_cycle >= 3'000'000'000ull && in_cycle < 3'300'000'000ull;
    lines.clear();
    uint32_t changed = 0;
    for (Thread& th : threads) {
      if (th.gone) continue;
      if (r == gone_round && th.pool == 3 && &th == &threads.back()) {
        th.gone = true;
        lines += "-\t" + std::to_string(th.tid) + "\n";
        continue;
      }
      uint32_t stack = th.stack;
      char state = th.state;
      if (stall && th.pool == 0 && rng.chance(0.8)) {
        stack = lock_stall, state = 'S';
      } else if (stall && th.pool == 1) {
        stack = fsync_stall, state = 'D';
      } else if (th.stack == UINT32_MAX || th.stack == lock_stall || th.stack == fsync_stall ||
                 rng.chance(o.change)) {
        const StackChoice& c = pools[th.pool].stacks[rng.zipf(40)];
        stack = c.id;
        state = c.state == 'd' ? (rng.chance(0.5) ? 'D' : 'R') : c.state;
      }
      if (stack == th.stack && state == th.state) continue;
      th.stack = stack, th.state = state;
      if (!th.declared) {
        th.declared = true;
        out += "t\t" + std::to_string(th.tid) + "\t" + std::to_string(pid) + "\t[" +
               pools[th.pool].name + "-" + std::to_string(th.tid - 4300) + " tid=" +
               std::to_string(th.tid) + "]\n";
      }
      const uint32_t file_id = w.declare(stack, &out);
      lines += std::to_string(th.tid) + "\t" + state + "\t" + std::to_string(file_id) + "\n";
      ++changed;
    }
    out += "r\t" + std::to_string(t) + "\t" + std::to_string(pid) + "\tcopied=" +
           std::to_string(changed) + "\treused=" + std::to_string(o.threads - changed) +
           "\tstopped=0\tstall_ns=0\n";
    out += lines;
    if (out.size() > (1 << 20)) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
