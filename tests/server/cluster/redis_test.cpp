// The Redis connection (inarow/server/redis.h): URLs and labels, opening
// (refused, passwords, databases), replies decoded, binary safety, error
// replies, pipelines, timeouts, scripts by hash, and a redis-server
// restarted under a live connection; on the redis-servers of
// redis_instance.h.
#include "inarow/server/redis.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mutex>
#include <vector>

#include "inarow/testing/local_service.h"
#include "redis_instance.h"

namespace inarow::server {
namespace {

using inarow::testing::RedisInstance;
using namespace std::chrono_literals;

// A connection to the shared redis-server under this test's own prefix.
class RedisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = RedisInstance::shared();
    ASSERT_NE(server_, nullptr) << RedisInstance::shared_error();
    RedisOptions options;
    options.prefix = inarow::testing::test_prefix();
    auto opened = open_redis(server_->url(), options);
    ASSERT_TRUE(opened) << opened.error();
    redis_ = std::move(*opened);
  }
  std::string key(const std::string& name) const { return redis_->options().prefix + name; }

  RedisInstance* server_ = nullptr;
  std::unique_ptr<Redis> redis_;
};

// ---- URLs ----

TEST(RedisUrl, GoodForms) {
  auto u = parse_redis_url("redis://localhost");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->host, "localhost");
  EXPECT_EQ(u->port, 6379);
  EXPECT_EQ(u->db, 0);
  EXPECT_EQ(u->user, "");
  EXPECT_EQ(u->password, "");

  u = parse_redis_url("redis://cache.example-1:6380");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->host, "cache.example-1");
  EXPECT_EQ(u->port, 6380);
  EXPECT_EQ(u->db, 0);

  u = parse_redis_url("redis://cache:6380/3");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->port, 6380);
  EXPECT_EQ(u->db, 3);

  u = parse_redis_url("redis://cache/");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->db, 0);

  u = parse_redis_url("redis://:s3cret@10.0.0.5:7000/2");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->host, "10.0.0.5");
  EXPECT_EQ(u->port, 7000);
  EXPECT_EQ(u->db, 2);
  EXPECT_EQ(u->user, "");
  EXPECT_EQ(u->password, "s3cret");

  u = parse_redis_url("redis://alice:s3cret@127.0.0.1");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, 6379);
  EXPECT_EQ(u->user, "alice");
  EXPECT_EQ(u->password, "s3cret");

  // Escaped, and not: the user and password end at the last '@'.
  u = parse_redis_url("redis://al%3Ace:p%40ss%2Fw%25@host");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->user, "al:ce");
  EXPECT_EQ(u->password, "p@ss/w%");
  u = parse_redis_url("redis://:pa@s/s:x@host:1/1");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->password, "pa@s/s:x");
  EXPECT_EQ(u->host, "host");
  EXPECT_EQ(u->port, 1);
  EXPECT_EQ(u->db, 1);

  u = parse_redis_url("redis://[::1]:6390/5");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, 6390);
  EXPECT_EQ(u->db, 5);
}

