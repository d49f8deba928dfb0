// The node bus (inarow/server/node_bus.h) on real redis-servers, each test
// under its own key prefix: order, exactly once and intact bytes for ten
// thousand messages (zero bytes, a megabyte); two senders to one inbox;
// a node posting to itself; what was posted before a node opened; a gap
// for a Redis restarted between messages, for one down a while (what was
// posted meanwhile waits) and for a sender opened again;
// stop() sending what was queued; a Redis not there; a full queue; the
// counts, and a handler that throws.
#include "inarow/server/node_bus.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "inarow/testing/eventually.h"
#include "inarow/testing/local_service.h"
#include "redis_instance.h"

namespace inarow::server {
namespace {

using inarow::testing::eventually;
using inarow::testing::RedisInstance;
using namespace std::chrono_literals;

// What a bus's handlers were called with, in order: a message (from,
// bytes), or a gap (from, nullopt).
struct Seen {
  std::string from;
  std::optional<std::string> bytes;
  friend bool operator==(const Seen&, const Seen&) = default;
};

Seen msg(std::string from, std::string bytes) {
  return {std::move(from), std::move(bytes)};
}
Seen gap(std::string from) {
  return {std::move(from), std::nullopt};
}

void PrintTo(const Seen& s, std::ostream* os) {
  *os << (s.bytes ? "message from " : "gap from ") << s.from;
  if (s.bytes) *os << ": " << (s.bytes->size() <= 40 ? *s.bytes : "(long)");
}

class Recorder {
 public:
  NodeBus::Handlers handlers() {
    NodeBus::Handlers h;
    h.message = [this](const std::string& from, std::string_view bytes) {
      std::lock_guard lock(mutex_);
      seen_.push_back(msg(from, std::string(bytes)));
      ++messages_;
    };
    h.gap = [this](const std::string& from) {
      std::lock_guard lock(mutex_);
      seen_.push_back(gap(from));
    };
    return h;
  }
  std::vector<Seen> seen() const {
    std::lock_guard lock(mutex_);
    return seen_;
  }
  std::size_t messages() const {
    std::lock_guard lock(mutex_);
    return messages_;
  }
  // Waits until `n` messages came (gaps not counted).
  bool wait_for(std::size_t n, std::chrono::milliseconds timeout = 10s) const {
    return eventually([&] { return messages() >= n; }, timeout, 5ms);
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Seen> seen_;
  std::size_t messages_ = 0;
};

// A short block: each stop() waits for at most one.
NodeBusOptions fast() {
  NodeBusOptions o;
  o.block = 100ms;
  return o;
}

RedisOptions prefixed() {
  RedisOptions o;
  o.prefix = inarow::testing::test_prefix();
  return o;
}

// The sender counts a message sent once Redis has answered the batch that
// held it, which can be after the receiver already has it: read the count
// once it got there (and then exactly).
bool counted_sent(const NodeBus& bus, std::uint64_t n) {
  return eventually([&] { return bus.stats().sent >= n; });
}

std::unique_ptr<NodeBus> open_bus(const std::string& url, const std::string& node,
                                  NodeBus::Handlers handlers, NodeBusOptions options = fast()) {
  auto opened = NodeBus::open(url, prefixed(), node, std::move(handlers), options);
  if (!opened) {
    ADD_FAILURE() << opened.error();
    return nullptr;
  }
  return std::move(*opened);
}

// A plain connection under this test's prefix, to look at the inboxes.
std::unique_ptr<Redis> watcher(const std::string& url) {
  auto opened = open_redis(url, prefixed());
  if (!opened) {
    ADD_FAILURE() << opened.error();
    return nullptr;
  }
  return std::move(*opened);
}

std::int64_t xlen(Redis& redis, const std::string& key) {
  auto r = redis.command({"XLEN", key});
  EXPECT_TRUE(r) << r.error();
  return r && r->is_integer() ? r->integer : -1;
}

class NodeBusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = RedisInstance::shared();
    ASSERT_NE(server_, nullptr) << RedisInstance::shared_error();
  }
  std::string url() const { return server_->url(); }

