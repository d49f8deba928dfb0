#include "inarow/bots/weights_file.h"

#include <gtest/gtest.h>

#include <string>

#include "inarow/testing/temp_dir.h"

namespace inarow::bots {
namespace {

TEST(WeightsFile, LoadsWhatParseReads) {
  const Variant v = Variant::connect4();
  const std::string text = "# tuned\nvariant = connect4\nw1 = 2\nw3 = 90\n";
  const inarow::testing::TempDir dir;
  const auto path = dir.write("good.txt", text).string();
  const auto w = load_weights(v, path);
  ASSERT_TRUE(w) << w.error().describe();
  EXPECT_EQ(*w, *Weights::parse(v, text));
}

// bots/weights/ holds the tuning runs that made the built-in weights: each
// file must read back as exactly what the engine builds in.
TEST(WeightsFile, TheTunedFilesAreTheBuiltInWeights) {
  for (const Variant& v : {Variant::connect4(), Variant::gomoku()}) {
    const auto w = load_weights(v, std::string(INAROW_WEIGHTS_DIR) + "/" + v.name + ".txt");
    ASSERT_TRUE(w) << v.name << ": " << w.error().describe();
    EXPECT_EQ(*w, Weights::defaults(v)) << v.name << ":\n" << w->to_text();
    // Every weight is written out, not left to the defaults it is checked
    // against.
    const std::string text =
        inarow::testing::read_file(std::string(INAROW_WEIGHTS_DIR) + "/" + v.name + ".txt");
    for (const std::string& key : w->keys())
      EXPECT_NE(text.find("\n" + key + " = "), std::string::npos) << v.name << ": " << key;
  }
}

TEST(WeightsFile, AMissingFileCannotBeRead) {
  const auto w = load_weights(Variant::connect4(), "/nonexistent/weights.txt");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().code, ErrorCode::cannot_read);
  EXPECT_NE(w.error().message.find("/nonexistent/weights.txt"), std::string::npos);
}

TEST(WeightsFile, BadContentsNameTheLine) {
  const inarow::testing::TempDir dir;
  const auto path = dir.write("bad.txt", "w1 = 1\nw2 = two\n").string();
  const auto w = load_weights(Variant::connect4(), path);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().code, ErrorCode::bad_weights);
  EXPECT_NE(w.error().message.find("line 2"), std::string::npos) << w.error().message;
}

}  // namespace
}  // namespace inarow::bots
