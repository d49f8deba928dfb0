// The account settings as inarow-server's flags, on a real process: the
// Argon2id cost a flag sets is the one the stored hash says, a flag's limit
// on wrong passwords holds, and a value out of range stops the server with
// the flag's name before it listens.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../store/records.h"
#include "inarow/testing/messages.h"
#include "inarow/testing/process.h"
#include "inarow/testing/temp_dir.h"
#include "inarow/testing/ws_client.h"

namespace inarow::testing {
namespace {

v1::ClientMessage set_password(const std::string& password) {
  v1::ClientMessage m;
  m.mutable_set_password()->set_password(password);
  return m;
}

v1::ClientMessage sign_in(const std::string& name, const std::string& password) {
  v1::ClientMessage m = hello_message(name);
  m.mutable_hello()->set_password(password);
  return m;
}

TEST(AccountFlags, TheCostAndTheLimitOnWrongPasswordsAreTheFlags) {
  TempDir dir;
  const fs::path store = dir.path() / "inarow.db";
  ServerOptions options;
  options.store = store.string();
  options.extra_args = {"--password-ops",
                        "1",
                        "--password-memory-kib",
                        "64",
                        "--password-failures-per-name",
                        "1",
                        "--password-failure-window-ms",
                        "60000"};
  {
    ServerProcess server(options);
    WsClient owner(server.port());
    owner.hello("Olga");
    expect_ack(owner.request(set_password("olga's secret")));
    expect_error(WsClient(server.port()).request(sign_in("Olga", "a guess")),
                 v1::ERROR_WRONG_PASSWORD);
    // One wrong password is all the flag allows: even the right one waits.
    expect_error(WsClient(server.port()).request(sign_in("Olga", "olga's secret")),
                 v1::ERROR_RATE_LIMITED);
    server.stop();
  }
  const std::string hash = server::testing::query_rows(store, "SELECT password_hash FROM accounts");
  EXPECT_EQ(hash.rfind("$argon2id$v=19$m=64,t=1,p=1$", 0), 0u) << hash;
}

TEST(AccountFlags, AValueOutOfRangeStopsTheServerAndNamesTheFlag) {
  for (const std::vector<std::string>& flag :
       {std::vector<std::string>{"--password-ops", "0"},
        std::vector<std::string>{"--password-memory-kib", "4"},
        std::vector<std::string>{"--password-threads", "0"},
        std::vector<std::string>{"--max-pending-passwords", "-1"},
        std::vector<std::string>{"--password-failures-per-name", "many"},
        std::vector<std::string>{"--password-failure-window-ms", "0"}}) {
    // Through a shell, so that the error (on standard error) is read too.
    ChildProcess server({"/bin/sh", "-c",
                         std::string(INAROW_SERVER_BINARY) +
                             " --port 0 --store :memory: " + flag[0] + " " + flag[1] + " 2>&1"});
    const auto line = server.expect_if(
        [&](const std::string& l) { return l.find(flag[0]) != std::string::npos; }, 10s);
    EXPECT_TRUE(line) << flag[0] << ": " << server.transcript();
    const auto status = server.wait_exit(10s);
    ASSERT_TRUE(status) << flag[0];
    EXPECT_NE(*status, 0) << flag[0];
  }
}

}  // namespace
}  // namespace inarow::testing
