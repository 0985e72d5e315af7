#include "common/file_io.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <thread>

namespace hearth {
namespace {

// A pipe whose writer sends TEXT in pieces of PIECE bytes, then closes: reads come short. The
// test reads it to its end (a writer meeting a closed pipe would get SIGPIPE).
class Piped {
 public:
  Piped(std::string text, size_t piece) {
    int fds[2];
    ok_ = pipe2(fds, O_CLOEXEC) == 0;
    if (!ok_) return;
    read_ = fds[0];
    writer_ = std::thread([w = fds[1], text = std::move(text), piece] {
      for (size_t at = 0; at < text.size(); at += piece) {
        if (write_all(w, text.data() + at, std::min(piece, text.size() - at)) != 0) break;
      }
      close(w);
    });
  }
  ~Piped() {  // after the reader read it all: the writer has closed its end
    if (writer_.joinable()) writer_.join();
    if (read_ >= 0) close(read_);
  }
  int fd() const { return read_; }
  bool ok() const { return ok_; }

 private:
  bool ok_ = false;
  int read_ = -1;
  std::thread writer_;
};

TEST(ReadFdBounded, ReadsToTheEndAfterWhatItHoldsWithinTheLimit) {
  const std::string text(300000, 'x');
  Piped p(text, 7000);
  ASSERT_TRUE(p.ok());
  std::string data = "head";
  EXPECT_EQ(read_fd_bounded(p.fd(), 1 << 20, data), 0);
  EXPECT_EQ(data, "head" + text);
}

// A file of TEXT (in memory), open for reading from its start.
int file_of(const std::string& text) {
  const int fd = memfd_create("file_io_test", MFD_CLOEXEC);
  if (fd < 0 || write_all(fd, text.data(), text.size()) != 0 || lseek(fd, 0, SEEK_SET) != 0)
    return -1;
  return fd;
}

TEST(ReadFdBounded, AFileAtTheLimitIsWholeAndOnePastItStopsOneByteOver) {
  const int at = file_of(std::string(1000, 'a'));
  ASSERT_GE(at, 0);
  std::string data;
  EXPECT_EQ(read_fd_bounded(at, 1000, data), 0);
  EXPECT_EQ(data.size(), 1000u);  // at the limit: not past it
  close(at);
  const int past = file_of(std::string(5000, 'b'));
  ASSERT_GE(past, 0);
  data.clear();
  EXPECT_EQ(read_fd_bounded(past, 1000, data), 0);
  EXPECT_EQ(data.size(), 1001u);  // past it: one byte more, never the rest
  close(past);
}

TEST(ReadFdBounded, AFailedReadIsItsErrno) {
  std::string data = "kept";
  EXPECT_EQ(read_fd_bounded(-1, 100, data), EBADF);
  EXPECT_EQ(data, "kept");
}

}  // namespace
}  // namespace hearth
