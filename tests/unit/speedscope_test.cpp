// speedscope: the writer, the reader, their round trip, and bad data (dangling frame indices).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "render/profile/folded_reader.h"
#include "render/profile/folded_writer.h"
#include "render/profile/frame_tree.h"
#include "render/profile/speedscope_reader.h"
#include "render/profile/speedscope_writer.h"

namespace hearth::profile {
namespace {

constexpr std::string_view kSpeedscopeRoots =
    "[worker-1 tid=42];main;run;work 7\n"
    "[worker-1 tid=42];main;run 2\n"
    "[pool];main;poll 3\n"
    "java-27409/28741;[unknown];recv 5\n"
    "plain;f 1\n"
    "[lonely tid=3] 2\n";

FrameTree speedscope_source_tree(std::string_view folded) {
  FrameTree tree;
  FoldedReader reader(tree, {.format = InputFormat::kFolded});
  reader.read_text(folded);
  tree.finalize();
  return tree;
}

// The folded stacks a speedscope file reads back as ("" and *ERROR on an error).
std::string folded_of_speedscope(std::string_view json, std::string* error = nullptr) {
  FrameTree tree;
  FoldedReader reader(tree, {});
  auto r = reader.read_speedscope(json, "test.speedscope.json");
  if (!r) {
    if (error != nullptr) *error = r.error().message;
    return "";
  }
  tree.finalize();
  return to_folded(tree);
}

TEST(Speedscope, RoundTripKeepsStacksCountsAndRoots) {
  FrameTree tree = speedscope_source_tree(kSpeedscopeRoots);
  auto json = to_speedscope(tree);
  ASSERT_TRUE(json) << json.error().message;
  EXPECT_EQ(folded_of_speedscope(*json), to_folded(tree));
}

TEST(Speedscope, OneSampledProfilePerThreadWithSharedFrames) {
  auto json = to_speedscope(speedscope_source_tree(kSpeedscopeRoots));
  ASSERT_TRUE(json);
  nlohmann::json doc = nlohmann::json::parse(*json);
  EXPECT_EQ(doc["$schema"], "https://www.speedscope.app/file-format-schema.json");
  ASSERT_EQ(doc["profiles"].size(), 5u);  // one per root, in name order
  const nlohmann::json& worker = doc["profiles"][2];
  EXPECT_EQ(worker["name"], "[worker-1 tid=42]");
  EXPECT_EQ(worker["type"], "sampled");
  EXPECT_EQ(worker["unit"], "none");
  EXPECT_EQ(worker["endValue"], 9);
  ASSERT_EQ(worker["samples"].size(), 2u);
  EXPECT_EQ(worker["weights"], nlohmann::json::parse("[2, 7]"));
  const nlohmann::json& frames = doc["shared"]["frames"];
  std::string leaf;
  for (const auto& i : worker["samples"][1]) leaf = frames[i.get<size_t>()]["name"];
  EXPECT_EQ(leaf, "work");
  // "main" is one shared frame for both threads that call it.
  int mains = 0;
  for (const auto& f : frames) mains += f["name"] == "main";
  EXPECT_EQ(mains, 1);
}

TEST(Speedscope, FractionalCountsStayFractional) {
  FrameTree tree = speedscope_source_tree("a;b 0.5\na 1.25\n");
  auto json = to_speedscope(tree);
  ASSERT_TRUE(json);
  EXPECT_EQ(folded_of_speedscope(*json), "a 1.25\na;b 0.5\n");
}

TEST(Speedscope, DifferentialTreesAreRefused) {
  FrameTree tree = speedscope_source_tree("a;b 1 2\n");
  ASSERT_TRUE(tree.differential());
  EXPECT_FALSE(to_speedscope(tree));
}

TEST(Speedscope, ForeignProfilesNameTheirThreads) {
  // Two profiles of another tool: each name a root; one profile alone: no root.
  constexpr std::string_view two =
      R"({"$schema":"https://www.speedscope.app/file-format-schema.json",
    "shared":{"frames":[{"name":"main"},{"name":"f;g"}]},
    "profiles":[{"type":"sampled","name":"MainThread","unit":"none","startValue":0,"endValue":3,
                 "samples":[[0,1],[0]],"weights":[2,1]},
                {"type":"sampled","name":"[io tid=7]","unit":"none","startValue":0,"endValue":1,
                 "samples":[[0]],"weights":[1]}]})";
  EXPECT_EQ(folded_of_speedscope(two),
            "[MainThread];main 1\n[MainThread];main;f:g 2\n[io tid=7];main 1\n");
  constexpr std::string_view one = R"({"shared":{"frames":[{"name":"main"}]},
    "profiles":[{"type":"sampled","name":"a.txt","unit":"none","startValue":0,"endValue":4,
                 "samples":[[0]],"weights":[4]}]})";
  EXPECT_EQ(folded_of_speedscope(one), "main 4\n");
}

