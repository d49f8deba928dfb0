// A server as a node of a cluster (--redis): it registers in the shared
// directory with the address it serves on and leaves it when it stops;
// /healthz turns not ready while Redis is gone and ready again when it is
// back (the node registering again if its entry lapsed, and telling where
// its people are again); a person connected to it is located there from
// their first connection to their last; a Redis it cannot
// reach at start is a clear error and a non-zero exit, naming the host and
// port but never the password.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "inarow/server/directory.h"
#include "inarow/server/redis.h"
#include "inarow/testing/eventually.h"
#include "inarow/testing/process.h"
#include "inarow/testing/test_server.h"
#include "inarow/testing/ws_client.h"
#include "redis_instance.h"

namespace inarow::testing {
namespace {

using server::Directory;
using server::open_redis;

bool lists_node(Directory& directory, const std::string& id, const std::string& address) {
  auto nodes = directory.nodes();
  if (!nodes) return false;
  return std::any_of(nodes->begin(), nodes->end(),
                     [&](const auto& n) { return n.node_id == id && n.address == address; });
}

bool lists_node_id(Directory& directory, const std::string& id) {
  auto nodes = directory.nodes();
  if (!nodes) return false;
  return std::any_of(nodes->begin(), nodes->end(), [&](const auto& n) { return n.node_id == id; });
}

// Where the directory has the player ("" if nowhere, or Redis failed).
std::string located(Directory& directory, const std::string& player) {
  auto at = directory.location(player);
  return at && *at ? **at : std::string{};
}

// The value of an unlabelled or labelled sample in /metrics text.
std::string sample(const std::string& metrics, const std::string& name) {
  const auto at = metrics.find("\n" + name + " ");
  if (at == std::string::npos) return {};
  const auto start = at + name.size() + 2;
  return metrics.substr(start, metrics.find('\n', start) - start);
}

TEST(ClusterNode, RegistersWithItsAddressAndLeavesWhenItStops) {
  RedisInstance* redis = RedisInstance::shared();
  ASSERT_NE(redis, nullptr) << RedisInstance::shared_error();
  auto watcher = open_redis(redis->url());
  ASSERT_TRUE(watcher) << watcher.error();
  Directory directory(**watcher);

  server::ServerConfig config = test_config();
  config.redis = redis->url();
  config.node_id = "node-a";
  config.node_ttl = 600ms;
  {
    TestServer node(config);
    const std::string address = "127.0.0.1:" + std::to_string(node.port());
    EXPECT_TRUE(lists_node(directory, "node-a", address));
    // Still there after several TTLs: the heartbeat renews it, every
    // 200 ms. A node stalled past its TTL (the whole process held up, as
    // on a loaded CI machine once) lapses and registers again at its next
    // beat, so the listing is waited for, for less than a TTL; the
    // renewals counted say the heartbeat renewed the entry, not only
    // registered it again.
    std::this_thread::sleep_for(1500ms);
    EXPECT_TRUE(eventually([&] { return lists_node(directory, "node-a", address); }, 500ms));
    const HttpReply health = http_get(node.port(), "/healthz");
    EXPECT_EQ(health.status, 200);
    EXPECT_EQ(health.body, "ok\n");
    const std::string metrics = http_get(node.port(), "/metrics").body;
    EXPECT_GE(std::atoi(sample(metrics, "inarow_heartbeats_total").c_str()), 3);
    EXPECT_EQ(sample(metrics, "inarow_cluster_nodes"), "1");
    EXPECT_EQ(sample(metrics, "inarow_ready{part=\"redis\"}"), "1");
    EXPECT_NE(sample(metrics, "inarow_redis_command_seconds_count"), "0");
    // A person here is located here from their first connection to their last.
    std::string id;
    {
      WsClient first(node.port());
      id = first.hello("Ada").player_id();
      ASSERT_TRUE(eventually([&] { return located(directory, id) == "node-a"; }, 5s));
      WsClient second(node.port());
      EXPECT_TRUE(second.resume(first.token()).resumed());
    }
    EXPECT_TRUE(eventually([&] { return located(directory, id).empty(); }, 5s));
    node.stop();
    // Gone at once, not after the TTL.
    EXPECT_FALSE(lists_node_id(directory, "node-a"));
  }
}

TEST(ClusterNode, IsNotReadyWhileRedisIsGoneAndReadyWhenItIsBack) {
  auto own = RedisInstance::launch();  // its own: this test stops it
  ASSERT_TRUE(own) << own.error();
  RedisInstance& redis = **own;
  server::ServerConfig config = test_config();
  config.redis = redis.url();
  config.node_id = "node-b";
  config.node_ttl = 600ms;
  TestServer node(config);
  ASSERT_EQ(http_get(node.port(), "/healthz").status, 200);
  WsClient here(node.port());
  const std::string id = here.hello("Grace").player_id();

  redis.stop();
  ASSERT_TRUE(eventually([&] { return http_get(node.port(), "/healthz").status == 503; }, 10s));
  const HttpReply down = http_get(node.port(), "/healthz");
  EXPECT_EQ(down.body, "not ready: Redis does not answer\n");
  const std::string metrics = http_get(node.port(), "/metrics").body;
  EXPECT_EQ(sample(metrics, "inarow_ready{part=\"redis\"}"), "0");
  EXPECT_NE(sample(metrics, "inarow_redis_failures_total"), "0");

  // A restarted Redis has lost every key (no persistence in the tests):
  // the node finds its entry gone and registers again.
  auto started = redis.start();
  ASSERT_TRUE(started) << started.error();
  ASSERT_TRUE(eventually([&] { return http_get(node.port(), "/healthz").status == 200; }, 10s));
  auto watcher = open_redis(redis.url());
  ASSERT_TRUE(watcher) << watcher.error();
  Directory directory(**watcher);
  EXPECT_TRUE(eventually([&] { return lists_node_id(directory, "node-b"); }, 5s));
  EXPECT_GE(
      std::atoi(sample(http_get(node.port(), "/metrics").body, "inarow_node_lapses_total").c_str()),
      1);
  // And where its people are: told again, since Redis lost that too.
  EXPECT_TRUE(eventually([&] { return located(directory, id) == "node-b"; }, 5s));
}

TEST(ClusterNode, ARedisItCannotReachIsAClearErrorAndANonZeroExit) {
  // A port nobody listens on: take a free one and let it go.
  auto gone = RedisInstance::launch();
  ASSERT_TRUE(gone) << gone.error();
  const std::uint16_t port = (*gone)->port();
  (*gone)->stop();
  const std::string url = "redis://:s3cret-pw@127.0.0.1:" + std::to_string(port);

  server::ServerConfig config = test_config();
  config.redis = url;
  server::Server in_process(config);
  auto started = in_process.start();
  ASSERT_FALSE(started);
  EXPECT_NE(started.error().find("127.0.0.1"), std::string::npos) << started.error();
  EXPECT_NE(started.error().find(std::to_string(port)), std::string::npos) << started.error();
  EXPECT_EQ(started.error().find("s3cret-pw"), std::string::npos) << started.error();

  // The real binary: exits non-zero, saying why, without the password.
  ChildProcess process(
      {INAROW_SERVER_BINARY, "--port", "0", "--store", ":memory:", "--redis", url});
  const auto status = process.wait_exit(15s);
  ASSERT_TRUE(status.has_value()) << "the server did not exit";
  EXPECT_NE(*status, 0);
  while (process.next_line(2s)) {
  }
  EXPECT_NE(process.transcript().find(std::to_string(port)), std::string::npos)
      << process.transcript();
  EXPECT_EQ(process.transcript().find("s3cret-pw"), std::string::npos) << process.transcript();

  // A malformed URL is refused by name, before anything is opened.
  ChildProcess bad({INAROW_SERVER_BINARY, "--port", "0", "--store", ":memory:", "--redis",
                    "http://127.0.0.1:6379"});
  const auto bad_status = bad.wait_exit(15s);
  ASSERT_TRUE(bad_status.has_value());
  EXPECT_NE(*bad_status, 0);
  while (bad.next_line(2s)) {
  }
  EXPECT_NE(bad.transcript().find("redis://"), std::string::npos) << bad.transcript();
}

}  // namespace
}  // namespace inarow::testing
