#include "render/profile/process_names.h"

#include <gtest/gtest.h>

namespace hearth::profile {
namespace {

TEST(ProcessNames, TheTitleWhereItSaysMoreThanTheName) {
  EXPECT_EQ(process_label("postgres", "postgres: checkpointer"), "postgres: checkpointer");
  EXPECT_EQ(process_label("postgres", ""), "postgres");
  EXPECT_EQ(process_label("postgres", "postgres"), "postgres");
  // An unchanged command line: the program without its directory, with its arguments.
  EXPECT_EQ(process_label("postgres", "/usr/lib/postgresql/15/bin/postgres -D /data"),
            "postgres -D /data");
  EXPECT_EQ(process_label("sleep", "/bin/sleep"), "sleep");
  EXPECT_EQ(process_label("app", "./app"), "app");
  // A path that ends in '/' keeps it; a rewritten title with a slash further on keeps it all.
  EXPECT_EQ(process_label("x", "/"), "/");
  EXPECT_EQ(process_label("nginx", "nginx: worker process /a/b"), "nginx: worker process /a/b");
}

TEST(ProcessNames, ShortTextIsLeftAsItIs) {
  EXPECT_EQ(shorten("postgres: checkpointer", 40), "postgres: checkpointer");
  EXPECT_EQ(shorten(std::string(40, 'a'), 40), std::string(40, 'a'));
  EXPECT_EQ(shorten("", 40), "");
}

TEST(ProcessNames, LongTextKeepsItsStartAndItsLastWords) {
  const std::string backend = "postgres: bench bench [local] UPDATE waiting";
  EXPECT_EQ(shorten(backend, 40), "postgres: bench bench [local]\xe2\x80\xa6 waiting");
  EXPECT_EQ(short_process_label("postgres", backend),
            "postgres: bench bench [local]\xe2\x80\xa6 waiting");
  // A last word that fills the end's third: it comes whole, without its blank.
  EXPECT_EQ(shorten(backend, 24), "postgres: bench\xe2\x80\xa6waiting");
  // No blank at all: the first and the last characters.
  const std::string word(50, 'x');
  const std::string cut = shorten(word + "END", 40);
  EXPECT_EQ(cut, std::string(26, 'x') + "\xe2\x80\xa6" + "xxxxxxxxxxEND");
}

TEST(ProcessNames, CountsCharactersNotBytesAndNeverSplitsOne) {
  // 30 two-byte characters then a word: cut by characters, each one whole.
  std::string accents;
  for (int i = 0; i < 30; ++i) accents += "\xc3\xa9";
  const std::string text = accents + " caf\xc3\xa9 fin";
  const std::string cut = shorten(text, 30);
  size_t chars = 0;
  for (char c : cut) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  EXPECT_LE(chars, 30u);
  EXPECT_TRUE(cut.ends_with(" caf\xc3\xa9 fin"));
  EXPECT_TRUE(cut.starts_with("\xc3\xa9\xc3\xa9"));
  // Every length from 8 up: never longer than asked, the ellipsis always there.
  for (size_t max = 8; max < 39; ++max) {  // TEXT is 39 characters
    const std::string s = shorten(text, max);
    size_t n = 0;
    for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    EXPECT_LE(n, max) << max;
    EXPECT_NE(s.find("\xe2\x80\xa6"), std::string::npos) << max;
  }
}

}  // namespace
}  // namespace hearth::profile
