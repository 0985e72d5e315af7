// RemoteMemory against this test's own process (/proc/self/mem): stack-copy bounds, the page
// cache for read-only file mappings, its refresh when the maps change, and the refusal to read
// a stack beyond its copy.
#include "collectors/stacks/remote_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "collectors/proc/maps.h"

namespace hearth::stacks {
namespace {

uint64_t addr_of(const void* p) {
  return reinterpret_cast<uint64_t>(p);
}

RemoteMemory open_self() {
  auto memory = RemoteMemory::open(getpid());
  EXPECT_TRUE(memory) << memory.error().message;
  auto maps = proc::read_maps(getpid());
  EXPECT_TRUE(maps) << maps.error().message;
  memory->set_maps(*maps);
  return std::move(*memory);
}

void refresh_maps(RemoteMemory& memory) {
  auto maps = proc::read_maps(getpid());
  ASSERT_TRUE(maps);
  memory.set_maps(*maps);
}

// Four read-write pages followed by four PROT_NONE ones: a "stack" mapping with a guard region
// above it. /proc/PID/mem reads PROT_NONE pages too (FOLL_FORCE), so only RemoteMemory's own
// clamp to the mapping keeps a copy out of them. One PROT_NONE page below as well: without it the
// kernel may merge the four pages into a read-write anonymous mapping just below (seen under
// ASan, whose allocator maps such regions), and the "stack" would not start at base.
struct FakeStack {
  uint8_t* base = nullptr;
  FakeStack() {
    void* p = mmap(nullptr, 9 * kPageSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(p, MAP_FAILED);
    base = static_cast<uint8_t*>(p) + kPageSize;
    EXPECT_EQ(mprotect(base, 4 * kPageSize, PROT_READ | PROT_WRITE), 0);
    for (size_t i = 0; i < 4 * kPageSize; ++i) base[i] = static_cast<uint8_t>(i * 7);
  }
  ~FakeStack() { munmap(base - kPageSize, 9 * kPageSize); }
  uint64_t end() const { return addr_of(base) + 4 * kPageSize; }
};

TEST(RemoteMemoryTest, OpenFailsForMissingProcess) {
  auto memory = RemoteMemory::open(999999999);
  ASSERT_FALSE(memory);
  EXPECT_NE(memory.error().message.find("/proc/999999999/mem"), std::string::npos);
}

TEST(RemoteMemoryTest, StackCopyStopsAtTheEndOfItsMapping) {
  FakeStack stack;
  RemoteMemory memory = open_self();
  // sp in the last page: the red zone stays in that page, the mapping ends a page later.
  const uint64_t sp = stack.end() - 1000;
  auto copy = memory.copy_stack(sp, 1 << 20);
  ASSERT_TRUE(copy) << copy.error().message;
  EXPECT_EQ(copy->base, stack.end() - kPageSize);
  EXPECT_EQ(copy->bytes.size(), kPageSize);
  EXPECT_EQ(0, std::memcmp(copy->bytes.data(), stack.base + 3 * kPageSize, kPageSize));
}

TEST(RemoteMemoryTest, StackCopyStartsBelowTheRedZoneButNotBeforeTheMapping) {
  FakeStack stack;
  RemoteMemory memory = open_self();
  // 64 bytes into the mapping: the red zone would reach below it.
  auto copy = memory.copy_stack(addr_of(stack.base) + 64, 2 * kPageSize);
  ASSERT_TRUE(copy) << copy.error().message;
  EXPECT_EQ(copy->base, addr_of(stack.base));
  EXPECT_EQ(copy->bytes.size(), 2 * kPageSize);  // max_bytes honoured
  // 64 bytes into the second page: the red zone reaches into the first.
  copy = memory.copy_stack(addr_of(stack.base) + kPageSize + 64, 100);
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->base, addr_of(stack.base));
  EXPECT_EQ(copy->bytes.size(), kPageSize);  // 100 bytes round up to one whole page
}

TEST(RemoteMemoryTest, ReusedStackCopyKeepsItsBuffer) {
  FakeStack stack;
  RemoteMemory memory = open_self();
  StackCopy copy;
  ASSERT_TRUE(memory.copy_stack(addr_of(stack.base) + 200, 4 * kPageSize, copy));
  const uint8_t* buffer = copy.bytes.data();
  ASSERT_TRUE(memory.copy_stack(stack.end() - 200, 4 * kPageSize, copy));
  EXPECT_EQ(copy.bytes.size(), kPageSize);
  ASSERT_TRUE(memory.copy_stack(addr_of(stack.base) + 200, 4 * kPageSize, copy));
  EXPECT_EQ(copy.bytes.data(), buffer);  // no reallocation: capacity was kept
}

TEST(RemoteMemoryTest, ReadsComeFromTheCopyAndNeverFromBeyondItInTheSameMapping) {
  FakeStack stack;
  RemoteMemory memory = open_self();
  auto copy = memory.copy_stack(stack.end() - 1000, 1 << 20);
  ASSERT_TRUE(copy);
  const uint64_t inside = stack.end() - 16;
  stack.base[inside - addr_of(stack.base)] ^= 0xff;  // the "thread" runs on after the copy
  uint8_t byte = 0;
  const StackView view = copy->view();
  ASSERT_TRUE(memory.read(inside, &byte, 1, &view));
  EXPECT_EQ(byte, copy->bytes[inside - copy->base]);
  EXPECT_NE(byte, stack.base[inside - addr_of(stack.base)]);
  // Below the copy, still in the stack's mapping: refused, not read live.
  uint64_t word = 0;
  EXPECT_FALSE(memory.read(addr_of(stack.base), &word, sizeof word, &view));
  EXPECT_EQ(memory.stats().stack_overrun, 1u);
  // Without a stack copy the same memory is ordinary writable memory: read directly.
  EXPECT_TRUE(memory.read(addr_of(stack.base), &word, sizeof word, nullptr));
  EXPECT_EQ(memory.stats().outside_copy, 1u);
}

TEST(RemoteMemoryTest, UnmappedMemoryIsUnreadable) {
  void* p = mmap(nullptr, kPageSize, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  munmap(p, kPageSize);
  RemoteMemory memory = open_self();
  uint64_t word = 0;
  EXPECT_FALSE(memory.read(addr_of(p), &word, sizeof word, nullptr));
  EXPECT_EQ(memory.stats().failed, 1u);
  EXPECT_FALSE(memory.copy_stack(addr_of(p) + 512, kPageSize));
}

// A temporary file mapped read-only: the kind of mapping the cache keeps.
struct MappedFile {
  std::string path;
  int fd = -1;
  uint8_t* data = nullptr;
  size_t size = 8 * kPageSize;
  MappedFile() {
    char name[] = "/tmp/hearth-remote-memory-XXXXXX";
    fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    path = name;
    std::vector<uint8_t> bytes(size);
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(i / kPageSize + 1);
    EXPECT_EQ(write(fd, bytes.data(), size), static_cast<ssize_t>(size));
    data = static_cast<uint8_t*>(mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0));
    EXPECT_NE(data, MAP_FAILED);
  }
  ~MappedFile() {
    munmap(data, size);
    close(fd);
    unlink(path.c_str());
  }
  void overwrite(size_t offset, uint8_t value) {  // changes the file under the mapping
    EXPECT_EQ(pwrite(fd, &value, 1, static_cast<off_t>(offset)), 1);
  }
};

TEST(RemoteMemoryTest, ReadOnlyFilePagesAreCachedUntilTheMapsChange) {
  MappedFile file;
  RemoteMemory memory = open_self();
  const uint64_t a = addr_of(file.data) + 2 * kPageSize + 8;
  uint8_t byte = 0;
  ASSERT_TRUE(memory.read(a, &byte, 1, nullptr));
  EXPECT_EQ(byte, 3);
  EXPECT_EQ(memory.stats().misses, 1u);
  EXPECT_EQ(memory.stats().outside_copy, 0u);
  // Same page and its neighbours (read in the same group): hits, no syscall.
  const uint64_t bytes_before = memory.stats().bytes_read;
  ASSERT_TRUE(memory.read(a + 100, &byte, 1, nullptr));
  ASSERT_TRUE(memory.read(a + kPageSize, &byte, 1, nullptr));
  EXPECT_EQ(byte, 4);
  EXPECT_EQ(memory.stats().misses, 1u);
  EXPECT_EQ(memory.stats().hits, 2u);
  EXPECT_EQ(memory.stats().bytes_read, bytes_before);

  // The file changes under the mapping: the cache still answers with what it read.
  file.overwrite(2 * kPageSize + 8, 0x55);
  ASSERT_EQ(file.data[2 * kPageSize + 8], 0x55);
  ASSERT_TRUE(memory.read(a, &byte, 1, nullptr));
  EXPECT_EQ(byte, 3);
  // Unchanged maps keep the cache.
  refresh_maps(memory);
  ASSERT_TRUE(memory.read(a, &byte, 1, nullptr));
  EXPECT_EQ(byte, 3);
  // A changed mapping drops its pages: the next read sees the new bytes.
  ASSERT_EQ(mprotect(file.data + 6 * kPageSize, 2 * kPageSize, PROT_NONE), 0);
  refresh_maps(memory);
  ASSERT_TRUE(memory.read(a, &byte, 1, nullptr));
  EXPECT_EQ(byte, 0x55);
  EXPECT_EQ(memory.stats().misses, 2u);
}

TEST(RemoteMemoryTest, PrefetchFillsTheCacheAhead) {
  MappedFile file;
  RemoteMemory memory = open_self();
  EXPECT_EQ(memory.prefetch(addr_of(file.data) + 100, 5 * kPageSize), 5 * kPageSize);
  const uint64_t misses = memory.stats().misses;
  uint8_t buf[3 * kPageSize];
  ASSERT_TRUE(memory.read(addr_of(file.data) + kPageSize, buf, sizeof buf, nullptr));
  EXPECT_EQ(buf[0], 2);
  EXPECT_EQ(buf[sizeof buf - 1], 4);
  EXPECT_EQ(memory.stats().misses, misses);
  // Writable memory is never cached.
  std::vector<uint8_t> heap(3 * kPageSize, 9);
  EXPECT_EQ(memory.prefetch(addr_of(heap.data()), heap.size()), 0u);
}

TEST(RemoteMemoryTest, CacheableMappings) {
  proc::Mapping m;
  m.read = true;
  m.path = "/usr/lib/x86_64-linux-gnu/libc.so.6";
  EXPECT_TRUE(RemoteMemory::cacheable(m));
  m.write = true;
  EXPECT_FALSE(RemoteMemory::cacheable(m));  // .data, .bss: change all the time
  m.write = false;
  m.path = "[vdso]";
  EXPECT_TRUE(RemoteMemory::cacheable(m));
  m.path = "[vvar]";
  EXPECT_FALSE(RemoteMemory::cacheable(m));  // the kernel's clock data
  m.path = "";
  EXPECT_FALSE(RemoteMemory::cacheable(m));  // anonymous: JIT code may be rewritten
}

}  // namespace
}  // namespace hearth::stacks