TEST(RedisUrl, BadFormsSayWhatIsWrong) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"http://host", "it must start with redis://"},
      {"host:6379", "it must start with redis://"},
      {"rediss://host", "TLS (rediss://) is not supported"},
      {"redis://", "no host"},
      {"redis://:6379", "no host"},
      {"redis://:pw@", "no host"},
      {"redis:///0", "no host"},
      {"redis://host:0", "the port must be a number from 1 to 65535, not '0'"},
      {"redis://host:70000", "the port must be a number from 1 to 65535, not '70000'"},
      {"redis://host:65536", "the port must be a number from 1 to 65535, not '65536'"},
      {"redis://host:abc", "the port must be a number from 1 to 65535, not 'abc'"},
      {"redis://host:", "the port must be a number from 1 to 65535, not ''"},
      {"redis://host:6379x", "the port must be a number from 1 to 65535, not '6379x'"},
      {"redis://host:-1", "the port must be a number from 1 to 65535, not '-1'"},
      {"redis://host/x", "the database must be a number from 0, not 'x'"},
      {"redis://host/-1", "the database must be a number from 0, not '-1'"},
      {"redis://host/1x", "the database must be a number from 0, not '1x'"},
      {"redis://host/1/extra", "unexpected '/extra' after the database"},
      {"redis://host/0?timeout=1", "unexpected '?timeout=1' after the database"},
      {"redis://host?x=1", "unexpected '?x=1' (no query or fragment is read)"},
      {"redis://ho st", "a bad character in the host 'ho st'"},
      {"redis://[::1", "no ']' after '['"},
      {"redis://[::1]x", "unexpected 'x' after the host"},
      {"redis://[zz]", "a bad IPv6 address"},
      {"redis://user@host", "what comes before '@' must be [user]:password"},
      {"redis://user:@host", "an empty password"},
      {"redis://:%zz@host", "a bad %-escape in the user or password"},
      {"redis://:%4@host", "a bad %-escape in the user or password"},
  };
  for (const auto& [url, why] : cases) {
    auto u = parse_redis_url(url);
    ASSERT_FALSE(u) << url;
    EXPECT_EQ(u.error(), "bad Redis URL: " + why) << url;
  }
}

TEST(RedisUrl, NoErrorNorLabelHoldsThePassword) {
  for (const std::string url :
       {"redis://:hunter2@host:0", "redis://bob:hunter2@host/x", "redis://:hunter2@",
        "redis://:hunter2@host?x", "redis://:hun/ter2@host:99999", "redis://hunter2@host"}) {
    auto u = parse_redis_url(url);
    ASSERT_FALSE(u) << url;
    EXPECT_EQ(u.error().find("hunter2"), std::string::npos) << u.error();
    EXPECT_EQ(u.error().find("ter2"), std::string::npos) << u.error();
    EXPECT_EQ(redis_label(url), u.error());
  }
  EXPECT_EQ(redis_label("redis://:hunter2@cache:6380/4"), "Redis at cache port 6380, database 4");
  EXPECT_EQ(redis_label("redis://bob:hunter2@cache"),
            "Redis at cache port 6379, database 0, user bob");
  EXPECT_EQ(redis_label("redis://127.0.0.1"), "Redis at 127.0.0.1 port 6379, database 0");
}

