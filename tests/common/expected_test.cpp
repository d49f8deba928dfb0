#include "inarow/common/expected.h"

#include <gtest/gtest.h>

#include <string>

#include "inarow/common/error.h"

namespace inarow {
namespace {

expected<int, Error> half(int n) {
  if (n % 2 != 0) return unexpected(Error{ErrorCode::bad_syntax, 0, "odd"});
  return n / 2;
}

TEST(Expected, CarriesAValueOrAnError) {
  const auto ok = half(4);
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, 2);
  const auto bad = half(3);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::bad_syntax);
  EXPECT_EQ(bad.value_or(-1), -1);
}

TEST(Expected, VoidSucceedsByDefault) {
  expected<void, std::string> ok;
  EXPECT_TRUE(ok);
  expected<void, std::string> bad = unexpected(std::string("no"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "no");
}

TEST(Error, FileErrorsHaveTheirOwnCodes) {
  EXPECT_EQ(to_string(ErrorCode::cannot_read), "cannot_read");
  EXPECT_EQ(to_string(ErrorCode::cannot_write), "cannot_write");
  EXPECT_EQ((Error{ErrorCode::cannot_write, 0, "cannot write x"}).describe(),
            "at offset 0: cannot write x");
}

}  // namespace
}  // namespace inarow
