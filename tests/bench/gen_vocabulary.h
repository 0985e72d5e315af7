// The generator's vocabulary: a PRNG with no platform dependence, and the names, thread
// pools and libc/kernel tails synthetic C++ server stacks are made of (see gen_folded.cpp).
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace gen {

// xoshiro256** seeded through splitmix64.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (uint64_t& s : s_) {
      seed += 0x9e3779b97f4a7c15;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
      z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
      s = z ^ (z >> 31);
    }
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, n).
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(((next() >> 32) * n) >> 32); }
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return unit() < p; }

  template <class T>
  const T& pick(std::span<const T> items) {
    return items[below(static_cast<uint32_t>(items.size()))];
  }

  // Index in [0, n) with weight 1/(i+1): the first items are the hot ones.
  uint32_t zipf(uint32_t n) {
    double total = 0;
    for (uint32_t i = 0; i < n; ++i) total += 1.0 / (i + 1);
    double u = unit() * total;
    for (uint32_t i = 0; i < n; ++i) {
      u -= 1.0 / (i + 1);
      if (u < 0) return i;
    }
    return n - 1;
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

using Words = std::span<const std::string_view>;

// Repeated entries are the more common ones.
inline constexpr std::string_view kNamespaces[] = {"myapp",
                                                   "myapp",
                                                   "myapp::net",
                                                   "myapp::http",
                                                   "myapp::tls",
                                                   "myapp::rpc",
                                                   "myapp::rpc::detail",
                                                   "myapp::db",
                                                   "myapp::db::btree",
                                                   "myapp::sql",
                                                   "myapp::storage",
                                                   "myapp::wal",
                                                   "myapp::lsm",
                                                   "myapp::cache",
                                                   "myapp::sched",
                                                   "myapp::json",
                                                   "myapp::auth",
                                                   "myapp::metrics",
                                                   "myapp::util",
                                                   "myapp::planner",
                                                   "myapp::exec",
                                                   "myapp::(anonymous namespace)",
                                                   "boost::asio::detail",
                                                   "absl::lts_20230802::container_internal",
                                                   "google::protobuf::internal",
                                                   "std::__detail"};

inline constexpr std::string_view kClassPrefixes[] = {
    "",       "",      "",        "Async",   "Tcp",   "Http",     "Tls",       "Shared",  "Local",
    "Remote", "Batch", "Lru",     "Sharded", "Mmap",  "Ring",     "LockFree",  "Compact", "Delta",
    "Bloom",  "Hash",  "Ordered", "Sparse",  "Dense", "ZeroCopy", "Versioned", "Pooled"};

inline constexpr std::string_view kClassNouns[] = {
    "Connection",  "Session",   "Request",   "Response",   "Frame",      "Buffer",     "Table",
    "Index",       "Cursor",    "Page",      "Segment",    "Log",        "Cache",      "Pool",
    "Queue",       "Scheduler", "Executor",  "Parser",     "Encoder",    "Decoder",    "Channel",
    "Stream",      "Socket",    "Handler",   "Router",     "Service",    "Client",     "Server",
    "Transaction", "Snapshot",  "Compactor", "Iterator",   "Visitor",    "Builder",    "Registry",
    "Tracker",     "Counter",   "Histogram", "Map",        "Set",        "Writer",     "Reader",
    "Planner",     "Operator",  "Filter",    "Aggregator", "Serializer", "Allocator",  "Arena",
    "Timer",       "Promise",   "Future",    "Task",       "Worker",     "Dispatcher", "Resolver",
    "Manager",     "Controller"};

inline constexpr std::string_view kTemplateArgs[] = {
    "std::basic_string<char>",
    "int",
    "unsigned long",
    "std::vector<std::byte>",
    "myapp::db::Key",
    "std::shared_ptr<myapp::net::Session>",
    "std::pair<unsigned long const, myapp::cache::Entry>",
    "char",
    "std::chrono::duration<long, std::ratio<1l, 1000000000l>>",
    "myapp::json::Value",
    "std::unique_ptr<myapp::rpc::Call>",
    "unsigned char",
    "myapp::storage::PageId",
    "std::string_view",
    "boost::asio::ip::tcp",
    "std::function<void (myapp::Status)>",
    "4ul",
    "true",
    "myapp::util::SpinLock",
    "double"};

inline constexpr std::string_view kVerbs[] = {
    "read",      "write",       "parse",       "encode",   "decode",   "flush",   "lookup",
    "insert",    "erase",       "find",        "dispatch", "handle",   "process", "submit",
    "run",       "poll",        "wait_for",    "notify",   "compact",  "merge",   "split",
    "serialize", "deserialize", "validate",    "hash",     "compare",  "append",  "reserve",
    "resize",    "visit",       "apply",       "commit",   "rollback", "acquire", "release",
    "schedule",  "on",          "try_emplace", "load",     "store",    "update",  "scan",
    "seek",      "fill",        "drain",       "evict",    "refresh",  "build",   "emit",
    "execute",   "prepare",     "finish",      "reset",    "grow",     "copy"};

inline constexpr std::string_view kNouns[] = {
    "frame", "header", "body",    "message",   "batch",     "record", "page",   "entry",
    "key",   "value",  "chunk",   "block",     "request",   "event",  "some",   "all",
    "next",  "impl",   "locked",  "slow_path", "fast_path", "async",  "range",  "prefix",
    "row",   "column", "segment", "node",      "leaf",      "token",  "buffer", "tail"};

// Repeated entries are the more common ones.
inline constexpr std::string_view kParamTypes[] = {
    "int",
    "unsigned long",
    "bool",
    "int",
    "unsigned long",
    "unsigned int",
    "long",
    "void*",
    "char const*",
    "myapp::Status",
    "char const*",
    "std::span<unsigned char const>",
    "std::basic_string_view<char, std::char_traits<char>>",
    "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char>> const&",
    "myapp::db::Key const&",
    "myapp::net::Endpoint const&",
    "std::function<void (myapp::Status)>&&",
    "myapp::rpc::Context*",
    "myapp::json::Value&",
    "void*",
    "unsigned long*",
    "std::vector<myapp::db::Row>&",
    "myapp::storage::PageId",
    "long",
    "double",
    "std::shared_ptr<myapp::net::Session>",
    "myapp::util::Slice",
    "boost::system::error_code&"};

inline constexpr std::string_view kFreeFunctions[] = {
    "crc32c_extend", "murmur_hash3_x64_128", "parse_uint",  "to_chars_impl", "memcmp_slices",
    "varint_decode", "utf8_validate",        "log_message", "format_to",     "now_ns"};

// A tail: the frames below application code where a sample often lands.
struct Tail {
  std::vector<std::string_view> frames;
  uint32_t weight;
};

inline constexpr std::string_view kSyscallEntry[] = {"entry_SYSCALL_64_after_hwframe_[k]",
                                                     "do_syscall_64_[k]"};

inline std::vector<Tail> make_tails() {
  auto syscall = [](std::initializer_list<std::string_view> user,
                    std::initializer_list<std::string_view> kernel, uint32_t weight) {
    Tail t{{user}, weight};
    t.frames.insert(t.frames.end(), std::begin(kSyscallEntry), std::end(kSyscallEntry));
    t.frames.insert(t.frames.end(), kernel);
    return t;
  };
  std::vector<Tail> tails;
  tails.push_back(
      syscall({"__libc_recv"},
              {"__x64_sys_recvfrom_[k]", "__sys_recvfrom_[k]", "sock_recvmsg_[k]",
               "inet_recvmsg_[k]", "tcp_recvmsg_[k]", "tcp_recvmsg_locked_[k]",
               "skb_copy_datagram_iter_[k]", "__skb_datagram_iter_[k]", "simple_copy_to_iter_[k]",
               "_copy_to_iter_[k]", "copy_user_enhanced_fast_string_[k]"},
              6));
  tails.push_back(syscall({"__libc_send"},
                          {"__x64_sys_sendto_[k]", "__sys_sendto_[k]", "sock_sendmsg_[k]",
                           "tcp_sendmsg_[k]", "tcp_sendmsg_locked_[k]", "tcp_push_[k]",
                           "__tcp_push_pending_frames_[k]", "tcp_write_xmit_[k]",
                           "__tcp_transmit_skb_[k]", "__ip_queue_xmit_[k]", "ip_finish_output2_[k]",
                           "__dev_queue_xmit_[k]", "dev_hard_start_xmit_[k]", "start_xmit_[k]"},
                          5));
  tails.push_back(
      syscall({"pthread_cond_wait@@GLIBC_2.3.2", "__futex_abstimed_wait_common"},
              {"__x64_sys_futex_[k]", "do_futex_[k]", "futex_wait_[k]", "futex_wait_queue_[k]",
               "schedule_[k]", "__schedule_[k]", "finish_task_switch.isra.0_[k]"},
              4));
  tails.push_back(syscall({"pthread_mutex_lock@@GLIBC_2.2.5", "__lll_lock_wait"},
                          {"__x64_sys_futex_[k]", "do_futex_[k]", "futex_wait_[k]",
                           "futex_wait_queue_[k]", "schedule_[k]", "__schedule_[k]"},
                          3));
  tails.push_back(syscall({"epoll_wait"},
                          {"__x64_sys_epoll_wait_[k]", "do_epoll_wait_[k]", "ep_poll_[k]",
                           "schedule_hrtimeout_range_[k]", "schedule_hrtimeout_range_clock_[k]",
                           "schedule_[k]", "__schedule_[k]"},
                          3));
  tails.push_back(syscall({"__libc_pread64"},
                          {"__x64_sys_pread64_[k]", "vfs_read_[k]", "ext4_file_read_iter_[k]",
                           "filemap_read_[k]", "filemap_get_pages_[k]", "copy_page_to_iter_[k]",
                           "_copy_to_iter_[k]", "copy_user_enhanced_fast_string_[k]"},
                          3));
  tails.push_back({{"operator new(unsigned long)", "malloc", "_int_malloc", "sysmalloc",
                    "asm_exc_page_fault_[k]", "exc_page_fault_[k]", "do_user_addr_fault_[k]",
                    "handle_mm_fault_[k]", "__handle_mm_fault_[k]", "do_anonymous_page_[k]",
                    "vma_alloc_folio_[k]", "__folio_alloc_[k]", "__alloc_pages_[k]",
                    "get_page_from_freelist_[k]", "clear_page_erms_[k]"},
                   6});
  tails.push_back({{"__memmove_avx_unaligned_erms", "asm_exc_page_fault_[k]", "exc_page_fault_[k]",
                    "do_user_addr_fault_[k]", "handle_mm_fault_[k]"},
                   5});
  tails.push_back({{"free", "_int_free", "malloc_consolidate"}, 3});
  tails.push_back({{"asm_sysvec_apic_timer_interrupt_[k]", "sysvec_apic_timer_interrupt_[k]",
                    "__sysvec_apic_timer_interrupt_[k]", "hrtimer_interrupt_[k]",
                    "__hrtimer_run_queues_[k]", "tick_sched_timer_[k]", "update_process_times_[k]",
                    "scheduler_tick_[k]", "task_tick_fair_[k]"},
                   2});
  tails.push_back({{"[libc.so.6]"}, 1});
  tails.push_back({{"[unknown]"}, 1});
  return tails;
}

struct Pool {
  std::string_view name;
  uint32_t threads;
  uint32_t weight;  // share of stacks
  std::vector<std::string_view> chain;
};

inline const std::string_view kThreadStart[] = {"clone3", "start_thread"};

inline std::vector<Pool> make_pools() {
  auto thread = [](std::string_view name, uint32_t threads, uint32_t weight,
                   std::initializer_list<std::string_view> rest) {
    Pool p{name, threads, weight, {std::begin(kThreadStart), std::end(kThreadStart)}};
    p.chain.insert(p.chain.end(), rest);
    return p;
  };
  std::vector<Pool> pools;
  pools.push_back({"main",
                   1,
                   5,
                   {"_start", "__libc_start_main_impl", "__libc_start_call_main", "main",
                    "myapp::Application::run(int, char**)"}});
  pools.push_back(thread("worker", 16, 50,
                         {"std::thread::_State_impl<std::thread::_Invoker<std::tuple<myapp::"
                          "sched::ThreadPool::ThreadPool(unsigned long)::{lambda()#1}>>>::_M_run()",
                          "myapp::sched::ThreadPool::worker_loop(unsigned long)"}));
  pools.push_back(thread(
      "io", 4, 15,
      {"std::thread::_State_impl<std::thread::_Invoker<std::tuple<myapp::net::IoContextPool::"
       "start()::{lambda()#1}>>>::_M_run()",
       "boost::asio::io_context::run()",
       "boost::asio::detail::scheduler::run(boost::system::error_code&)",
       "boost::asio::detail::scheduler::do_run_one(boost::asio::detail::conditionally_enabled_"
       "mutex::scoped_lock&, boost::asio::detail::scheduler_thread_info&, "
       "boost::system::error_code const&)"}));
  pools.push_back(thread("rpc-handler", 8, 20,
                         {"myapp::rpc::Server::handler_main(myapp::rpc::Server*, unsigned long)",
                          "myapp::rpc::Server::serve_one(myapp::rpc::Context*)"}));
  pools.push_back(thread("compactor", 2, 6, {"myapp::storage::lsm::Compactor::background_main()"}));
  pools.push_back(thread("metrics-flush", 1, 2, {"myapp::metrics::Flusher::run(std::stop_token)"}));
  pools.push_back(thread("timer", 1, 2,
                         {"myapp::sched::TimerWheel::run()", "myapp::sched::TimerWheel::tick()"}));
  return pools;
}

// Builds C++-like function names, each distinct.
class NameMaker {
 public:
  explicit NameMaker(Rng& rng) : rng_(rng) {}

  std::string make() {
    for (;;) {
      std::string name = candidate();
      if (seen_.insert(name).second) return name;
    }
  }

 private:
  std::string words(Words w) { return std::string(rng_.pick(w)); }

  struct ClassName {
    std::string full;  // namespace::Name<args>
    std::string bare;  // Name, for constructors
  };

  ClassName class_name() {
    ClassName c;
    c.bare = words(kClassPrefixes);
    c.bare += words(kClassNouns);
    c.full = words(kNamespaces) + "::" + c.bare;
    if (rng_.chance(0.15)) {
      c.full += '<' + words(kTemplateArgs);
      if (rng_.chance(0.2)) c.full += ", " + words(kTemplateArgs);
      c.full += '>';
    }
    return c;
  }

  std::string params() {
    static constexpr uint32_t kCounts[] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 2};
    const uint32_t n = kCounts[rng_.below(std::size(kCounts))];
    std::string p = "(";
    for (uint32_t i = 0; i < n; ++i) {
      if (i) p += ", ";
      p += rng_.pick(Words(kParamTypes));
    }
    return p + ')';
  }

  std::string method() {
    std::string m = words(kVerbs);
    if (rng_.chance(0.65)) m += '_' + words(kNouns);
    return m;
  }

  // Every Rng call is its own statement: the order in which operands of `+` are evaluated is
  // unspecified, and the output must not depend on the compiler.
  std::string candidate() {
    const auto [cls, bare] = class_name();
    const uint32_t kind = rng_.below(100);
    std::string name = cls + "::";
    if (kind < 60) {  // plain method
      name += method();
      name += params();
      if (rng_.chance(0.2)) name += " const";
    } else if (kind < 65) {  // template method
      name += method();
      name += '<' + words(kTemplateArgs) + '>';
      name += params();
    } else if (kind < 69) {  // lambda inside a method
      name += method();
      name += params();
      name += "::{lambda(";
      if (rng_.chance(0.3)) name += words(kParamTypes);
      name += ")#" + std::to_string(1 + rng_.below(3)) + "}::operator()() const";
    } else if (kind < 75) {  // operators, some with unbalanced '<' / '>'
      static constexpr std::string_view kOps[] = {"operator<",  "operator->", "operator()",
                                                  "operator[]", "operator==", "operator="};
      const std::string_view op = rng_.pick(Words(kOps));
      name += op;
      if (op == "operator<" || op == "operator==") {
        name += '(' + cls + " const&) const";
      } else if (op == "operator->") {
        name += "() const";
      } else if (op == "operator[]") {
        name += "(unsigned long)";
      } else if (op == "operator=") {
        name += '(' + cls + "&&)";
      } else {
        name += params();
      }
    } else if (kind < 82) {  // constructor / destructor
      if (rng_.chance(0.5)) {
        name += bare + params();
      } else {
        name += '~' + bare + "()";
      }
    } else if (kind < 84) {  // std::function thunk around a lambda
      name = "std::_Function_handler<void (myapp::Status), " + name;
      name += method();
      name += params();
      name += "::{lambda(myapp::Status)#1}>::_M_invoke(std::_Any_data const&, myapp::Status&&)";
    } else {  // free function
      name = words(kNamespaces) + "::";
      name += words(kFreeFunctions);
      name += params();
    }
    return name;
  }

  Rng& rng_;
  std::unordered_set<std::string> seen_;
};

}  // namespace gen