TEST(RedisScriptName, IsTheSha1OfTheSource) {
  EXPECT_EQ(sha1_hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(sha1_hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(sha1_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(sha1_hex(std::string(1000000, 'a')), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

// ---- Opening ----

TEST(OpenRedis, NobodyListeningNamesHostAndPortNotThePassword) {
  const std::uint16_t port = inarow::testing::free_loopback_port();
  ASSERT_NE(port, 0);
  auto r = open_redis("redis://:hunter2@127.0.0.1:" + std::to_string(port));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "Redis at 127.0.0.1 port " + std::to_string(port) + ": Connection refused");
  EXPECT_EQ(r.error().find("hunter2"), std::string::npos);
}

TEST(OpenRedis, BadUrlIsRefusedBeforeConnecting) {
  auto r = open_redis("redis://:hunter2@127.0.0.1:0");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "bad Redis URL: the port must be a number from 1 to 65535, not '0'");
}

TEST(OpenRedis, PasswordsWrongMissingAndRight) {
  auto server = RedisInstance::launch({"--requirepass", "right-one"});
  ASSERT_TRUE(server) << server.error();
  const std::string at = "127.0.0.1:" + std::to_string((*server)->port());
  const std::string where = "Redis at 127.0.0.1 port " + std::to_string((*server)->port()) + ": ";

  auto wrong = open_redis("redis://:wrong-one@" + at);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error(), where +
                               "AUTH refused: WRONGPASS invalid username-password pair or user is "
                               "disabled.");
  EXPECT_EQ(wrong.error().find("wrong-one"), std::string::npos);

  auto wrong_user = open_redis("redis://nobody:right-one@" + at);
  ASSERT_FALSE(wrong_user);
  EXPECT_TRUE(wrong_user.error().starts_with(where + "AUTH refused: WRONGPASS"))
      << wrong_user.error();
  EXPECT_EQ(wrong_user.error().find("right-one"), std::string::npos);

  auto none = open_redis("redis://" + at);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error(), where + "NOAUTH Authentication required.");

  auto right = open_redis("redis://:right-one@" + at);
  ASSERT_TRUE(right) << right.error();
  auto pong = (*right)->command({"PING"});
  ASSERT_TRUE(pong) << pong.error();
  EXPECT_EQ(pong->string, "PONG");
  EXPECT_EQ((*right)->label(),
            "Redis at 127.0.0.1 port " + std::to_string((*server)->port()) + ", database 0");

  auto as_default = open_redis("redis://default:right-one@" + at + "/2");
  ASSERT_TRUE(as_default) << as_default.error();
}

TEST(OpenRedis, AnotherDatabaseAndOneOutOfRange) {
  RedisInstance* server = RedisInstance::shared();
  ASSERT_NE(server, nullptr) << RedisInstance::shared_error();
  const std::string k = inarow::testing::test_prefix() + "k";
  auto three = open_redis(server->url() + "/3");
  ASSERT_TRUE(three) << three.error();
  auto zero = open_redis(server->url());
  ASSERT_TRUE(zero) << zero.error();
  ASSERT_TRUE((*three)->command({"SET", k, "in three"}));
  auto seen = (*zero)->command({"GET", k});
  ASSERT_TRUE(seen) << seen.error();
  EXPECT_TRUE(seen->is_nil());
  seen = (*three)->command({"GET", k});
  ASSERT_TRUE(seen) << seen.error();
  EXPECT_EQ(seen->string, "in three");
  ASSERT_TRUE((*three)->command({"DEL", k}));

  auto far = open_redis(server->url() + "/99");
  ASSERT_FALSE(far);
  EXPECT_EQ(far.error(), "Redis at 127.0.0.1 port " + std::to_string(server->port()) +
                             ": SELECT 99 refused: ERR DB index is out of range");
}

// ---- Commands ----

TEST_F(RedisTest, BinarySafeRoundTrip) {
  const std::string value("a\0b\xff\r\n\0", 7);
  const std::string k = key(std::string("bin\0key", 7));
  auto set = redis_->command({"SET", k, value});
  ASSERT_TRUE(set) << set.error();
  EXPECT_TRUE(set->is_string());
  EXPECT_EQ(set->string, "OK");
  auto got = redis_->command({"GET", k});
  ASSERT_TRUE(got) << got.error();
  ASSERT_TRUE(got->is_string());
  EXPECT_EQ(got->string, value);
  EXPECT_EQ(got->string.size(), 7u);
  // The key is the 7 bytes, not "bin".
  auto cut = redis_->command({"EXISTS", key("bin")});
  ASSERT_TRUE(cut) << cut.error();
  EXPECT_EQ(cut->integer, 0);
  auto by_vector = redis_->command(std::vector<std::string>{"STRLEN", k});
  ASSERT_TRUE(by_vector) << by_vector.error();
  EXPECT_EQ(by_vector->integer, 7);
}

TEST_F(RedisTest, RepliesDecode) {
  auto n = redis_->command({"INCRBY", key("n"), "5"});
  ASSERT_TRUE(n) << n.error();
  ASSERT_TRUE(n->is_integer());
  EXPECT_EQ(n->integer, 5);
  n = redis_->command({"INCRBY", key("n"), "-9000000000"});
  ASSERT_TRUE(n) << n.error();
  EXPECT_EQ(n->integer, -8999999995);

  auto missing = redis_->command({"GET", key("missing")});
  ASSERT_TRUE(missing) << missing.error();
  EXPECT_TRUE(missing->is_nil());

  ASSERT_TRUE(redis_->command({"RPUSH", key("list"), "a", "", "c"}));
  auto list = redis_->command({"LRANGE", key("list"), "0", "-1"});
  ASSERT_TRUE(list) << list.error();
  ASSERT_TRUE(list->is_array());
  ASSERT_EQ(list->array.size(), 3u);
  EXPECT_EQ(list->array[0].string, "a");
  EXPECT_TRUE(list->array[1].is_string());
  EXPECT_EQ(list->array[1].string, "");
  EXPECT_EQ(list->array[2].string, "c");

  auto mixed = redis_->command({"MGET", key("n"), key("missing")});
  ASSERT_TRUE(mixed) << mixed.error();
  ASSERT_EQ(mixed->array.size(), 2u);
  EXPECT_EQ(mixed->array[0].string, "-8999999995");
  EXPECT_TRUE(mixed->array[1].is_nil());

  auto empty = redis_->command({"LRANGE", key("missing"), "0", "-1"});
  ASSERT_TRUE(empty) << empty.error();
  EXPECT_TRUE(empty->is_array());
  EXPECT_TRUE(empty->array.empty());

  // Nested arrays, from a script.
  Script nested("return {1, {'x', {2}}, false}");
  auto tree = redis_->script(nested, {}, {});
  ASSERT_TRUE(tree) << tree.error();
  ASSERT_EQ(tree->array.size(), 3u);
  EXPECT_EQ(tree->array[0].integer, 1);
  EXPECT_EQ(tree->array[1].array[0].string, "x");
  EXPECT_EQ(tree->array[1].array[1].array[0].integer, 2);
  EXPECT_TRUE(tree->array[2].is_nil());
}

TEST_F(RedisTest, AnErrorReplyIsAnErrorAndTheConnectionStays) {
  ASSERT_TRUE(redis_->command({"SET", key("word"), "abc"}));
  auto bad = redis_->command({"INCR", key("word")});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "ERR value is not an integer or out of range");
  auto wrong_type = redis_->command({"LPUSH", key("word"), "x"});
  ASSERT_FALSE(wrong_type);
  EXPECT_EQ(wrong_type.error(),
            "WRONGTYPE Operation against a key holding the wrong kind of value");
  auto unknown = redis_->command({"NOSUCHCOMMAND"});
  ASSERT_FALSE(unknown);
  EXPECT_TRUE(unknown.error().starts_with("ERR unknown command 'NOSUCHCOMMAND'"))
      << unknown.error();
  EXPECT_TRUE(redis_->healthy());
  auto still = redis_->command({"GET", key("word")});
  ASSERT_TRUE(still) << still.error();
  EXPECT_EQ(still->string, "abc");
}

