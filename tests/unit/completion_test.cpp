// The bash completion script's pieces (bin/hearth/completion.h): the fixed choices read from
// CLI11's type names, and words bash could misread left out of the script.
#include "bin/hearth/completion.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hearth::cli {
namespace {

using Words = std::vector<std::string>;

TEST(CompletionChoices, FromCli11TypeNames) {
  EXPECT_EQ(completion_choices("TEXT:{wall,cpu}"), (Words{"wall", "cpu"}));
  EXPECT_EQ(completion_choices("TEXT:{auto,folded,perf-script}=auto"),
            (Words{"auto", "folded", "perf-script"}));
  EXPECT_EQ(completion_choices("ENUM:value in {fast->0,slow->1} OR {0,1}"),
            (Words{"fast", "slow"}));
  EXPECT_EQ(completion_choices("TEXT"), Words{});
  EXPECT_EQ(completion_choices("UINT:INT in [1 - 100]"), Words{});
  // A choice bash would split or expand is left out, not quoted wrongly.
  EXPECT_EQ(completion_choices("TEXT:{a b,$(x),ok}"), Words{"ok"});
}

TEST(BashCompletion, VerbsOptionsAndChoicesInTheScript) {
  const std::string s = bash_completion(
      {{"push",
        {{{"--send-as"}, {"folded", "pprof"}, true}, {{"--insecure"}, {}, false},
         {{"--bad name"}, {}, true}}}},
      {"--help", "--version"});
  EXPECT_NE(s.find("compgen -W 'push --help --version'"), std::string::npos) << s;
  EXPECT_NE(s.find("options='--send-as --insecure'"), std::string::npos) << s;
  EXPECT_NE(s.find("takes=' --send-as '"), std::string::npos) << s;  // a flag takes no value
  EXPECT_NE(s.find("--send-as) choices='folded pprof' ;;"), std::string::npos) << s;
  EXPECT_EQ(s.find("bad name"), std::string::npos) << s;
  EXPECT_NE(s.find("complete -o filenames -o bashdefault -F _hearth hearth\n"), std::string::npos);
}

}  // namespace
}  // namespace hearth::cli
