#include "inarow/testing/temp_dir.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace inarow::testing {
namespace {

TEST(TempDir, WritesTheFileInsideItAndRemovesEverythingWithIt) {
  fs::path dir;
  {
    const TempDir temp;
    dir = temp.path();
    ASSERT_TRUE(fs::is_directory(dir));
    const fs::path file = temp.write("a.txt", std::string("x\0y\n", 4));
    EXPECT_EQ(file, dir / "a.txt");
    EXPECT_EQ(read_file(file), std::string("x\0y\n", 4));
  }
  EXPECT_FALSE(fs::exists(dir));
}

TEST(TempDir, TwoAreNeverTheSame) {
  const TempDir a, b;
  EXPECT_NE(a.path(), b.path());
}

TEST(TempDir, AFailedWriteThrowsNamingTheFile) {
  const TempDir temp;
  try {
    temp.write("no-such-dir/a.txt", "x");
    FAIL() << "the write into a missing directory succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((temp.path() / "no-such-dir/a.txt").string()),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(temp.path() / "no-such-dir"));
}

}  // namespace
}  // namespace inarow::testing
