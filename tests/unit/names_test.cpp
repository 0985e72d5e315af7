#include "render/flame/names.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace hearth::flame {
namespace {

constexpr std::string_view kEllipsis = "\xe2\x80\xa6";  // U+2026

// fit_label's WIDTH for exactly CHARS characters at font size 10, width factor 0.5.
double width_for(size_t chars) {
  return static_cast<double>(chars) * 5.0 + 0.01;
}
std::string fit(std::string_view name, size_t chars) {
  return fit_label(name, width_for(chars), 10, 0.5);
}

std::string ell(std::string_view s) {  // "…" spelled "~" in expectations, for readability
  std::string out;
  for (char c : s) out += c == '~' ? std::string(kEllipsis) : std::string(1, c);
  return out;
}

TEST(Names, StripAnnotation) {
  EXPECT_EQ(strip_annotation("foo_[k]"), "foo");
  EXPECT_EQ(strip_annotation("foo_[w]"), "foo");
  EXPECT_EQ(strip_annotation("foo_[i]"), "foo");
  EXPECT_EQ(strip_annotation("Lfoo;::bar_[j]"), "Lfoo;::bar");
  EXPECT_EQ(strip_annotation("_[k]"), "");
  EXPECT_EQ(strip_annotation("foo_[x]"), "foo_[x]");
  EXPECT_EQ(strip_annotation("foo[k]"), "foo[k]");
  EXPECT_EQ(strip_annotation("foo_[k] "), "foo_[k] ");
  EXPECT_EQ(strip_annotation("[k]"), "[k]");
  EXPECT_EQ(strip_annotation(""), "");
}

TEST(Names, DropParameters) {
  EXPECT_EQ(drop_parameters("foo(int, char const*)"), ell("foo(~)"));
  EXPECT_EQ(drop_parameters("foo()"), "foo()");
  EXPECT_EQ(drop_parameters("ns::f(std::function<void (int)>) const"), ell("ns::f(~) const"));
  EXPECT_EQ(drop_parameters("f(int)::g(char)"), ell("f(~)::g(~)"));
  EXPECT_EQ(drop_parameters("(anonymous namespace)::helper(int)"),
            ell("(anonymous namespace)::helper(~)"));
  EXPECT_EQ(drop_parameters("plain_c_function"), "plain_c_function");
  EXPECT_EQ(drop_parameters(""), "");
}

TEST(Names, DropParametersOfOperators) {
  EXPECT_EQ(drop_parameters("Foo::operator()(int) const"), ell("Foo::operator()(~) const"));
  EXPECT_EQ(drop_parameters("operator<(A const&, A const&)"), ell("operator<(~)"));
  EXPECT_EQ(drop_parameters("std::unique_ptr<T>::operator->() const"),
            "std::unique_ptr<T>::operator->() const");
}

TEST(Names, DropParametersOfLambdas) {
  EXPECT_EQ(drop_parameters("main::{lambda(int)#1}::operator()(int) const"),
            ell("main::{lambda(~)#1}::operator()(~) const"));
  EXPECT_EQ(drop_template_arguments("run<main::{lambda(int)#1}>(main::{lambda(int)#1}&&)"),
            ell("run<~>(~)"));
}

TEST(Names, UnbalancedParenthesesAreLeftAlone) {
  EXPECT_EQ(drop_parameters("foo(int"), "foo(int");
  EXPECT_EQ(drop_parameters("foo)int("), "foo)int(");
  EXPECT_EQ(drop_parameters("f(a)) g(b)"), "f(a)) g(b)");
  EXPECT_EQ(drop_parameters("((x)"), "((x)");
}

TEST(Names, DropTemplateArguments) {
  EXPECT_EQ(drop_template_arguments("std::vector<int, std::allocator<int> >::push_back(int&&)"),
            ell("std::vector<~>::push_back(~)"));
  EXPECT_EQ(drop_template_arguments("a<b<c<d>>>::e<f>::g<>()"), ell("a<~>::e<~>::g<>()"));
  // Parameter lists go first, so a '>' inside them cannot unbalance the templates.
  EXPECT_EQ(drop_template_arguments("f<int>(std::greater<int>, bool (*)(a>b))"), ell("f<~>(~)"));
  EXPECT_EQ(drop_template_arguments("(anonymous namespace)::Foo<int>::bar()"),
            ell("(anonymous namespace)::Foo<~>::bar()"));
}

TEST(Names, UnbalancedTemplatesAreLeftAlone) {
  EXPECT_EQ(drop_template_arguments("bool operator<(A, A)"), ell("bool operator<(~)"));
  EXPECT_EQ(drop_template_arguments("bool operator<<int>(A)"), ell("bool operator<<int>(~)"));
  EXPECT_EQ(drop_template_arguments("std::unique_ptr<Foo>::operator->()"),
            "std::unique_ptr<Foo>::operator->()");
  EXPECT_EQ(drop_template_arguments("a>b"), "a>b");
}

TEST(Names, CodePoints) {
  EXPECT_EQ(code_points(""), 0u);
  EXPECT_EQ(code_points("abc"), 3u);
  EXPECT_EQ(code_points("\xc3\xa9t\xc3\xa9"), 3u);  // "été"
  EXPECT_EQ(code_points("\xe2\x80\xa6"), 1u);       // "…"
  EXPECT_EQ(code_points("\xf0\x9f\x94\xa5!"), 2u);  // fire emoji
  EXPECT_EQ(code_points("a\xff-z"), 4u);            // invalid lead byte
}

// names.h: "invalid bytes count one each"; the SVG writer turns each into one U+FFFD, so a
// stray continuation byte is one character on screen and must count as one when fitting.
TEST(Names, CodePointsCountsStrayContinuationBytes) {
  EXPECT_EQ(code_points("a\x80-z"), 4u);
  EXPECT_EQ(code_points("\x80\x80\x80"), 3u);
  EXPECT_EQ(code_points("x\xe2\x80"), 3u);  // a truncated "…": two invalid bytes
  EXPECT_EQ(fit("ab\x80\x80\x80\x80\x80", 5), "ab\x80..");
}

TEST(Names, FitLabelNeedsThreeCharacters) {
  EXPECT_EQ(fit_label("main", 14.99, 10, 0.5), "");  // 2 characters
  EXPECT_EQ(fit_label("main", 15.0, 10, 0.5), "m..");
  EXPECT_EQ(fit("main", 3), "m..");
  EXPECT_EQ(fit_label("main", 0, 10, 0.5), "");
  EXPECT_EQ(fit_label("main", -100, 10, 0.5), "");
  EXPECT_EQ(fit_label("main", 100, 0, 0.5), "main");  // infinite room
  EXPECT_EQ(fit_label("main", 0, 0, 0.5), "");        // NaN: no label
  EXPECT_EQ(fit_label("", 100, 10, 0.5), "");
}

TEST(Names, FitLabelCandidatesInOrder) {
  const std::string name = "ns::Foo<int, long>::bar(std::string const&, int)";
  const std::string no_params = ell("ns::Foo<int, long>::bar(~)");
  const std::string no_templates = ell("ns::Foo<~>::bar(~)");
  EXPECT_EQ(fit(name, code_points(name)), name);
  EXPECT_EQ(fit(name, 200), name);
  EXPECT_EQ(fit(name, code_points(name) - 1), no_params);
  EXPECT_EQ(fit(name, code_points(no_params)), no_params);
  EXPECT_EQ(fit(name, code_points(no_params) - 1), no_templates);
  EXPECT_EQ(fit(name, code_points(no_templates)), no_templates);
  EXPECT_EQ(fit(name, code_points(no_templates) - 1), "ns::Foo<" + ell("~>::bar.."));
  EXPECT_EQ(fit(name, 6), "ns::..");
}

TEST(Names, FitLabelCutHasExactLength) {
  const std::string name = "abcdefghijklmnopqrstuvwxyz";
  for (size_t chars = 3; chars < name.size(); ++chars) {
    std::string label = fit(name, chars);
    EXPECT_EQ(code_points(label), chars);
    EXPECT_EQ(label, name.substr(0, chars - 2) + "..");
  }
}

TEST(Names, FitLabelNeverCutsInsideACodePoint) {
  const std::string name =
      "\xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5x\xc3\xa9\xc3\xa9\xc3\xa9";  // é€🔥xééé
  EXPECT_EQ(fit(name, 7), name);
  EXPECT_EQ(fit(name, 6), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5x..");
  EXPECT_EQ(fit(name, 5), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5..");
  EXPECT_EQ(fit(name, 4), "\xc3\xa9\xe2\x82\xac..");
  EXPECT_EQ(fit(name, 3), "\xc3\xa9..");
}

TEST(Names, WithThousands) {
  EXPECT_EQ(with_thousands(0), "0");
  EXPECT_EQ(with_thousands(999), "999");
  EXPECT_EQ(with_thousands(1000), "1,000");
  EXPECT_EQ(with_thousands(1234567), "1,234,567");
  EXPECT_EQ(with_thousands(100000), "100,000");
  EXPECT_EQ(with_thousands(1e21), "1,000,000,000,000,000,000,000");
  EXPECT_EQ(with_thousands(-1234), "-1,234");
}

TEST(Names, WithThousandsRoundsLikePrintf) {
  EXPECT_EQ(with_thousands(0.5), "0");  // half to even
  EXPECT_EQ(with_thousands(1.5), "2");
  EXPECT_EQ(with_thousands(2.5), "2");
  EXPECT_EQ(with_thousands(999.5), "1,000");
  EXPECT_EQ(with_thousands(0.49), "0");
}

}  // namespace
}  // namespace hearth::flame