TEST_F(RedisTest, LatencyIsReportedForEveryCall) {
  std::mutex m;
  std::vector<std::pair<double, bool>> seen;
  redis_->on_latency([&](double seconds, bool ok) {
    std::lock_guard lock(m);
    seen.emplace_back(seconds, ok);
  });
  ASSERT_TRUE(redis_->command({"PING"}));
  ASSERT_FALSE(redis_->command({"NOSUCHCOMMAND"}));
  ASSERT_TRUE(redis_->script(Script("return 1"), {}, {}));
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_TRUE(seen[0].second);
  EXPECT_FALSE(seen[1].second);
  EXPECT_TRUE(seen[2].second);
  for (const auto& [seconds, ok] : seen) {
    EXPECT_GE(seconds, 0.0);
    EXPECT_LT(seconds, 2.0);
  }
}

TEST_F(RedisTest, ScriptsRunByHashAndComeBackAfterAFlush) {
  const Script echo("return {KEYS[1], ARGV[1], ARGV[2]}");
  auto loaded = redis_->command({"SCRIPT", "LOAD", echo.source()});
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded->string, echo.sha1());  // Redis names it as we do

  auto r = redis_->script(echo, {key("k")}, {"a", std::string("b\0c", 3)});
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->array.size(), 3u);
  EXPECT_EQ(r->array[0].string, key("k"));
  EXPECT_EQ(r->array[1].string, "a");
  EXPECT_EQ(r->array[2].string, std::string("b\0c", 3));

  // Forgotten (as by a restart): EVALSHA says NOSCRIPT, EVAL runs it.
  ASSERT_TRUE(redis_->command({"SCRIPT", "FLUSH"}));
  auto gone = redis_->command({"EVALSHA", echo.sha1(), "0"});
  ASSERT_FALSE(gone);
  EXPECT_TRUE(gone.error().starts_with("NOSCRIPT")) << gone.error();
  r = redis_->script(echo, {key("k")}, {"x", "y"});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->array[1].string, "x");
  // ... and EVAL loaded it again.
  auto exists = redis_->command({"SCRIPT", "EXISTS", echo.sha1()});
  ASSERT_TRUE(exists) << exists.error();
  EXPECT_EQ(exists->array.at(0).integer, 1);

  // A script's own error is an error reply.
  auto failed = redis_->script(Script("return redis.error_reply('ERR nope')"), {}, {});
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error(), "ERR nope");
}