  RedisInstance* server_ = nullptr;
};

// Message i: its number, bytes of every value (zeros among them), and a
// length that varies; number 5000 is a megabyte.
std::string payload(int i) {
  std::string s = std::to_string(i);
  s.push_back('\0');
  const int extra = i == 5000 ? (1 << 20) : i % 97;
  for (int k = 0; k < extra; ++k)
    s.push_back(static_cast<char>((i + k) & 0xff));
  return s;
}

TEST_F(NodeBusTest, TenThousandMessagesArriveInOrderExactlyOnceAndIntact) {
  constexpr int kMessages = 10000;
  Recorder at_a, at_b;
  auto a = open_bus(url(), "A", at_a.handlers());
  auto b = open_bus(url(), "B", at_b.handlers());
  ASSERT_TRUE(a && b);
  for (int i = 0; i < kMessages; ++i)
    a->post("B", payload(i));
  ASSERT_TRUE(at_b.wait_for(kMessages, 60s)) << at_b.messages();

  const auto seen = at_b.seen();
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(kMessages));  // no gap, no extra
  for (int i = 0; i < kMessages; ++i) {
    ASSERT_EQ(seen[i], msg("A", payload(i))) << "message " << i;
  }
  EXPECT_EQ(seen[5000].bytes->size(), std::size_t{(1 << 20) + 5});
  EXPECT_TRUE(at_a.seen().empty());
  ASSERT_TRUE(counted_sent(*a, kMessages));
  const auto sa = a->stats();
  EXPECT_EQ(sa.sent, std::uint64_t{kMessages});
  EXPECT_EQ(sa.dropped, 0u);
  EXPECT_EQ(sa.send_failures, 0u);
  const auto sb = b->stats();
  EXPECT_EQ(sb.received, std::uint64_t{kMessages});
  EXPECT_EQ(sb.gaps, 0u);
  EXPECT_EQ(sb.discarded, 0u);

  // The reader trims what it read: the inbox ends empty (the last batch
  // goes with the next read).
  auto look = watcher(url());
  ASSERT_NE(look, nullptr);
  EXPECT_TRUE(eventually([&] { return xlen(*look, b->inbox("B")) == 0; }));
  // ... and every inbox written has a TTL.
  auto ttl = look->command({"PTTL", b->inbox("B")});
  ASSERT_TRUE(ttl) << ttl.error();
  EXPECT_GT(ttl->integer, 0);
  EXPECT_LE(ttl->integer, 600000);
}

TEST_F(NodeBusTest, TwoSendersToOneInboxEachKeepTheirOrder) {
  constexpr int kEach = 3000;
  Recorder at_b, ignored;
  auto a = open_bus(url(), "A", ignored.handlers());
  auto c = open_bus(url(), "C", ignored.handlers());
  auto b = open_bus(url(), "B", at_b.handlers());
  ASSERT_TRUE(a && b && c);
  std::thread ta([&] {
    for (int i = 0; i < kEach; ++i)
      a->post("B", "a" + std::to_string(i));
  });
  std::thread tc([&] {
    for (int i = 0; i < kEach; ++i)
      c->post("B", "c" + std::to_string(i));
  });
  ta.join();
  tc.join();
  ASSERT_TRUE(at_b.wait_for(2 * kEach, 30s)) << at_b.messages();
  const auto seen = at_b.seen();
  ASSERT_EQ(seen.size(), std::size_t{2 * kEach});
  std::vector<std::string> from_a, from_c;
  for (const Seen& s : seen) {
    ASSERT_TRUE(s.bytes) << "a gap from " << s.from;
    (s.from == "A" ? from_a : from_c).push_back(*s.bytes);
  }
  ASSERT_EQ(from_a.size(), std::size_t{kEach});
  ASSERT_EQ(from_c.size(), std::size_t{kEach});
  for (int i = 0; i < kEach; ++i) {
    EXPECT_EQ(from_a[i], "a" + std::to_string(i));
    EXPECT_EQ(from_c[i], "c" + std::to_string(i));
  }
}

TEST_F(NodeBusTest, ANodePostsToItself) {
  Recorder at_a;
  auto a = open_bus(url(), "A", at_a.handlers());
  ASSERT_NE(a, nullptr);
  for (int i = 0; i < 100; ++i)
    a->post("A", "self " + std::to_string(i));
  ASSERT_TRUE(at_a.wait_for(100));
  std::vector<Seen> expected;
  for (int i = 0; i < 100; ++i)
    expected.push_back(msg("A", "self " + std::to_string(i)));
  EXPECT_EQ(at_a.seen(), expected);
}

