#include "collectors/sched/fork_watcher.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "collectors/sched/tracefs_c.h"

#include <atomic>
#include <cerrno>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <variant>

#include "collectors/sched/decoder.h"
#include "collectors/sched/tracefs_instance.h"
#include "common/unique_fd.h"

namespace hearth::sched {

struct ForkWatcher::Impl {
  TracefsInstance instance;
  Decoder decoder;
  OnForks on_forks;
  std::vector<UniqueFd> fds;  // per-CPU trace_pipe_raw, non-blocking
  std::vector<int> cpus;
  UniqueFd stop_fd;  // eventfd
  std::thread thread;
  std::atomic<uint64_t> forks{0};
  std::vector<char> page;
  struct FreeKbuffer {
    void operator()(kbuffer* k) const { kbuffer_free(k); }
  };
  std::unique_ptr<kbuffer, FreeKbuffer> kbuf;
  std::mutex failure_mutex;
  std::string failure;  // why the thread ended early ("" while it runs or when it ended well)

  explicit Impl(TracefsInstance i) : instance(std::move(i)) {}

  // The thread's body: run(), with any exception caught and kept (it would end the process).
  void run_guarded() {
    std::string why;
    try {
      run();
      return;
    } catch (const std::exception& e) {
      why = e.what();
    } catch (...) {
      why = "an unknown exception";
    }
    std::lock_guard<std::mutex> lock(failure_mutex);
    failure = "the fork watcher stopped: " + why;
  }

  // Reads everything available on FD (CPU) and decodes the forks into *OUT.
  void drain(int fd, int cpu, std::vector<ForkEvent>* out) {
    for (;;) {
      ssize_t n = ::read(fd, page.data(), page.size());
      if (n <= 0) return;  // EAGAIN: nothing more now
      if (kbuffer_load_subbuffer(kbuf.get(), page.data()) < 0) continue;
      unsigned long long ts = 0;
      for (void* data = kbuffer_read_event(kbuf.get(), &ts); data != nullptr;
           data = kbuffer_next_event(kbuf.get(), &ts)) {
        tep_record rec{};
        rec.ts = ts;
        rec.data = data;
        rec.size = kbuffer_event_size(kbuf.get());
        rec.cpu = cpu;
        SchedEvent ev;
        if (!decoder.decode(&rec, &ev)) continue;
        if (auto* f = std::get_if<ForkEvent>(&ev)) out->push_back(std::move(*f));
      }
    }
  }

  void run() {
    std::vector<pollfd> pfds;
    for (const UniqueFd& fd : fds) pfds.push_back({fd.get(), POLLIN, 0});
    pfds.push_back({stop_fd.get(), POLLIN, 0});
    bool stopping = false;
    while (!stopping) {
      int n = ::poll(pfds.data(), pfds.size(), -1);
      if (n < 0 && errno != EINTR) break;
      stopping = (pfds.back().revents & POLLIN) != 0;
      std::vector<ForkEvent> batch;
      for (size_t i = 0; i < fds.size(); ++i) {
        // On stop, whatever is left; else the CPUs that have data.
        if (stopping || (pfds[i].revents & (POLLIN | POLLERR)) != 0)
          drain(fds[i].get(), cpus[i], &batch);
      }
      if (!batch.empty()) {
        forks += batch.size();
        on_forks(batch);
      }
    }
  }
};

ForkWatcher::ForkWatcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ForkWatcher::~ForkWatcher() {
  stop();
}

Result<std::unique_ptr<ForkWatcher>> ForkWatcher::start(OnForks on_forks) {
  InstanceOptions io;
  io.switches = false;
  io.forks = true;
  io.buffer_kb_per_cpu = 64;
  io.wake_on_every_event = true;
  io.name_suffix = "-fork";
  ASSIGN_OR_RETURN(TracefsInstance instance, TracefsInstance::create(io));
  auto impl = std::make_unique<Impl>(std::move(instance));
  impl->on_forks = std::move(on_forks);
  RETURN_IF_ERROR(impl->decoder.init());
  impl->kbuf.reset(kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST));
  if (impl->kbuf == nullptr) return fail("out of memory for a kbuffer");
  impl->page.resize(static_cast<size_t>(::sysconf(_SC_PAGESIZE)));
  long ncpus = ::sysconf(_SC_NPROCESSORS_CONF);
  for (int cpu = 0; cpu < ncpus; ++cpu) {
    std::string file = "per_cpu/cpu" + std::to_string(cpu) + "/trace_pipe_raw";
    char* path = tracefs_instance_get_file(impl->instance.get(), file.c_str());
    if (path == nullptr) continue;
    UniqueFd fd(::open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    tracefs_put_tracing_file(path);
    if (!fd) continue;  // offline or absent CPU
    impl->fds.push_back(std::move(fd));
    impl->cpus.push_back(cpu);
  }
  if (impl->fds.empty()) {
    int e = errno;
    return fail_errno("cannot open any trace_pipe_raw of the fork-watching tracefs instance", e);
  }
  impl->stop_fd.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!impl->stop_fd) {
    const int e = errno;  // before the message's allocation
    return fail_errno("cannot create an eventfd", e);
  }
  RETURN_IF_ERROR(impl->instance.start());
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->run_guarded(); });
  return std::unique_ptr<ForkWatcher>(new ForkWatcher(std::move(impl)));
}

void ForkWatcher::stop() {
  if (!impl_ || !impl_->thread.joinable()) return;
  uint64_t one = 1;
  (void)!::write(impl_->stop_fd.get(), &one, sizeof one);
  impl_->thread.join();
  (void)impl_->instance.stop();
}

std::string ForkWatcher::failure() const {
  if (!impl_) return {};
  std::lock_guard<std::mutex> lock(impl_->failure_mutex);
  return impl_->failure;
}

uint64_t ForkWatcher::forks_seen() const {
  return impl_ ? impl_->forks.load() : 0;
}

}  // namespace hearth::sched