// Many commands, one round trip: each reply in its place, an error reply
// only its own command's.
TEST_F(RedisTest, APipelineAnswersEachCommandInOrder) {
  const std::string value("x\0y", 3);
  const std::string k = key("piped");
  std::vector<std::vector<std::string_view>> commands{
      {"SET", k, value}, {"NOSUCHCOMMAND"}, {"GET", k}, {"INCR", k}, {"STRLEN", k}};
  auto r = redis_->pipeline(commands);
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->size(), 5u);
  ASSERT_TRUE((*r)[0]);
  EXPECT_EQ((*r)[0]->string, "OK");
  ASSERT_FALSE((*r)[1]);
  EXPECT_TRUE((*r)[1].error().starts_with("ERR unknown command")) << (*r)[1].error();
  ASSERT_TRUE((*r)[2]);
  EXPECT_EQ((*r)[2]->string, value);
  ASSERT_FALSE((*r)[3]);
  EXPECT_EQ((*r)[3].error(), "ERR value is not an integer or out of range");
  ASSERT_TRUE((*r)[4]);
  EXPECT_EQ((*r)[4]->integer, 3);
  EXPECT_TRUE(redis_->healthy());

  auto none = redis_->pipeline({});
  ASSERT_TRUE(none) << none.error();
  EXPECT_TRUE(none->empty());

  std::vector<std::pair<double, bool>> seen;
  redis_->on_latency([&](double seconds, bool ok) { seen.emplace_back(seconds, ok); });
  ASSERT_TRUE(redis_->pipeline({{"PING"}, {"PING"}}));
  ASSERT_TRUE(redis_->pipeline({{"PING"}, {"NOSUCHCOMMAND"}}));
  ASSERT_EQ(seen.size(), 2u);  // one report a call; ok only if every reply is
  EXPECT_TRUE(seen[0].second);
  EXPECT_FALSE(seen[1].second);
}

// A pipeline that loses its connection fails whole, as one command would.
TEST(RedisTimeout, APipelinePastItsTimeoutFailsWholeAndTheNextConnectsAgain) {
  RedisInstance* server = RedisInstance::shared();
  ASSERT_NE(server, nullptr) << RedisInstance::shared_error();
  RedisOptions options;
  options.command_timeout = 100ms;
  auto opened = open_redis(server->url(), options);
  ASSERT_TRUE(opened) << opened.error();
  Redis& redis = **opened;
  const std::string k = inarow::testing::test_prefix() + "empty";
  auto late = redis.pipeline({{"ECHO", "first"}, {"BLPOP", k, "0.5"}, {"ECHO", "last"}});
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error(), "Redis at 127.0.0.1 port " + std::to_string(server->port()) +
                              ": no reply within 100 ms (connection dropped)");
  EXPECT_FALSE(redis.healthy());
  auto next = redis.pipeline({{"ECHO", "fresh"}});
  ASSERT_TRUE(next) << next.error();
  ASSERT_EQ(next->size(), 1u);
  EXPECT_EQ((*next)[0]->string, "fresh");
  EXPECT_TRUE(redis.healthy());
}