// Posted to B before B opened: the message was for B's previous
// incarnation (or for nobody), and B's open empties its inbox, so it is
// not delivered. Nor is it a gap: the new B has seen nothing from A, so
// has nothing of A's to resynchronise. The first message it does see from
// A is taken as the start (whatever its number); a hole after that is a
// gap as always.
TEST_F(NodeBusTest, APostBeforeTheNodeOpenedIsNotDeliveredAndNoGap) {
  Recorder at_a, at_b;
  auto a = open_bus(url(), "A", at_a.handlers());
  ASSERT_NE(a, nullptr);
  a->post("B", "early");
  ASSERT_TRUE(eventually([&] { return a->stats().sent == 1; }));
  auto look = watcher(url());
  ASSERT_NE(look, nullptr);
  EXPECT_EQ(xlen(*look, a->inbox("B")), 1);  // it is there, waiting

  auto b = open_bus(url(), "B", at_b.handlers());
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(xlen(*look, a->inbox("B")), 0);
  a->post("B", "late");  // A's second to B: number 2
  a->post("B", "later");
  ASSERT_TRUE(at_b.wait_for(2));
  // In order, so had "early" been delivered it would be first.
  EXPECT_EQ(at_b.seen(), (std::vector<Seen>{msg("A", "late"), msg("A", "later")}));
  EXPECT_EQ(b->stats().gaps, 0u);
}

// Redis restarted (every key lost) between two messages: A's send on the
// connection the restart broke fails and is not retried, so B sees A's
// numbers skip, reports the gap, and gets what A sends after it.
TEST(NodeBusRestart, ARedisRestartedBetweenMessagesIsAGapThenMessagesFlowAgain) {
  auto launched = RedisInstance::launch();
  ASSERT_TRUE(launched) << launched.error();
  RedisInstance& server = **launched;
  Recorder at_a, at_b;
  auto a = open_bus(server.url(), "A", at_a.handlers());
  auto b = open_bus(server.url(), "B", at_b.handlers());
  ASSERT_TRUE(a && b);
  a->post("B", "1");
  ASSERT_TRUE(at_b.wait_for(1));

  ASSERT_TRUE(server.restart());
  a->post("B", "2");
  ASSERT_TRUE(eventually([&] { return a->stats().send_failures == 1; }));
  EXPECT_EQ(a->stats().sent, 1u);
  a->post("B", "3");
  ASSERT_TRUE(at_b.wait_for(2));
  EXPECT_EQ(at_b.seen(), (std::vector<Seen>{msg("A", "1"), gap("A"), msg("A", "3")}));
  ASSERT_TRUE(counted_sent(*a, 2));
  EXPECT_EQ(a->stats().sent, 2u);
  EXPECT_EQ(b->stats().gaps, 1u);
  EXPECT_EQ(b->stats().received, 2u);
}

// Redis down for a while: the send that finds it so fails (its message
// lost, B told of the gap), and what is posted during the outage waits in
// the queue, not sent into a Redis that is not there, and goes once it is
// back.
TEST(NodeBusRestart, AnOutageCostsOneSendWhatIsPostedDuringItWaits) {
  auto launched = RedisInstance::launch();
  ASSERT_TRUE(launched) << launched.error();
  RedisInstance& server = **launched;
  Recorder at_a, at_b;
  auto a = open_bus(server.url(), "A", at_a.handlers());
  auto b = open_bus(server.url(), "B", at_b.handlers());
  ASSERT_TRUE(a && b);
  a->post("B", "1");
  ASSERT_TRUE(at_b.wait_for(1));

  server.stop();
  a->post("B", "2");
  ASSERT_TRUE(eventually([&] { return a->stats().send_failures == 1; }));
  a->post("B", "3");
  a->post("B", "4");
  std::this_thread::sleep_for(500ms);  // the sender tries Redis again, twice or so
  EXPECT_EQ(a->stats().send_failures, 1u);
  EXPECT_EQ(a->stats().sent, 1u);
  EXPECT_EQ(a->stats().dropped, 0u);

  ASSERT_TRUE(server.start());
  ASSERT_TRUE(at_b.wait_for(3));
  EXPECT_EQ(at_b.seen(),
            (std::vector<Seen>{msg("A", "1"), gap("A"), msg("A", "3"), msg("A", "4")}));
  ASSERT_TRUE(counted_sent(*a, 3));
  EXPECT_EQ(a->stats().sent, 3u);
  EXPECT_EQ(a->stats().send_failures, 1u);
}

