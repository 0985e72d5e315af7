#include "common/pattern.h"

#include <gtest/gtest.h>

#include <string>

namespace hearth {
namespace {

Pattern compiled(const char* text) {
  return Pattern::compile(text).value();  // a bad pattern throws: the test fails
}

TEST(Pattern, SearchesAnywhereInTheText) {
  Pattern p = compiled("lock");
  EXPECT_TRUE(p.search("pthread_mutex_lock"));
  EXPECT_TRUE(p.search("lock_guard"));
  EXPECT_FALSE(p.search("futex_wait"));
  EXPECT_EQ(p.text(), "lock");
}

TEST(Pattern, AnchorsAlternationAndClasses) {
  EXPECT_TRUE(compiled("^run$").search("run"));
  EXPECT_FALSE(compiled("^run$").search("runner"));
  EXPECT_TRUE(compiled("mutex|futex").search("sys_futex"));
  EXPECT_TRUE(compiled(R"(\[worker-\d+ tid=\d+\])").search("[worker-12 tid=7]"));
  EXPECT_TRUE(compiled(R"(\bfoo\b)").search("a foo b"));
  EXPECT_FALSE(compiled(R"(\bfoo\b)").search("afoob"));
  EXPECT_TRUE(compiled("(?i)MAIN").search("main"));
}

TEST(Pattern, EmptyMatchesEverything) {
  Pattern p = compiled("");
  EXPECT_TRUE(p.search(""));
  EXPECT_TRUE(p.search("anything"));
}

TEST(Pattern, BadPatternIsOneLineError) {
  Result<Pattern> p = Pattern::compile("(x");
  ASSERT_FALSE(p.has_value());
  EXPECT_EQ(p.error().message, "missing ): (x");
  EXPECT_FALSE(Pattern::compile("a{2000}").has_value());  // RE2 caps repetition at 1000
  EXPECT_FALSE(Pattern::compile("[z-a]").has_value());
}

TEST(Pattern, EcmaScriptOnlyFeaturesAreErrorsWithAHint) {
  for (const char* text : {"(a)\\1", "a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b", "(?<n>a)"}) {
    SCOPED_TRACE(text);
    Result<Pattern> p = Pattern::compile(text);
    ASSERT_FALSE(p.has_value());
    EXPECT_NE(p.error().message.find("RE2 syntax has no backreferences"), std::string::npos)
        << p.error().message;
    EXPECT_EQ(p.error().message.find('\n'), std::string::npos);
  }
  EXPECT_TRUE(compiled("(?P<n>a)").search("a"));  // RE2's spelling of a named group
}

TEST(Pattern, ErrorsAreNotLoggedToStderr) {
  testing::internal::CaptureStderr();
  EXPECT_FALSE(Pattern::compile("(x").has_value());
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

// libstdc++'s std::regex recursed once per character here and overflowed the stack.
TEST(Pattern, LongSubjectsAreSafe) {
  Pattern p = compiled("(x|y)+z");
  std::string name(20000, 'x');
  EXPECT_FALSE(p.search(name));
  name += "yz";
  EXPECT_TRUE(p.search(name));
  std::string huge(4 << 20, 'y');  // 4 MiB: still linear
  EXPECT_FALSE(p.search(huge));
  huge.back() = 'z';
  EXPECT_TRUE(p.search(huge));
  EXPECT_TRUE(compiled("^(.*)*$").search(huge));
}

TEST(Pattern, InvalidUtf8BytesAreSearchedAsReplacementCharacters) {
  EXPECT_TRUE(
      compiled("a.b").search("a\xff"
                             "b"));
  EXPECT_TRUE(compiled("^a[^x]b$")
                  .search("a\xc3"
                          "b"));  // a truncated sequence: one char
  EXPECT_TRUE(compiled("\\x{FFFD}").search("x\x80"));
  EXPECT_FALSE(compiled("\\x{FFFD}").search("plain"));
  EXPECT_TRUE(compiled("^.$").search("\xc3\xa9"));  // é is one character
  EXPECT_TRUE(compiled("é").search("caf\xc3\xa9"));
  EXPECT_TRUE(compiled("lock").search("\xfe\xfflock"));
}

TEST(Pattern, InvalidUtf8PatternIsAnError) {
  Result<Pattern> p = Pattern::compile("a\xff");
  ASSERT_FALSE(p.has_value());
  EXPECT_EQ(p.error().message, "invalid UTF-8");
}

TEST(Pattern, CopiesShareOneCompiledProgram) {
  Pattern a = compiled("ab+c");
  Pattern b = a;
  EXPECT_TRUE(b.search("xabbbcx"));
  EXPECT_FALSE(b.search("ac"));
  EXPECT_EQ(b.text(), a.text());
}

}  // namespace
}  // namespace hearth
