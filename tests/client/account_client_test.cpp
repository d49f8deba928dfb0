// Accounts from the console against a real inarow-server: `password`
// protects a name, and `login` signs in to it from another device (its own
// config folder) after the server refused the bare name. A wrong password
// changes nothing: the device is still nobody, and the account keeps its
// password.
#include <gtest/gtest.h>

#include "client_process.h"

namespace inarow::client::testing {
namespace {

class AccountClientTest : public ClientConfigs {};

TEST_F(AccountClientTest, APasswordProtectsTheNameAndLoginSignsInFromAnotherDevice) {
  ServerProcess server(":memory:");
  ClientProcess laptop(server.url(), "ada", config("laptop"));
  const std::string first = expect_line(laptop, "welcome ");
  EXPECT_EQ(field(first, "account"), "no");
  laptop.send("password");
  EXPECT_EQ(field(expect_line(laptop, "ask "), "prompt"), "New password: ");
  laptop.send("correct-horse-9");
  expect_line(laptop, "password-set ");

  // The phone has no token: the bare name is refused, and nothing runs but a login.
  ClientProcess phone(server.url(), "ada", config("phone"));
  EXPECT_EQ(field(expect_line(phone, "error "), "code"), "NAME_TAKEN");
  phone.send("login ADA");  // any case
  expect_line(phone, "ask ");
  phone.send("battery-staple");
  EXPECT_EQ(field(expect_line(phone, "error "), "code"), "WRONG_PASSWORD");
  // Back to the bare name, refused again.
  EXPECT_EQ(field(expect_line(phone, "error "), "code"), "NAME_TAKEN");
  phone.send("login ada");
  expect_line(phone, "ask ");
  phone.send("correct-horse-9");
  const std::string in = expect_line(phone, "welcome ");
  EXPECT_EQ(field(in, "player"), field(first, "player"));
  EXPECT_EQ(field(in, "name"), "ada");
  EXPECT_EQ(field(in, "account"), "yes");
  EXPECT_EQ(field(in, "signed-in"), "yes");
  phone.send("profile");
  EXPECT_EQ(field(expect_line(phone, "profile "), "kind"), "account");
  phone.send("quit");
  EXPECT_EQ(phone.wait_exit(), 0);

  // The phone's own token resumes it next time, without the password.
  ClientProcess again(server.url(), "", config("phone"));
  const std::string resumed = expect_line(again, "welcome ");
  EXPECT_EQ(field(resumed, "player"), field(first, "player"));
  EXPECT_EQ(field(resumed, "resumed"), "yes");
  again.send("quit");
  EXPECT_EQ(again.wait_exit(), 0);

  // The laptop changes the password: the old one is asked for first.
  laptop.send("password");
  EXPECT_EQ(field(expect_line(laptop, "ask "), "prompt"), "Current password: ");
  laptop.send("correct-horse-9");
  laptop.send("staple-battery-10");
  expect_line(laptop, "password-set ");
  laptop.send("quit");
  EXPECT_EQ(laptop.wait_exit(), 0);
}

}  // namespace
}  // namespace inarow::client::testing