// A node that comes back under the same id is a new incarnation: its
// numbers start again at 1, and B is told before its first message, since
// whatever the old A was doing with B is gone.
TEST_F(NodeBusTest, ASenderOpenedAgainIsANewIncarnationAndAGap) {
  Recorder at_a, at_b;
  auto b = open_bus(url(), "B", at_b.handlers());
  auto a = open_bus(url(), "A", at_a.handlers());
  ASSERT_TRUE(a && b);
  a->post("B", "x1");
  a->post("B", "x2");
  ASSERT_TRUE(at_b.wait_for(2));
  const auto first = a->incarnation();
  a.reset();

  a = open_bus(url(), "A", at_a.handlers());
  ASSERT_NE(a, nullptr);
  EXPECT_NE(a->incarnation(), first);
  a->post("B", "y1");
  a->post("B", "y2");
  ASSERT_TRUE(at_b.wait_for(4));
  EXPECT_EQ(at_b.seen(), (std::vector<Seen>{msg("A", "x1"), msg("A", "x2"), gap("A"),
                                            msg("A", "y1"), msg("A", "y2")}));
  EXPECT_EQ(b->stats().gaps, 1u);
}

TEST_F(NodeBusTest, StopSendsEverythingPostedBeforeIt) {
  constexpr int kMessages = 5000;
  Recorder at_a, at_b;
  auto b = open_bus(url(), "B", at_b.handlers());
  auto a = open_bus(url(), "A", at_a.handlers());
  ASSERT_TRUE(a && b);
  for (int i = 0; i < kMessages; ++i)
    a->post("B", std::to_string(i));
  a->stop();
  // Sent by the time stop() returns.
  EXPECT_EQ(a->stats().sent, std::uint64_t{kMessages});
  EXPECT_EQ(a->stats().dropped, 0u);
  a->stop();  // again: nothing
  a->post("B", "after");
  EXPECT_EQ(a->stats().dropped, 1u);

  ASSERT_TRUE(at_b.wait_for(kMessages, 30s));
  const auto seen = at_b.seen();
  ASSERT_EQ(seen.size(), std::size_t{kMessages});
  for (int i = 0; i < kMessages; ++i)
    ASSERT_EQ(seen[i], msg("A", std::to_string(i)));
}

