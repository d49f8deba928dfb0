// The password wrapper over libsodium: a hash verifies its password and no
// other, is an Argon2id string with the cost asked for, salted (two hashes
// of one password differ), and knows when its cost is out of date.
#include "inarow/server/password.h"

#include <gtest/gtest.h>

namespace inarow::server {
namespace {

// Small enough to be quick in tests (the server's default is 19 MiB, t=2).
constexpr PasswordCost kCheap{2, std::size_t{1} << 20};

TEST(Password, AHashVerifiesItsPasswordAndNoOther) {
  const auto hash = hash_password("correct horse", kCheap);
  ASSERT_TRUE(hash);
  EXPECT_TRUE(verify_password(*hash, "correct horse"));
  EXPECT_FALSE(verify_password(*hash, "correct horsE"));
  EXPECT_FALSE(verify_password(*hash, "correct horse "));
  EXPECT_FALSE(verify_password(*hash, ""));
}

TEST(Password, TheStoredStringIsArgon2idWithItsCost) {
  const auto hash = hash_password("correct horse", kCheap);
  ASSERT_TRUE(hash);
  EXPECT_EQ(hash->rfind("$argon2id$v=19$m=1024,t=2,p=1$", 0), 0u) << *hash;
  const auto again = hash_password("correct horse", kCheap);
  ASSERT_TRUE(again);
  EXPECT_NE(*hash, *again);  // salted
  EXPECT_TRUE(verify_password(*again, "correct horse"));
}

TEST(Password, PasswordsAreBytesNotCStrings) {
  const std::string with_nul("abc\0def", 7);
  const auto hash = hash_password(with_nul, kCheap);
  ASSERT_TRUE(hash);
  EXPECT_TRUE(verify_password(*hash, with_nul));
  EXPECT_FALSE(verify_password(*hash, "abc"));
}

TEST(Password, GarbageNeverVerifies) {
  EXPECT_FALSE(verify_password("", "x"));
  EXPECT_FALSE(verify_password("$argon2id$v=19$m=1024,t=2,p=1$bm90IGEgaGFzaA", "x"));
  EXPECT_FALSE(verify_password(std::string(200, '$'), "x"));
}

TEST(Password, ARehashIsDueWhenTheCostChanges) {
  const auto hash = hash_password("correct horse", kCheap);
  ASSERT_TRUE(hash);
  EXPECT_FALSE(password_needs_rehash(*hash, kCheap));
  EXPECT_TRUE(password_needs_rehash(*hash, PasswordCost{3, kCheap.memory}));
  EXPECT_TRUE(password_needs_rehash(*hash, PasswordCost{2, kCheap.memory * 2}));
}

TEST(Password, ACostOutsideArgon2sBoundsGivesNoHash) {
  EXPECT_FALSE(hash_password("correct horse", PasswordCost{0, kCheap.memory}));
}

}  // namespace
}  // namespace inarow::server