TEST(Speedscope, EventedProfilesCountTimeOnEachStack) {
  constexpr std::string_view evented = R"({"shared":{"frames":[{"name":"a"},{"name":"b"}]},
    "profiles":[{"type":"evented","name":"x","unit":"microseconds","startValue":0,"endValue":10,
      "events":[{"type":"O","frame":0,"at":0},{"type":"O","frame":1,"at":3},
                {"type":"C","frame":1,"at":7},{"type":"C","frame":0,"at":10}]}]})";
  EXPECT_EQ(folded_of_speedscope(evented), "a 6\na;b 4\n");
}

TEST(Speedscope, BadFilesAreOneLineErrorsAndAddNothing) {
  const std::string_view bad[] = {
      // A dangling frame index.
      R"({"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"x",
         "unit":"none","startValue":0,"endValue":1,"samples":[[0],[3]],"weights":[1,1]}]})",
      R"({"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"x",
         "unit":"none","startValue":0,"endValue":1,"samples":[[-1]],"weights":[1]}]})",
      // Weights that do not match the samples; a negative weight.
      R"({"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","samples":[[0]],"weights":[]}]})",
      R"({"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","samples":[[0]],"weights":[-2]}]})",
      // A close of another frame; time going back; a frame left open.
      R"({"shared":{"frames":[{"name":"a"},{"name":"b"}]},"profiles":[{"type":"evented",
         "events":[{"type":"O","frame":0,"at":0},{"type":"C","frame":1,"at":1}]}]})",
      R"({"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"evented",
         "events":[{"type":"O","frame":0,"at":5},{"type":"C","frame":0,"at":1}]}]})",
      R"({"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"evented",
         "events":[{"type":"O","frame":0,"at":5}]}]})",
      "{",
      "{\"profiles\":[]}",
      "[1,2]",
      R"({"shared":{"frames":[]},"profiles":[{"type":"x"}]})",
  };
  for (std::string_view json : bad) {
    std::string error;
    EXPECT_EQ(folded_of_speedscope(json, &error), "") << json;
    EXPECT_FALSE(error.empty()) << json;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
  std::string error;
  folded_of_speedscope(bad[0], &error);
  EXPECT_NE(error.find("frame index 3"), std::string::npos) << error;
}

TEST(Speedscope, FilesPastTheLimitAreRefused) {
  FrameTree tree;
  FoldedReader reader(tree, {.max_speedscope_bytes = 10});
  auto r = reader.read_speedscope(R"({"shared":{"frames":[]},"profiles":[]})", "big.json");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("limit"), std::string::npos);
}

TEST(Speedscope, JsonIsToldFromFoldedStacks) {
  EXPECT_TRUE(looks_like_speedscope("{\"$sc"));
  EXPECT_TRUE(looks_like_speedscope(" \n{"));
  EXPECT_FALSE(looks_like_speedscope("main;f 1"));
  EXPECT_FALSE(looks_like_speedscope(""));
}

}  // namespace
}  // namespace hearth::profile