TEST(RedisTimeout, ACommandPastItsTimeoutDropsTheConnectionAndTheNextConnectsAgain) {
  RedisInstance* server = RedisInstance::shared();
  ASSERT_NE(server, nullptr) << RedisInstance::shared_error();
  RedisOptions options;
  options.command_timeout = 100ms;
  auto opened = open_redis(server->url(), options);
  ASSERT_TRUE(opened) << opened.error();
  Redis& redis = **opened;
  // BLPOP on an empty list waits 0.5 s: past the 100 ms.
  const std::string k = inarow::testing::test_prefix() + "empty";
  auto late = redis.command({"BLPOP", k, "0.5"});
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error(), "Redis at 127.0.0.1 port " + std::to_string(server->port()) +
                              ": no reply within 100 ms (connection dropped)");
  EXPECT_FALSE(redis.healthy());
  // A new connection: no stale BLPOP reply is read as this one's.
  auto next = redis.command({"ECHO", "fresh"});
  ASSERT_TRUE(next) << next.error();
  EXPECT_EQ(next->string, "fresh");
  EXPECT_TRUE(redis.healthy());
}

// The server restarted under a live connection. The first call after it
// FAILS (the old connection is gone, and no call is retried behind the
// caller's back); the next connects again and succeeds, and a script
// (which the new server has never seen) runs by the NOSCRIPT fallback.
TEST(RedisRestart, TheFirstCallFailsTheNextConnectsAgain) {
  auto launched = RedisInstance::launch();
  ASSERT_TRUE(launched) << launched.error();
  RedisInstance& server = **launched;
  RedisOptions options;
  options.prefix = inarow::testing::test_prefix();
  auto opened = open_redis(server.url(), options);
  ASSERT_TRUE(opened) << opened.error();
  Redis& redis = **opened;
  const std::string where = "Redis at 127.0.0.1 port " + std::to_string(server.port()) + ": ";
  const Script counter("return redis.call('INCR', KEYS[1])");
  const std::string k = options.prefix + "counter";
  auto one = redis.script(counter, {k}, {});
  ASSERT_TRUE(one) << one.error();
  EXPECT_EQ(one->integer, 1);
  EXPECT_TRUE(redis.healthy());

  ASSERT_TRUE(server.restart());
  auto lost = redis.command({"PING"});
  ASSERT_FALSE(lost);
  EXPECT_EQ(lost.error(), where + "Server closed the connection (connection dropped)");
  EXPECT_FALSE(redis.healthy());
  // Nothing was saved: the counter starts again, and the script is new
  // to this server.
  auto again = redis.script(counter, {k}, {});
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again->integer, 1);
  EXPECT_TRUE(redis.healthy());

  // Stopped: calls fail (connecting is refused) until it is back.
  server.stop();
  auto down = redis.command({"PING"});
  ASSERT_FALSE(down);
  EXPECT_FALSE(redis.healthy());
  down = redis.command({"PING"});
  ASSERT_FALSE(down);
  EXPECT_EQ(down.error(), where + "Connection refused");
  EXPECT_FALSE(redis.healthy());
  ASSERT_TRUE(server.start());
  auto back = redis.script(counter, {k}, {});
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->integer, 1);
  EXPECT_TRUE(redis.healthy());
}

}  // namespace
}  // namespace inarow::server