TEST(NodeBusOpen, NobodyListeningNamesHostAndPortNotThePassword) {
  const std::uint16_t port = inarow::testing::free_loopback_port();
  ASSERT_NE(port, 0);
  auto r =
      NodeBus::open("redis://:hunter2@127.0.0.1:" + std::to_string(port), RedisOptions{}, "A", {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "Redis at 127.0.0.1 port " + std::to_string(port) + ": Connection refused");
  EXPECT_EQ(r.error().find("hunter2"), std::string::npos);
}

TEST(NodeBusOpen, BadArgumentsAreRefusedBeforeConnecting) {
  const std::string url = "redis://127.0.0.1:1";  // nothing is asked of it
  NodeBusOptions no_block;
  no_block.block = 0ms;
  auto r = NodeBus::open(url, {}, "A", {}, no_block);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "node bus: the read's block time must be positive");
  r = NodeBus::open(url, {}, "", {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "node bus: a node id must not be empty");
  NodeBusOptions no_queue;
  no_queue.max_queued = 0;
  r = NodeBus::open(url, {}, "A", {}, no_queue);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "node bus: max_queued and max_len must be positive");
  r = NodeBus::open("redis://127.0.0.1:0", {}, "A", {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "bad Redis URL: the port must be a number from 1 to 65535, not '0'");
}

// Redis holds every write for a second (CLIENT PAUSE): the sender's first
// batch waits in flight, and posts past max_queued (the batch in flight
// counted) are dropped at once. Their numbers are spent: once Redis
// answers again, B gets the ten and, before the next, a gap.
TEST(NodeBusQueue, PostsPastMaxQueuedAreDroppedCountedAndAGap) {
  auto launched = RedisInstance::launch();
  ASSERT_TRUE(launched) << launched.error();
  RedisInstance& server = **launched;
  Recorder at_a, at_b;
  NodeBusOptions small = fast();
  small.max_queued = 10;
  auto a = open_bus(server.url(), "A", at_a.handlers(), small);
  auto b = open_bus(server.url(), "B", at_b.handlers());
  ASSERT_TRUE(a && b);
  auto admin = open_redis(server.url());
  ASSERT_TRUE(admin) << admin.error();
  ASSERT_TRUE((*admin)->command({"CLIENT", "PAUSE", "1000", "WRITE"}));
  for (int i = 0; i < 25; ++i)
    a->post("B", std::to_string(i));
  EXPECT_EQ(a->stats().dropped, 15u);
  EXPECT_EQ(a->stats().sent, 0u);

  ASSERT_TRUE(at_b.wait_for(10, 10s));
  // A counts a post sent when Redis answers it, which can be after B has
  // read it: wait for the count, as for B's messages.
  EXPECT_TRUE(eventually([&] { return a->stats().sent == 10u; })) << a->stats().sent;
  a->post("B", "after");
  ASSERT_TRUE(at_b.wait_for(11));
  std::vector<Seen> expected;
  for (int i = 0; i < 10; ++i)
    expected.push_back(msg("A", std::to_string(i)));
  expected.push_back(gap("A"));
  expected.push_back(msg("A", "after"));
  EXPECT_EQ(at_b.seen(), expected);
  EXPECT_EQ(a->stats().dropped, 15u);
  EXPECT_TRUE(eventually([&] { return a->stats().sent == 11u; })) << a->stats().sent;
  EXPECT_EQ(a->stats().send_failures, 0u);
  EXPECT_EQ(b->stats().gaps, 1u);
}

// A message is counted before its handler runs, as a gap is: whoever sees
// a message's effect sees it counted. (Counted after, a test that waited
// for the handler read one message short under tsan.)
TEST_F(NodeBusTest, AMessageIsCountedBeforeItsHandlerRuns) {
  std::atomic<NodeBus*> receiver{nullptr};
  std::atomic<std::uint64_t> counted_when_handled{0};
  std::atomic<int> handled{0};
  NodeBus::Handlers handlers;
  handlers.message = [&](const std::string&, std::string_view) {
    if (NodeBus* bus = receiver.load()) counted_when_handled = bus->stats().received;
    ++handled;
  };
  auto b = open_bus(url(), "B", handlers);
  auto a = open_bus(url(), "A", {});
  ASSERT_TRUE(a && b);
  receiver = b.get();
  a->post("B", "one");
  ASSERT_TRUE(eventually([&] { return handled.load() == 1; }));
  EXPECT_EQ(counted_when_handled.load(), 1u);
}

// The counts, the latency of the sender's round trips, and a message
// handler that throws: caught, counted, and the next messages still come.
TEST_F(NodeBusTest, StatsCountAndAThrowingHandlerIsCountedNotFatal) {
  Recorder at_a, at_b;
  NodeBus::Handlers at_b_handlers = at_b.handlers();
  at_b_handlers.message = [record = at_b_handlers.message](const std::string& from,
                                                           std::string_view bytes) {
    record(from, bytes);
    if (bytes == "13") throw std::runtime_error("thirteen");
  };
  std::atomic<int> round_trips{0};
  NodeBus::Handlers at_a_handlers = at_a.handlers();
  at_a_handlers.latency = [&](double seconds) {
    EXPECT_GE(seconds, 0.0);
    EXPECT_LT(seconds, 5.0);
    ++round_trips;
  };
  auto a = open_bus(url(), "A", at_a_handlers);
  auto b = open_bus(url(), "B", at_b_handlers);
  ASSERT_TRUE(a && b);
  for (int i = 0; i < 100; ++i)
    a->post("B", std::to_string(i));
  ASSERT_TRUE(at_b.wait_for(100));
  ASSERT_TRUE(eventually([&] { return b->stats().received == 100; }));
  const auto sb = b->stats();
  EXPECT_EQ(sb.received, 100u);
  EXPECT_EQ(sb.handler_errors, 1u);
  EXPECT_EQ(sb.gaps, 0u);
  EXPECT_EQ(sb.discarded, 0u);
  EXPECT_EQ(sb.sent, 0u);
  ASSERT_TRUE(counted_sent(*a, 100));
  const auto sa = a->stats();
  EXPECT_EQ(sa.sent, 100u);
  EXPECT_EQ(sa.received, 0u);
  EXPECT_EQ(sa.dropped, 0u);
  EXPECT_EQ(sa.send_failures, 0u);
  EXPECT_EQ(sa.handler_errors, 0u);
  EXPECT_GE(round_trips.load(), 1);
  EXPECT_LE(round_trips.load(), 100);
  EXPECT_EQ(at_b.seen().size(), 100u);

  // A malformed entry in B's inbox (not from a bus) is discarded, counted.
  auto look = watcher(url());
  ASSERT_NE(look, nullptr);
  ASSERT_TRUE(look->command({"XADD", b->inbox("B"), "*", "x", "y"}));
  a->post("B", "100");
  ASSERT_TRUE(at_b.wait_for(101));
  EXPECT_TRUE(eventually([&] { return b->stats().discarded == 1; }));
  EXPECT_EQ(b->stats().gaps, 0u);

  a->stop();
  a->post("B", "after stop");
  EXPECT_EQ(a->stats().dropped, 1u);
}

}  // namespace
}  // namespace inarow::server
