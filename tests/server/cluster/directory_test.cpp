// The directory (inarow/server/directory.h) on the shared redis-server,
// each test under its own key prefix: nodes and their heartbeats, match
// leases and their generations (and two nodes racing for 200 matches),
// the live matches and their orphans, renewing many leases at once,
// player locations, private codes (and two nodes racing to take them), and
// the seek pool: exact pairs for constructed cases, two nodes adding and
// pairing 600 seeks at once, and the pairing held up to the Matchmaker's;
// the seeks of nodes that die or leave, pages of the pool, and the cap on a
// player's live matches held by pairs and accepts (two nodes racing too).
#include "inarow/server/directory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "inarow/server/matchmaker.h"
#include "redis_instance.h"

namespace inarow::server {
namespace {

using inarow::testing::RedisInstance;
using namespace std::chrono_literals;

// A connection under this test's prefix.
std::unique_ptr<Redis> connect_shared() {
  RedisInstance* server = RedisInstance::shared();
  if (!server) {
    ADD_FAILURE() << RedisInstance::shared_error();
    return nullptr;
  }
  RedisOptions options;
  options.prefix = inarow::testing::test_prefix();
  auto opened = open_redis(server->url(), options);
  if (!opened) {
    ADD_FAILURE() << opened.error();
    return nullptr;
  }
  return std::move(*opened);
}

class DirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    redis_ = connect_shared();
    ASSERT_NE(redis_, nullptr);
    dir_ = std::make_unique<Directory>(*redis_);
  }

  std::unique_ptr<Redis> redis_;
  std::unique_ptr<Directory> dir_;
};

// Two nodes, each on a connection of its own, racing: race() runs
// body(directory, node) for node "A" and node "B" on two threads from one
// start.
class DirectoryRace : public ::testing::Test {
 protected:
  void SetUp() override {
    redis_a_ = connect_shared();
    redis_b_ = connect_shared();
    ASSERT_NE(redis_a_, nullptr);
    ASSERT_NE(redis_b_, nullptr);
    a_ = std::make_unique<Directory>(*redis_a_);
    b_ = std::make_unique<Directory>(*redis_b_);
  }

  template <class Body>
  void race(Body body) {
    std::barrier start(2);
    std::thread ta([&] {
      start.arrive_and_wait();
      body(*a_, std::string("A"));
    });
    std::thread tb([&] {
      start.arrive_and_wait();
      body(*b_, std::string("B"));
    });
    ta.join();
    tb.join();
  }

  std::unique_ptr<Redis> redis_a_, redis_b_;
  std::unique_ptr<Directory> a_, b_;
};

// The value of an expected that must have one (a failure says why not).
template <class T>
T ok(inarow::expected<T, std::string> r) {
  EXPECT_TRUE(r) << r.error();
  return r ? std::move(*r) : T{};
}
void ok(inarow::expected<void, std::string> r) {
  EXPECT_TRUE(r) << r.error();
}

// ---- Nodes ----

TEST_F(DirectoryTest, NodesRegisterHeartbeatExpireAndLeave) {
  ok(dir_->register_node("a", "10.0.0.1:8080", 250ms));
  ok(dir_->register_node("b", "10.0.0.2:8080", 10s));
  EXPECT_EQ(ok(dir_->nodes()),
            (std::vector<NodeInfo>{{"a", "10.0.0.1:8080"}, {"b", "10.0.0.2:8080"}}));
  EXPECT_TRUE(ok(dir_->heartbeat("a", 250ms)));
  EXPECT_FALSE(ok(dir_->heartbeat("nobody", 250ms)));

  // A new address on registering again.
  ok(dir_->register_node("b", "10.0.0.9:9090", 10s));
  EXPECT_EQ(ok(dir_->nodes()),
            (std::vector<NodeInfo>{{"a", "10.0.0.1:8080"}, {"b", "10.0.0.9:9090"}}));

  std::this_thread::sleep_for(350ms);  // a's 250 ms run out
  EXPECT_FALSE(ok(dir_->heartbeat("a", 250ms)));
  EXPECT_EQ(ok(dir_->nodes()), (std::vector<NodeInfo>{{"b", "10.0.0.9:9090"}}));
  // ... and the expired one is gone from the set too.
  auto members = redis_->command({"SMEMBERS", dir_->prefix() + "nodes"});
  ASSERT_TRUE(members) << members.error();
  ASSERT_EQ(members->array.size(), 1u);
  EXPECT_EQ(members->array[0].string, "b");

  ok(dir_->register_node("a", "10.0.0.1:8080", 10s));
  EXPECT_TRUE(ok(dir_->heartbeat("a", 10s)));
  EXPECT_TRUE(ok(dir_->deregister("b")));
  EXPECT_FALSE(ok(dir_->deregister("b")));
  EXPECT_EQ(ok(dir_->nodes()), (std::vector<NodeInfo>{{"a", "10.0.0.1:8080"}}));

  auto zero = dir_->heartbeat("a", 0ms);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error(), "a TTL must be positive");
  EXPECT_TRUE(ok(dir_->heartbeat("a", 10s)));  // a TTL of 0 deleted nothing
}

// ---- Leases ----

TEST_F(DirectoryTest, LeasesClaimRenewReleaseAndExpireWithGenerations) {
  EXPECT_EQ(ok(dir_->owner("m")), std::nullopt);
  EXPECT_EQ(ok(dir_->claim("m", "A", 300ms)), (Lease{"A", 1, true}));
  EXPECT_EQ(ok(dir_->claim("m", "B", 300ms)), (Lease{"A", 1, false}));
  EXPECT_EQ(ok(dir_->claim("m", "A", 300ms)), (Lease{"A", 1, true}));  // kept, extended
  EXPECT_TRUE(ok(dir_->renew("m", "A", 1, 300ms)));
  EXPECT_FALSE(ok(dir_->renew("m", "A", 2, 300ms)));
  EXPECT_FALSE(ok(dir_->renew("m", "B", 1, 300ms)));
  EXPECT_EQ(ok(dir_->owner("m", "A")), (Lease{"A", 1, true}));
  EXPECT_EQ(ok(dir_->owner("m", "B")), (Lease{"A", 1, false}));
  EXPECT_EQ(ok(dir_->owner("m")), (Lease{"A", 1, false}));
  EXPECT_FALSE(ok(dir_->release("m", "B", 1)));
  EXPECT_FALSE(ok(dir_->release("m", "A", 2)));

  // A stops renewing: the lease runs out, B claims it at generation 2.
  std::this_thread::sleep_for(400ms);
  EXPECT_EQ(ok(dir_->owner("m")), std::nullopt);
  EXPECT_FALSE(ok(dir_->renew("m", "A", 1, 300ms)));
  EXPECT_EQ(ok(dir_->claim("m", "B", 10s)), (Lease{"B", 2, true}));
  EXPECT_EQ(ok(dir_->claim("m", "A", 10s)), (Lease{"B", 2, false}));
  // The old owner's stale calls change nothing.
  EXPECT_FALSE(ok(dir_->renew("m", "A", 1, 10s)));
  EXPECT_FALSE(ok(dir_->release("m", "A", 1)));
  EXPECT_EQ(ok(dir_->owner("m")), (Lease{"B", 2, false}));

  // Released: the counter stays, the next claim bumps it.
  EXPECT_TRUE(ok(dir_->release("m", "B", 2)));
  EXPECT_FALSE(ok(dir_->release("m", "B", 2)));
  EXPECT_EQ(ok(dir_->owner("m")), std::nullopt);
  EXPECT_EQ(ok(dir_->claim("m", "A", 10s)), (Lease{"A", 3, true}));

  // Another match has its own counter.
  EXPECT_EQ(ok(dir_->claim("n", "A", 10s)), (Lease{"A", 1, true}));

  // The match ended: lease and counter gone.
  ok(dir_->forget_match("m"));
  EXPECT_EQ(ok(dir_->owner("m")), std::nullopt);
  EXPECT_EQ(ok(dir_->claim("m", "B", 10s)), (Lease{"B", 1, true}));
  EXPECT_EQ(ok(dir_->owner("n")), (Lease{"A", 1, false}));
}

TEST_F(DirectoryTest, AnEndedMatchNamesItsNodeWhileItLingersThere) {
  EXPECT_EQ(ok(dir_->claim("m", "A", 10s)), (Lease{"A", 1, true}));
  EXPECT_EQ(ok(dir_->ended_at("m")), std::nullopt);  // live: it has an owner instead
  ok(dir_->end_match("m", "A", 300ms));
  // Forgotten as forget_match() forgets: no lease, not live, a new counter.
  EXPECT_EQ(ok(dir_->owner("m")), std::nullopt);
  EXPECT_FALSE(ok(dir_->live("m")));
  EXPECT_EQ(ok(dir_->ended_at("m")), "A");
  EXPECT_EQ(ok(dir_->ended_at("n")), std::nullopt);
  std::this_thread::sleep_for(400ms);
  EXPECT_EQ(ok(dir_->ended_at("m")), std::nullopt);
  // No linger: nothing to name.
  EXPECT_EQ(ok(dir_->claim("k", "B", 10s)), (Lease{"B", 1, true}));
  ok(dir_->end_match("k", "B", 0ms));
  EXPECT_EQ(ok(dir_->owner("k")), std::nullopt);
  EXPECT_EQ(ok(dir_->ended_at("k")), std::nullopt);
  EXPECT_EQ(ok(dir_->claim("k", "A", 10s)), (Lease{"A", 1, true}));
}

TEST_F(DirectoryTest, ARenewedLeaseOutlivesItsFirstTtl) {
  // Wide margins either side, so that a loaded machine's late wake-ups
  // cannot decide it: the renewal has 400 ms to come before the first TTL
  // runs out, and the check 1.5 s before the renewed one does.
  EXPECT_EQ(ok(dir_->claim("m", "A", 500ms)), (Lease{"A", 1, true}));
  const auto claimed = std::chrono::steady_clock::now();  // no earlier than the claim
  std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(ok(dir_->renew("m", "A", 1, 2s)));
  std::this_thread::sleep_until(claimed + 600ms);  // past the first TTL
  EXPECT_EQ(ok(dir_->owner("m")), (Lease{"A", 1, false}));
  EXPECT_EQ(ok(dir_->claim("m", "B", 250ms)), (Lease{"A", 1, false}));
}

// ---- Live matches and take-overs ----

// Redis's clock in ms (TIME), as the scripts read it.
std::int64_t redis_now_ms(Redis& redis) {
  auto t = redis.command({"TIME"});
  EXPECT_TRUE(t) << t.error();
  if (!t || t->array.size() != 2) return 0;
  return std::stoll(t->array[0].string) * 1000 + std::stoll(t->array[1].string) / 1000;
}

TEST_F(DirectoryTest, ALeaseIsAnOrphanOnceItRunsOutOrIsReleasedAndGoneWhenForgotten) {
  const std::string live = dir_->prefix() + "live";
  const std::int64_t before = redis_now_ms(*redis_);
  EXPECT_EQ(ok(dir_->claim("m1", "A", 200ms)), (Lease{"A", 1, true}));
  const std::int64_t after = redis_now_ms(*redis_);
  EXPECT_EQ(ok(dir_->claim("m2", "B", 10s)), (Lease{"B", 1, true}));
  // Scored by when the lease runs out, by Redis's clock.
  auto score = redis_->command({"ZSCORE", live, "m1"});
  ASSERT_TRUE(score) << score.error();
  const std::int64_t until = std::stoll(score->string);
  EXPECT_GE(until, before + 200);
  EXPECT_LE(until, after + 200);
  // Claimed: nobody's orphan.
  EXPECT_EQ(ok(dir_->orphans(10)), std::vector<std::string>{});

  // m1's owner stops renewing: once its lease runs out, m1 is an orphan.
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(ok(dir_->orphans(10)), std::vector<std::string>{"m1"});
  // B takes it over: generation 2, and nobody's orphan again.
  EXPECT_EQ(ok(dir_->claim("m1", "B", 10s)), (Lease{"B", 2, true}));
  EXPECT_EQ(ok(dir_->orphans(10)), std::vector<std::string>{});

  // Released (a node stopping hands its matches over): an orphan at once.
  EXPECT_TRUE(ok(dir_->release("m2", "B", 1)));
  EXPECT_EQ(ok(dir_->orphans(10)), std::vector<std::string>{"m2"});
  score = redis_->command({"ZSCORE", live, "m2"});
  ASSERT_TRUE(score) << score.error();
  EXPECT_EQ(score->string, "0");
  // A release that is not the owner's changes nothing.
  EXPECT_FALSE(ok(dir_->release("m1", "A", 1)));
  EXPECT_EQ(ok(dir_->orphans(10)), std::vector<std::string>{"m2"});

  // The match ended: live no more.
  ok(dir_->forget_match("m2"));
  EXPECT_EQ(ok(dir_->orphans(10)), std::vector<std::string>{});
  score = redis_->command({"ZSCORE", live, "m2"});
  ASSERT_TRUE(score) << score.error();
  EXPECT_TRUE(score->is_nil());
  ok(dir_->forget_match("m1"));
  auto count = redis_->command({"ZCARD", live});
  ASSERT_TRUE(count) << count.error();
  EXPECT_EQ(count->integer, 0);
}

// Each check has 400 ms or more to spare: with 100 ms a loaded machine (a
// build beside the tests) stalled past the first TTL before the renewal.
TEST_F(DirectoryTest, ARenewedLeaseIsNoOrphanPastItsFirstTtl) {
  EXPECT_EQ(ok(dir_->claim("m", "A", 1000ms)), (Lease{"A", 1, true}));
  std::this_thread::sleep_for(600ms);
  EXPECT_TRUE(ok(dir_->renew("m", "A", 1, 1000ms)));
  std::this_thread::sleep_for(600ms);  // 1200 ms since the claim
  EXPECT_EQ(ok(dir_->orphans(10)), std::vector<std::string>{});
  EXPECT_FALSE(ok(dir_->renew("m", "A", 2, 10s)));  // not ours at 2: the score stays
  std::this_thread::sleep_for(1000ms);              // 2200 ms: 600 past the renewal's expiry
  EXPECT_EQ(ok(dir_->orphans(10)), std::vector<std::string>{"m"});
}

// Released ones first (scored 0, by id), then by when the lease ran out;
// a live lease is skipped however the scores lie.
TEST_F(DirectoryTest, OrphansLongestOrphanedFirstUpToTheLimit) {
  EXPECT_EQ(ok(dir_->claim("d", "A", 100ms)), (Lease{"A", 1, true}));
  EXPECT_EQ(ok(dir_->claim("c", "A", 150ms)), (Lease{"A", 1, true}));
  EXPECT_EQ(ok(dir_->claim("b", "A", 200ms)), (Lease{"A", 1, true}));
  EXPECT_EQ(ok(dir_->claim("a", "A", 250ms)), (Lease{"A", 1, true}));
  EXPECT_EQ(ok(dir_->claim("y", "A", 10s)), (Lease{"A", 1, true}));
  EXPECT_EQ(ok(dir_->claim("x", "A", 10s)), (Lease{"A", 1, true}));
  EXPECT_EQ(ok(dir_->claim("alive", "B", 10s)), (Lease{"B", 1, true}));
  EXPECT_TRUE(ok(dir_->release("y", "A", 1)));
  EXPECT_TRUE(ok(dir_->release("x", "A", 1)));
  // A lease that lives whatever its score says (scored by hand in the past).
  ASSERT_TRUE(redis_->command({"ZADD", dir_->prefix() + "live", "1", "alive"}));
  std::this_thread::sleep_for(350ms);
  EXPECT_EQ(ok(dir_->orphans(10)), (std::vector<std::string>{"x", "y", "d", "c", "b", "a"}));
  EXPECT_EQ(ok(dir_->orphans(6)), (std::vector<std::string>{"x", "y", "d", "c", "b", "a"}));
  EXPECT_EQ(ok(dir_->orphans(3)), (std::vector<std::string>{"x", "y", "d"}));
  EXPECT_EQ(ok(dir_->orphans(1)), (std::vector<std::string>{"x"}));
  EXPECT_EQ(ok(dir_->orphans(0)), std::vector<std::string>{});
}

TEST_F(DirectoryTest, RenewManyRenewsExactlyTheLeasesStillOurs) {
  EXPECT_EQ(ok(dir_->claim("ours", "A", 10s)), (Lease{"A", 1, true}));
  EXPECT_EQ(ok(dir_->claim("other-gen", "A", 10s)), (Lease{"A", 1, true}));
  EXPECT_EQ(ok(dir_->claim("theirs", "B", 10s)), (Lease{"B", 1, true}));
  EXPECT_EQ(ok(dir_->claim("expired", "A", 150ms)), (Lease{"A", 1, true}));
  // Long enough to be alive at the renewal on a loaded machine, short
  // enough that the test sees it outlive its first TTL.
  const auto short_claimed = std::chrono::steady_clock::now();
  EXPECT_EQ(ok(dir_->claim("short", "A", 1000ms)), (Lease{"A", 1, true}));
  // "taken": A's at 1 ran out, and B took it at 2.
  EXPECT_EQ(ok(dir_->claim("taken", "A", 150ms)), (Lease{"A", 1, true}));
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(ok(dir_->claim("taken", "B", 10s)), (Lease{"B", 2, true}));

  const std::vector<std::pair<std::string, std::int64_t>> mine{
      {"ours", 1},  {"other-gen", 2}, {"theirs", 1}, {"expired", 1},
      {"never", 1}, {"short", 1},     {"taken", 1}};
  EXPECT_EQ(ok(dir_->renew_many("A", mine, 10s)),
            (std::vector<bool>{true, false, false, false, false, true, false}));
  // "short" had most of its second left: renewed, it outlives it.
  std::this_thread::sleep_until(short_claimed + 1200ms);
  EXPECT_EQ(ok(dir_->owner("short")), (Lease{"A", 1, false}));
  EXPECT_EQ(ok(dir_->owner("taken")), (Lease{"B", 2, false}));
  // Only what ran out unrenewed is an orphan ("never" was never live).
  EXPECT_EQ(ok(dir_->orphans(10)), std::vector<std::string>{"expired"});

  EXPECT_EQ(ok(dir_->renew_many("A", {}, 10s)), std::vector<bool>{});
  auto zero = dir_->renew_many("A", mine, 0ms);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error(), "a TTL must be positive");
}

TEST_F(DirectoryRace, TwoNodesClaimTheSameMatchesExactlyOneWinsEach) {
  constexpr int kMatches = 200;
  std::vector<inarow::expected<Lease, std::string>> got_a, got_b;
  race([&](Directory& dir, const std::string& node) {
    auto& out = node == "A" ? got_a : got_b;
    for (int i = 0; i < kMatches; ++i)
      out.push_back(dir.claim("match-" + std::to_string(i), node, 10s));
  });
  Directory& a = *a_;
  Directory& b = *b_;
  ASSERT_EQ(got_a.size(), static_cast<std::size_t>(kMatches));
  ASSERT_EQ(got_b.size(), static_cast<std::size_t>(kMatches));
  int won_a = 0;
  for (int i = 0; i < kMatches; ++i) {
    ASSERT_TRUE(got_a[i]) << got_a[i].error();
    ASSERT_TRUE(got_b[i]) << got_b[i].error();
    const Lease& la = *got_a[i];
    const Lease& lb = *got_b[i];
    EXPECT_NE(la.ours, lb.ours) << "match " << i;
    const std::string winner = la.ours ? "A" : "B";
    won_a += la.ours;
    EXPECT_EQ(la.node_id, winner) << "match " << i;
    EXPECT_EQ(lb.node_id, winner) << "match " << i;
    EXPECT_EQ(la.generation, 1);
    EXPECT_EQ(lb.generation, 1);
    const auto id = "match-" + std::to_string(i);
    EXPECT_EQ(ok(a.owner(id)), (Lease{winner, 1, false}));
    EXPECT_EQ(ok(b.owner(id)), (Lease{winner, 1, false}));
  }
  // Both raced from the same start: not a test of fairness, only a note.
  RecordProperty("matches_won_by_A", won_a);
}

// ---- Player locations ----

TEST_F(DirectoryTest, LocationsAreClearedOnlyByTheNodeTheyName) {
  EXPECT_EQ(ok(dir_->location("p")), std::nullopt);
  ok(dir_->set_location("p", "A", 10s));
  EXPECT_EQ(ok(dir_->location("p")), "A");
  EXPECT_FALSE(ok(dir_->clear_location("p", "B")));
  EXPECT_EQ(ok(dir_->location("p")), "A");
  // The player moved to B: A's late clear leaves them there.
  ok(dir_->set_location("p", "B", 10s));
  EXPECT_FALSE(ok(dir_->clear_location("p", "A")));
  EXPECT_EQ(ok(dir_->location("p")), "B");
  EXPECT_TRUE(ok(dir_->clear_location("p", "B")));
  EXPECT_EQ(ok(dir_->location("p")), std::nullopt);
  EXPECT_FALSE(ok(dir_->clear_location("p", "B")));

  ok(dir_->set_location("q", "A", 150ms));
  std::this_thread::sleep_for(250ms);
  EXPECT_EQ(ok(dir_->location("q")), std::nullopt);
}

// ---- Private codes ----

TEST_F(DirectoryTest, ANodeClearsManyLocationsAtOnceOnlyThoseThatNameIt) {
  ok(dir_->set_location("a", "N1", 10s));
  ok(dir_->set_location("b", "N1", 10s));
  ok(dir_->set_location("c", "N2", 10s));  // moved on to another node
  EXPECT_EQ(ok(dir_->clear_locations({"a", "b", "c", "never"}, "N1")), 2u);
  EXPECT_EQ(ok(dir_->location("a")), std::nullopt);
  EXPECT_EQ(ok(dir_->location("b")), std::nullopt);
  EXPECT_EQ(ok(dir_->location("c")), std::optional<std::string>("N2"));
  EXPECT_EQ(ok(dir_->clear_locations({}, "N1")), 0u);
}

// A node tells its people's locations again all at once: more than one
// round trip's worth (2,000 keys), each with the TTL given.
TEST_F(DirectoryTest, ANodeSetsManyLocationsAtOnce) {
  std::vector<std::string> players;
  for (int i = 0; i < 4500; ++i)
    players.push_back("p" + std::to_string(i));
  ok(dir_->set_location("p0", "N2", 10s));  // was on another node
  ok(dir_->set_locations(players, "N1", 10s));
  for (const char* p : {"p0", "p1999", "p2000", "p4499"})
    EXPECT_EQ(ok(dir_->location(p)), std::optional<std::string>("N1")) << p;
  EXPECT_EQ(ok(dir_->clear_locations(players, "N1")), 4500u);  // every one was set
  ok(dir_->set_locations({}, "N1", 10s));

  ok(dir_->set_locations({"soon", "gone"}, "N1", 150ms));
  EXPECT_EQ(ok(dir_->location("soon")), std::optional<std::string>("N1"));
  std::this_thread::sleep_for(250ms);
  EXPECT_EQ(ok(dir_->location("soon")), std::nullopt);
  EXPECT_EQ(ok(dir_->location("gone")), std::nullopt);

  auto zero = dir_->set_locations({"x"}, "N1", 0ms);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error(), "a TTL must be positive");
  EXPECT_EQ(ok(dir_->location("x")), std::nullopt);
}

TEST_F(DirectoryTest, PrivateCodesPutPeekTakeDropAndExpire) {
  const std::string game("{\"variant\":\"gomoku\"}\0\xff", 22);
  EXPECT_TRUE(ok(dir_->put_private("ABCD", game, 10s)));
  EXPECT_FALSE(ok(dir_->put_private("ABCD", "other", 10s)));  // taken
  EXPECT_EQ(ok(dir_->peek_private("ABCD")), game);
  EXPECT_EQ(ok(dir_->take_private("ABCD")), game);
  EXPECT_EQ(ok(dir_->take_private("ABCD")), std::nullopt);
  EXPECT_EQ(ok(dir_->peek_private("ABCD")), std::nullopt);

  EXPECT_TRUE(ok(dir_->put_private("EFGH", "x", 10s)));
  EXPECT_TRUE(ok(dir_->drop_private("EFGH")));
  EXPECT_FALSE(ok(dir_->drop_private("EFGH")));

  EXPECT_TRUE(ok(dir_->put_private("IJKL", "soon gone", 150ms)));
  std::this_thread::sleep_for(250ms);
  EXPECT_EQ(ok(dir_->peek_private("IJKL")), std::nullopt);
  EXPECT_TRUE(ok(dir_->put_private("IJKL", "again", 10s)));
}

TEST_F(DirectoryRace, TwoNodesTakeTheSameCodesExactlyOneGetsEach) {
  constexpr int kCodes = 200;
  for (int i = 0; i < kCodes; ++i)
    ASSERT_TRUE(ok(a_->put_private("code-" + std::to_string(i), "game " + std::to_string(i), 10s)));
  std::vector<std::optional<std::string>> got_a, got_b;
  race([&](Directory& dir, const std::string& node) {
    auto& out = node == "A" ? got_a : got_b;
    for (int i = 0; i < kCodes; ++i)
      out.push_back(ok(dir.take_private("code-" + std::to_string(i))));
  });
  for (int i = 0; i < kCodes; ++i) {
    EXPECT_NE(got_a[i].has_value(), got_b[i].has_value()) << "code " << i;
    EXPECT_EQ(got_a[i] ? *got_a[i] : *got_b[i], "game " + std::to_string(i));
  }
}

// ---- The seek pool ----

const MatchmakerPolicy kPolicy{100.0, 50.0, 1000.0};
constexpr std::int64_t kT0 = 1'700'000'000'000;  // a wall-clock time in ms

SharedSeek seek(std::string player, double rating, std::int64_t since_ms,
                std::string terms = "gomoku/180+2/rated", std::string node = "A") {
  return {"s-" + player, player, std::move(node), std::move(terms), rating, since_ms};
}

using Pair = std::pair<SharedSeek, SharedSeek>;

TEST_F(DirectoryTest, SeeksPairWithinTheWindowLongerWaitingFirst) {
  const auto a = seek("a", 1500.0, kT0);
  const auto b = seek("b", 1580.0, kT0 + 1);
  ASSERT_TRUE(ok(dir_->add_seek(a)));
  ASSERT_TRUE(ok(dir_->add_seek(b)));
  EXPECT_EQ(ok(dir_->pair("s-b", kPolicy, kT0 + 1)), (Pair{a, b}));
  EXPECT_TRUE(ok(dir_->seeks()).empty());
  // Both were removed: the seek is gone, and the players may seek again.
  EXPECT_EQ(ok(dir_->pair("s-b", kPolicy, kT0 + 1)), std::nullopt);
  EXPECT_TRUE(ok(dir_->add_seek(a)));
  EXPECT_TRUE(ok(dir_->add_seek(b)));
  // Paired from the older seek's side: the same pair, the same order.
  EXPECT_EQ(ok(dir_->pair("s-a", kPolicy, kT0 + 1)), (Pair{a, b}));
}

TEST_F(DirectoryTest, SeeksOutsideAWindowWaitUntilItWidens) {
  const auto a = seek("a", 1500.0, kT0);
  const auto b = seek("b", 1650.0, kT0);
  ASSERT_TRUE(ok(dir_->add_seek(a)));
  ASSERT_TRUE(ok(dir_->add_seek(b)));
  EXPECT_EQ(ok(dir_->pair("s-b", kPolicy, kT0)), std::nullopt);        // 100 < 150
  EXPECT_EQ(ok(dir_->pair("s-b", kPolicy, kT0 + 999)), std::nullopt);  // 149.95 < 150
  EXPECT_EQ(ok(dir_->seeks()), (std::vector<SharedSeek>{a, b}));
  // At 1 s both windows are 150: a gap equal to the window fits.
  EXPECT_EQ(ok(dir_->pair("s-b", kPolicy, kT0 + 1000)), (Pair{a, b}));
}

TEST_F(DirectoryTest, BothWindowsMustHoldTheGap) {
  const auto old = seek("old", 1500.0, kT0 - 10'000);  // 600 at kT0
  const auto fresh = seek("fresh", 1800.0, kT0);       // 100 at kT0
  ASSERT_TRUE(ok(dir_->add_seek(old)));
  ASSERT_TRUE(ok(dir_->add_seek(fresh)));
  EXPECT_EQ(ok(dir_->pair("s-old", kPolicy, kT0)), std::nullopt);
  EXPECT_EQ(ok(dir_->pair("s-fresh", kPolicy, kT0)), std::nullopt);
  EXPECT_EQ(ok(dir_->pair("s-fresh", kPolicy, kT0 + 3999)), std::nullopt);
  EXPECT_EQ(ok(dir_->pair("s-old", kPolicy, kT0 + 4000)), (Pair{old, fresh}));  // fresh's: 300
}

TEST_F(DirectoryTest, TheWindowStopsAtItsMaximum) {
  // Waited 100 s: 100 + 50 * 100 = 5100, held to 1000.
  const auto a = seek("a", 1000.0, kT0 - 100'000);
  const auto b = seek("b", 2000.0, kT0 - 100'000);
  const auto c = seek("c", 2000.5, kT0 - 100'000, "other terms");
  const auto d = seek("d", 1000.0, kT0 - 100'000, "other terms");
  for (const auto& s : {a, b, c, d})
    ASSERT_TRUE(ok(dir_->add_seek(s)));
  EXPECT_EQ(ok(dir_->pair("s-c", kPolicy, kT0)), std::nullopt);  // 1000.5 > 1000
  EXPECT_EQ(ok(dir_->pair("s-b", kPolicy, kT0)), (Pair{a, b}));  // 1000 fits
  EXPECT_DOUBLE_EQ(pairing_window(a, kPolicy, kT0), 1000.0);
  EXPECT_DOUBLE_EQ(pairing_window(a, kPolicy, kT0 - 99'000), 150.0);
  EXPECT_DOUBLE_EQ(pairing_window(a, kPolicy, kT0 - 200'000), 100.0);  // never below the start
}

TEST_F(DirectoryTest, TheLongestWaitingThatFitsGetsANewSeek) {
  const auto p1 = seek("p1", 1400.0, kT0);
  const auto p2 = seek("p2", 1460.0, kT0 + 1);
  const auto p3 = seek("p3", 1560.0, kT0 + 2);
  const auto p4 = seek("p4", 1500.0, kT0 + 3);
  for (const auto& s : {p1, p2, p3, p4})
    ASSERT_TRUE(ok(dir_->add_seek(s)));
  // q (1480) fits all four (80, 20, 80, 20): p1 waited longest.
  const auto q = seek("q", 1480.0, kT0 + 4);
  ASSERT_TRUE(ok(dir_->add_seek(q)));
  EXPECT_EQ(ok(dir_->pair("s-q", kPolicy, kT0 + 4)), (Pair{p1, q}));
  // p2 (1460), the oldest left, pairs from its own side: no one older, so
  // the closest younger: p4 at 40 (p3 at 100).
  EXPECT_EQ(ok(dir_->pair("s-p2", kPolicy, kT0 + 4)), (Pair{p2, p4}));
  EXPECT_EQ(ok(dir_->pair("s-p3", kPolicy, kT0 + 4)), std::nullopt);
  EXPECT_EQ(ok(dir_->seeks()), (std::vector<SharedSeek>{p3}));
}

TEST_F(DirectoryTest, AnOldSeekTakesTheClosestYoungerOneTiesToTheLongerWaiting) {
  const auto old = seek("old", 1500.0, kT0);
  const auto y1 = seek("y1", 1560.0, kT0 + 1);
  const auto y2 = seek("y2", 1440.0, kT0 + 2);  // 60 either side: y1 waited longer
  const auto y3 = seek("y3", 1590.0, kT0 + 3);
  for (const auto& s : {old, y1, y2, y3})
    ASSERT_TRUE(ok(dir_->add_seek(s)));
  EXPECT_EQ(ok(dir_->pair("s-old", kPolicy, kT0 + 3)), (Pair{old, y1}));
  // y2 and y3 are 150 apart, beyond both windows until about 1 s of waiting.
  EXPECT_EQ(ok(dir_->pair("s-y2", kPolicy, kT0 + 3)), std::nullopt);
}

TEST_F(DirectoryTest, OnlyTheSameTermsPair) {
  const auto a = seek("a", 1500.0, kT0, "gomoku/180+2/rated");
  const auto b = seek("b", 1500.0, kT0 + 1, "gomoku/180+2/casual");
  const auto c = seek("c", 1500.0, kT0 + 2, "renju/180+2/rated");
  const auto d = seek("d", 1510.0, kT0 + 3, "gomoku/180+2/casual");
  for (const auto& s : {a, b, c})
    ASSERT_TRUE(ok(dir_->add_seek(s)));
  EXPECT_EQ(ok(dir_->pair("s-b", kPolicy, kT0 + 60'000)), std::nullopt);
  EXPECT_EQ(ok(dir_->pair("s-c", kPolicy, kT0 + 60'000)), std::nullopt);
  ASSERT_TRUE(ok(dir_->add_seek(d)));
  EXPECT_EQ(ok(dir_->pair("s-d", kPolicy, kT0 + 60'000)), (Pair{b, d}));
  EXPECT_EQ(ok(dir_->seeks()), (std::vector<SharedSeek>{a, c}));
}

TEST_F(DirectoryTest, APlayerSeeksOnceAndSeekIdsAreUnique) {
  ASSERT_TRUE(ok(dir_->add_seek(seek("a", 1500.0, kT0))));
  auto again = seek("a", 1700.0, kT0 + 5, "renju/0+0/casual", "B");
  again.seek_id = "s-a2";
  EXPECT_FALSE(ok(dir_->add_seek(again)));
  EXPECT_EQ(ok(dir_->seeks()), (std::vector<SharedSeek>{seek("a", 1500.0, kT0)}));

  auto same_id = seek("b", 1500.0, kT0);
  same_id.seek_id = "s-a";
  auto taken = dir_->add_seek(same_id);
  ASSERT_FALSE(taken);
  EXPECT_NE(taken.error().find("seek id s-a is in the pool already"), std::string::npos)
      << taken.error();

  EXPECT_TRUE(ok(dir_->remove_seek("a")));
  EXPECT_FALSE(ok(dir_->remove_seek("a")));
  EXPECT_TRUE(ok(dir_->seeks()).empty());
  EXPECT_TRUE(ok(dir_->add_seek(again)));
  EXPECT_EQ(ok(dir_->seeks("renju/0+0/casual")), (std::vector<SharedSeek>{again}));

  auto nan = seek("n", std::nan(""), kT0);
  EXPECT_FALSE(dir_->add_seek(nan));
}

TEST_F(DirectoryTest, TheLongerWaitingComesFirstWhateverOrderTheyCameIn) {
  // Added later, but seeking since earlier (its node's clock said so).
  const auto late = seek("late", 1500.0, kT0 + 50);
  const auto early = seek("early", 1520.0, kT0);
  ASSERT_TRUE(ok(dir_->add_seek(late)));
  ASSERT_TRUE(ok(dir_->add_seek(early)));
  EXPECT_EQ(ok(dir_->seeks()), (std::vector<SharedSeek>{early, late}));
  EXPECT_EQ(ok(dir_->pair("s-late", kPolicy, kT0 + 50)), (Pair{early, late}));
  // The same since: the one added first.
  const auto x = seek("x", 1500.0, kT0);
  const auto y = seek("y", 1500.0, kT0);
  ASSERT_TRUE(ok(dir_->add_seek(x)));
  ASSERT_TRUE(ok(dir_->add_seek(y)));
  EXPECT_EQ(ok(dir_->pair("s-x", kPolicy, kT0)), (Pair{x, y}));
}

TEST_F(DirectoryTest, SeeksAreListedOldestFirstTakenAndRemoved) {
  const auto a = seek("a", 1500.0, kT0 + 30, "T1");
  const auto b = seek("b", 1512.3456789012345, kT0 + 10, "T2", "B");  // every digit back
  const auto c = seek("c", -20.25, kT0 + 20, "T1");
  const auto d = seek("d", 2500.0, kT0 + 20, "T1");
  for (const auto& s : {a, b, c, d})
    ASSERT_TRUE(ok(dir_->add_seek(s)));
  EXPECT_EQ(ok(dir_->seeks()), (std::vector<SharedSeek>{b, c, d, a}));
  EXPECT_EQ(ok(dir_->seeks("T1")), (std::vector<SharedSeek>{c, d, a}));
  EXPECT_EQ(ok(dir_->seeks("T2")), (std::vector<SharedSeek>{b}));
  EXPECT_TRUE(ok(dir_->seeks("T3")).empty());

  EXPECT_EQ(ok(dir_->take_seek("s-b")), b);
  EXPECT_EQ(ok(dir_->take_seek("s-b")), std::nullopt);
  EXPECT_TRUE(ok(dir_->seeks("T2")).empty());
  EXPECT_TRUE(ok(dir_->add_seek(b)));  // b may seek again
  EXPECT_TRUE(ok(dir_->remove_seek("d")));
  EXPECT_EQ(ok(dir_->seeks()), (std::vector<SharedSeek>{b, c, a}));
  EXPECT_EQ(ok(dir_->pair("s-d", kPolicy, kT0)), std::nullopt);  // gone
}

// Whether two seeks may pair at now_ms (the rule, as the Matchmaker has it).
bool fits(const SharedSeek& x, const SharedSeek& y, std::int64_t now_ms) {
  const double gap = std::fabs(x.rating - y.rating);
  return x.terms == y.terms && !(gap > pairing_window(x, kPolicy, now_ms)) &&
         !(gap > pairing_window(y, kPolicy, now_ms));
}

TEST_F(DirectoryRace, TwoNodesAddAndPairSixHundredSeeks) {
  constexpr int kEach = 300;
  const std::int64_t now = kT0;  // one clock for both: the windows are fixed
  std::vector<SharedSeek> added;
  std::vector<Pair> pairs_a, pairs_b;
  std::vector<std::string> errors_a, errors_b;
  race([&](Directory& dir, const std::string& node) {
    auto& pairs = node == "A" ? pairs_a : pairs_b;
    auto& errors = node == "A" ? errors_a : errors_b;
    std::mt19937 rng(node == "A" ? 1 : 2);
    std::uniform_real_distribution<double> rating(1000.0, 2000.0);
    std::uniform_int_distribution<std::int64_t> waited(0, 20'000);  // windows of 100 to 1000
    for (int i = 0; i < kEach; ++i) {
      const std::string id = node + std::to_string(i);
      SharedSeek s{"s-" + id, "p-" + id, node, "T", rating(rng), now - waited(rng)};
      auto added_ok = dir.add_seek(s);
      if (!added_ok || !*added_ok) {
        errors.push_back(added_ok ? "not added: " + id : added_ok.error());
        continue;
      }
      auto paired = dir.pair(s.seek_id, kPolicy, now);
      if (!paired) {
        errors.push_back(paired.error());
      } else if (*paired) {
        pairs.push_back(**paired);
      }
    }
  });
  EXPECT_TRUE(errors_a.empty()) << errors_a.front();
  EXPECT_TRUE(errors_b.empty()) << errors_b.front();

  std::vector<Pair> pairs = pairs_a;
  pairs.insert(pairs.end(), pairs_b.begin(), pairs_b.end());
  std::set<std::string> paired_ids;
  for (const auto& [first, second] : pairs) {
    EXPECT_TRUE(paired_ids.insert(first.seek_id).second) << first.seek_id << " in two pairs";
    EXPECT_TRUE(paired_ids.insert(second.seek_id).second) << second.seek_id << " in two pairs";
    EXPECT_TRUE(fits(first, second, now)) << first.seek_id << " " << second.seek_id;
    EXPECT_LE(first.since_ms, second.since_ms);
  }
  const auto left = ok(a_->seeks("T"));
  for (const auto& s : left)
    EXPECT_FALSE(paired_ids.count(s.seek_id)) << s.seek_id << " paired and still open";
  EXPECT_EQ(paired_ids.size() + left.size(), 2u * kEach);
  // Nobody left open could have paired with anyone else left.
  for (std::size_t i = 0; i < left.size(); ++i) {
    for (std::size_t j = i + 1; j < left.size(); ++j)
      EXPECT_FALSE(fits(left[i], left[j], now)) << left[i].seek_id << " " << left[j].seek_id;
  }
  // Both nodes paired some (the race was real), and most seeks paired.
  EXPECT_FALSE(pairs_a.empty());
  EXPECT_FALSE(pairs_b.empty());
  EXPECT_GT(pairs.size(), 250u);
  RecordProperty("pairs", static_cast<int>(pairs.size()));
}

// The Matchmaker (server_core) and pair() side by side, a seek at a time
// on one clock, the way a node pairs each new seek: each step's pool is
// what pair() left, so no two seeks in it fit and any pair involves the
// new one. Both pair the new seek exactly when some seek fits it, and with
// the same seek: the oldest that fits it, whether one fits or several.
TEST_F(DirectoryTest, PairAgainstTheMatchmaker) {
  const std::int64_t now = kT0;
  const TimePoint clock_zero{};
  const auto to_seeker = [&](const SharedSeek& s) {
    return Seeker(s.player_id, Variant::tictactoe(), ClockSetting{}, s.rating,
                  clock_zero + std::chrono::milliseconds(s.since_ms - kT0 + 100'000'000), true,
                  s.seek_id);
  };
  const TimePoint mm_now = clock_zero + std::chrono::milliseconds(100'000'000);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> rating(1200.0, 1800.0);
  int forced = 0, chosen = 0, unpaired = 0;
  for (int i = 0; i < 200; ++i) {
    // Oldest first, as the Matchmaker's queue is: since grows with i.
    const SharedSeek s{"s" + std::to_string(i), "p" + std::to_string(i), "A", "T", rating(rng),
                       now - 20'000 + 100 * i};
    auto before = ok(dir_->seeks("T"));
    ASSERT_TRUE(ok(dir_->add_seek(s)));
    Matchmaker mm(kPolicy);
    std::vector<SharedSeek> candidates;
    for (const auto& open : before) {
      ASSERT_TRUE(mm.add(to_seeker(open)));
      if (fits(open, s, now)) candidates.push_back(open);
    }
    ASSERT_TRUE(mm.add(to_seeker(s)));
    const auto mm_pairs = mm.pair(mm_now);
    const auto ours = ok(dir_->pair(s.seek_id, kPolicy, now));
    ASSERT_LE(mm_pairs.size(), 1u);
    ASSERT_EQ(mm_pairs.size(), ours ? 1u : 0u) << "seek " << i;
    if (!ours) {
      ++unpaired;
      continue;
    }
    // The new seek is the newest: second in both.
    EXPECT_EQ(ours->second, s);
    EXPECT_EQ(mm_pairs[0].second.seek_id, s.seek_id);
    // Both: the oldest that fits.
    ASSERT_FALSE(candidates.empty());
    EXPECT_EQ(mm_pairs[0].first.seek_id, candidates.front().seek_id);
    EXPECT_EQ(ours->first, candidates.front());
    if (candidates.size() == 1) {
      ++forced;
      EXPECT_EQ(mm_pairs[0].first.seek_id, ours->first.seek_id);
    } else {
      ++chosen;
    }
  }
  // The run held cases of each kind.
  EXPECT_GT(forced, 0);
  EXPECT_GT(chosen, 0);
  EXPECT_GT(unpaired, 0);
}

// ---- The pool across nodes: dead nodes' seeks, pages, the cap ----

TEST_F(DirectoryTest, TheSeeksOfANodeWhoseEntryRanOutGoAndNeverPair) {
  ok(dir_->register_node("dies", "10.0.0.1:8080", 250ms));
  ok(dir_->register_node("lives", "10.0.0.2:8080", 10s));
  const auto gone = seek("gone", 1500.0, kT0, "T", "dies");
  const auto here = seek("here", 1500.0, kT0 + 1, "T", "lives");
  ASSERT_TRUE(ok(dir_->add_seek(gone)));
  EXPECT_EQ(ok(dir_->seeks()), (std::vector<SharedSeek>{gone}));

  std::this_thread::sleep_for(350ms);  // "dies" sent no heartbeat: its entry ran out
  // The first pool script to look drops it: `here` finds nobody.
  ASSERT_TRUE(ok(dir_->add_seek(here)));
  EXPECT_EQ(ok(dir_->pair("s-here", kPolicy, kT0 + 1)), std::nullopt);
  EXPECT_EQ(ok(dir_->seeks()), (std::vector<SharedSeek>{here}));
  auto page = ok(dir_->seek_page(10));
  EXPECT_EQ(page.total, 1u);
  EXPECT_EQ(page.seeks, (std::vector<SharedSeek>{here}));
  // Every trace of it is gone: the node, its index, its player's seeker key.
  EXPECT_EQ(ok(dir_->nodes()), (std::vector<NodeInfo>{{"lives", "10.0.0.2:8080"}}));
  auto index = redis_->command({"EXISTS", dir_->prefix() + "node-seeks:dies"});
  ASSERT_TRUE(index) << index.error();
  EXPECT_EQ(index->integer, 0);
  EXPECT_TRUE(ok(dir_->add_seek(seek("gone", 1500.0, kT0 + 2, "U", "lives"))));
}

TEST_F(DirectoryTest, TheNodesScriptDropsTheSeeksOfTheNodesItFindsGone) {
  ok(dir_->register_node("dies", "10.0.0.1:8080", 250ms));
  ok(dir_->register_node("lives", "10.0.0.2:8080", 10s));
  const auto a = seek("a", 1500.0, kT0, "T", "dies");
  const auto b = seek("b", 2500.0, kT0 + 1, "T", "lives");
  ASSERT_TRUE(ok(dir_->add_seek(a)));
  ASSERT_TRUE(ok(dir_->add_seek(b)));
  std::this_thread::sleep_for(350ms);
  EXPECT_EQ(ok(dir_->nodes()), (std::vector<NodeInfo>{{"lives", "10.0.0.2:8080"}}));
  // Read raw, without a pool script's sweep: the nodes script dropped it.
  auto hash = redis_->command({"EXISTS", dir_->prefix() + "seek:s-a"});
  ASSERT_TRUE(hash) << hash.error();
  EXPECT_EQ(hash->integer, 0);
  EXPECT_EQ(ok(dir_->seeks()), (std::vector<SharedSeek>{b}));
}

TEST_F(DirectoryTest, ANodeThatLeavesOrStartsAfreshTakesItsSeeksAlong) {
  ok(dir_->register_node("leaves", "10.0.0.1:8080", 10s));
  ok(dir_->register_node("restarts", "10.0.0.2:8080", 10s));
  ok(dir_->register_node("stays", "10.0.0.3:8080", 10s));
  const auto a = seek("a", 1500.0, kT0, "T1", "leaves");
  const auto b = seek("b", 1500.0, kT0 + 1, "T2", "restarts");
  const auto c = seek("c", 1500.0, kT0 + 2, "T3", "restarts");
  const auto d = seek("d", 1500.0, kT0 + 3, "T4", "stays");
  for (const auto& s : {a, b, c, d})
    ASSERT_TRUE(ok(dir_->add_seek(s)));
  EXPECT_TRUE(ok(dir_->deregister("leaves")));
  EXPECT_EQ(ok(dir_->seeks()), (std::vector<SharedSeek>{b, c, d}));
  EXPECT_EQ(ok(dir_->drop_seeks_of("restarts")), 2u);
  EXPECT_EQ(ok(dir_->drop_seeks_of("restarts")), 0u);
  EXPECT_EQ(ok(dir_->seeks()), (std::vector<SharedSeek>{d}));
  // A seek removed by its player leaves its node's index too.
  EXPECT_TRUE(ok(dir_->remove_seek("d")));
  auto index = redis_->command({"SCARD", dir_->prefix() + "node-seeks:stays"});
  ASSERT_TRUE(index) << index.error();
  EXPECT_EQ(index->integer, 0);
}

TEST_F(DirectoryTest, APageHoldsTheFirstSeeksInTheOrderTheyCameAndTheTotal) {
  std::vector<SharedSeek> added;
  for (int i = 0; i < 5; ++i) {
    // Later clocks first: the page follows the pool's order, not since_ms.
    auto s =
        seek("p" + std::to_string(i), 1000.0 + 300 * i, kT0 + 100 - i, "T" + std::to_string(i));
    s.listing = std::string("entry\0", 6) + std::to_string(i);  // bytes, kept exactly
    ASSERT_TRUE(ok(dir_->add_seek(s)));
    added.push_back(s);
  }
  auto page = ok(dir_->seek_page(3));
  EXPECT_EQ(page.total, 5u);
  EXPECT_EQ(page.seeks, (std::vector<SharedSeek>(added.begin(), added.begin() + 3)));
  EXPECT_TRUE(ok(dir_->remove_seek("p1")));
  page = ok(dir_->seek_page(10));
  EXPECT_EQ(page.total, 4u);
  EXPECT_EQ(page.seeks, (std::vector<SharedSeek>{added[0], added[2], added[3], added[4]}));
  auto none = dir_->seek_page(0);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error(), "a page holds at least one seek");
}

TEST_F(DirectoryTest, APlayerAtTheCapIsPassedOverAndRefusedAndTheSeeksStay) {
  const MatchSlot slot{"m2", 1, 10s};
  // x plays m1 (live: its lease claimed) against z.
  ASSERT_TRUE(ok(dir_->claim("m1", "N", 10s)).ours);
  ok(dir_->count_match("m1", {"x", "z"}));
  EXPECT_EQ(ok(dir_->playing("x")), 1);
  EXPECT_EQ(ok(dir_->playing("z")), 1);
  EXPECT_EQ(ok(dir_->playing("y")), 0);
  const auto x = seek("x", 1500.0, kT0);
  const auto y = seek("y", 1500.0, kT0 + 1);
  ASSERT_TRUE(ok(dir_->add_seek(x)));
  ASSERT_TRUE(ok(dir_->add_seek(y)));

  // Without the cap they would pair at once; with it, x is passed over...
  EXPECT_EQ(ok(dir_->pair("s-y", kPolicy, kT0 + 1, slot)), std::nullopt);
  // ... and x's own seek pairs with nobody.
  EXPECT_EQ(ok(dir_->pair("s-x", kPolicy, kT0 + 1, slot)), std::nullopt);
  using Outcome = Accepted::Outcome;
  EXPECT_EQ(ok(dir_->accept_seek("s-x", "y", false, slot)).outcome, Outcome::seeker_busy);
  EXPECT_EQ(ok(dir_->accept_seek("s-y", "x", false, slot)).outcome, Outcome::asker_busy);
  EXPECT_EQ(ok(dir_->accept_seek("s-x", "y", true, slot)).outcome, Outcome::asker_busy);
  EXPECT_EQ(ok(dir_->accept_seek("s-x", "x", false, slot)).outcome, Outcome::own);
  EXPECT_EQ(ok(dir_->accept_seek("s-none", "y", false, slot)).outcome, Outcome::unknown);
  EXPECT_EQ(ok(dir_->seeks()), (std::vector<SharedSeek>{x, y}));
  EXPECT_EQ(ok(dir_->playing("y")), 0);  // nothing was held
  // A new seek is refused at the cap, and taken below it.
  using Added = Directory::SeekAdded;
  EXPECT_EQ(ok(dir_->add_seek(seek("z", 1500.0, kT0 + 2, "U"), 1)), Added::at_cap);
  EXPECT_EQ(ok(dir_->add_seek(seek("x", 1500.0, kT0 + 2, "U"), 1)), Added::already_seeking);
  const auto v = seek("v", 1500.0, kT0 + 2, "U");
  EXPECT_EQ(ok(dir_->add_seek(v, 1)), Added::added);
  EXPECT_EQ(ok(dir_->add_seek(v, 1)), Added::already_seeking);
  EXPECT_EQ(ok(dir_->seeks()), (std::vector<SharedSeek>{x, y, v}));
  EXPECT_TRUE(ok(dir_->remove_seek("v")));

  // m1 ends: x is free, and the same seeks pair, m2 held for both.
  ok(dir_->forget_match("m1"));
  EXPECT_EQ(ok(dir_->playing("x")), 0);
  EXPECT_EQ(ok(dir_->pair("s-y", kPolicy, kT0 + 1, slot)), (Pair{x, y}));
  EXPECT_EQ(ok(dir_->playing("x")), 1);
  EXPECT_EQ(ok(dir_->playing("y")), 1);
  // Held, x is at the cap again before m2's lease is claimed.
  ASSERT_TRUE(ok(dir_->add_seek(seek("x", 1500.0, kT0 + 2))));
  ASSERT_TRUE(ok(dir_->add_seek(seek("w", 1500.0, kT0 + 3))));
  EXPECT_EQ(ok(dir_->pair("s-w", kPolicy, kT0 + 3, MatchSlot{"m3", 1, 10s})), std::nullopt);
  EXPECT_EQ(ok(dir_->accept_seek("s-x", "w", false, MatchSlot{"m3", 1, 10s})).outcome,
            Outcome::seeker_busy);
}

// A match made outside the pool (a private game joined, a rematch) is held
// for both players at once, or for neither when one is at the cap.
TEST_F(DirectoryTest, AMatchOutsideThePoolIsHeldForAllOrNone) {
  ASSERT_TRUE(ok(dir_->claim("m1", "N", 10s)).ours);
  ok(dir_->count_match("m1", {"x", "z"}));
  // x is at the cap: named by its place, whichever side it is on.
  EXPECT_EQ(ok(dir_->hold_match(MatchSlot{"m2", 1, 10s}, {"y", "x"})), 1u);
  EXPECT_EQ(ok(dir_->hold_match(MatchSlot{"m2", 1, 10s}, {"x", "y"})), 0u);
  EXPECT_EQ(ok(dir_->playing("y")), 0);  // nothing was held
  // Below a cap of 2, both are held at once; then y's next pairs with nobody.
  EXPECT_EQ(ok(dir_->hold_match(MatchSlot{"m2", 2, 10s}, {"y", "x"})), std::nullopt);
  EXPECT_EQ(ok(dir_->playing("x")), 2);
  EXPECT_EQ(ok(dir_->playing("y")), 1);
  ASSERT_TRUE(ok(dir_->add_seek(seek("y", 1500.0, kT0))));
  ASSERT_TRUE(ok(dir_->add_seek(seek("w", 1500.0, kT0 + 1))));
  EXPECT_EQ(ok(dir_->pair("s-w", kPolicy, kT0 + 1, MatchSlot{"m3", 1, 10s})), std::nullopt);
  auto bad = dir_->hold_match(MatchSlot{"m4", 1, 0ms}, {"a", "b"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "a TTL must be positive");
  EXPECT_EQ(ok(dir_->playing("a")), 0);
}

TEST_F(DirectoryTest, AHoldRunsOutUnlessItsMatchIsClaimedAndCounted) {
  const auto a = seek("a", 1500.0, kT0);
  const auto b = seek("b", 1500.0, kT0 + 1);
  const auto c = seek("c", 1500.0, kT0 + 2);
  const auto d = seek("d", 1500.0, kT0 + 3);
  for (const auto& s : {a, b, c, d})
    ASSERT_TRUE(ok(dir_->add_seek(s)));
  // ab's match is never made (its node died before it could); cd's is.
  EXPECT_EQ(ok(dir_->pair("s-b", kPolicy, kT0 + 1, MatchSlot{"ab", 1, 250ms})), (Pair{a, b}));
  EXPECT_EQ(ok(dir_->pair("s-d", kPolicy, kT0 + 3, MatchSlot{"cd", 1, 250ms})), (Pair{c, d}));
  // Its node then dies: the lease runs out unrenewed with the hold.
  ASSERT_TRUE(ok(dir_->claim("cd", "N", 250ms)).ours);
  ok(dir_->count_match("cd", {"c", "d"}));
  for (const char* p : {"a", "b", "c", "d"})
    EXPECT_EQ(ok(dir_->playing(p)), 1) << p;
  std::this_thread::sleep_for(350ms);
  EXPECT_EQ(ok(dir_->playing("a")), 0);
  EXPECT_EQ(ok(dir_->playing("b")), 0);
  // cd is live still (an orphan, for another node to take over): counted.
  EXPECT_EQ(ok(dir_->orphans(10)), (std::vector<std::string>{"cd"}));
  EXPECT_EQ(ok(dir_->playing("c")), 1);
  EXPECT_EQ(ok(dir_->playing("d")), 1);
  // It ends (on whichever node took it over).
  ok(dir_->forget_match("cd"));
  EXPECT_EQ(ok(dir_->playing("c")), 0);
  auto left = redis_->command({"ZCARD", dir_->prefix() + "playing:c"});
  ASSERT_TRUE(left) << left.error();
  EXPECT_EQ(left->integer, 0);  // dropped once found ended
}

TEST_F(DirectoryTest, AnAcceptedSeekIsTakenWithTheAskersOwnAndHeldForBoth) {
  const auto s = seek("s", 1500.0, kT0, "T1");
  const auto mine = seek("asker", 1900.0, kT0 + 1, "T2");
  const auto other = seek("o", 1000.0, kT0 + 2, "T3");
  for (const auto& x : {s, mine, other})
    ASSERT_TRUE(ok(dir_->add_seek(x)));
  const auto accepted = ok(dir_->accept_seek("s-s", "asker", false, MatchSlot{"m", 2, 10s}));
  EXPECT_EQ(accepted, (Accepted{Accepted::Outcome::taken, s}));
  EXPECT_EQ(ok(dir_->seeks()), (std::vector<SharedSeek>{other}));
  EXPECT_EQ(ok(dir_->playing("s")), 1);
  EXPECT_EQ(ok(dir_->playing("asker")), 1);
  EXPECT_EQ(ok(dir_->accept_seek("s-s", "o", false, MatchSlot{"m2", 2, 10s})).outcome,
            Accepted::Outcome::unknown);
  // Below a cap of 2, both may seek again and play a second.
  ASSERT_TRUE(ok(dir_->add_seek(s)));
  EXPECT_EQ(ok(dir_->accept_seek("s-s", "asker", false, MatchSlot{"m2", 2, 10s})).outcome,
            Accepted::Outcome::taken);
  EXPECT_EQ(ok(dir_->playing("asker")), 2);
  ASSERT_TRUE(ok(dir_->add_seek(s)));
  EXPECT_EQ(ok(dir_->accept_seek("s-s", "asker", false, MatchSlot{"m3", 2, 10s})).outcome,
            Accepted::Outcome::asker_busy);
}

// Two nodes accept the same 120 seeks at once for ten askers, under a cap
// of 3: each seek is taken once, and no player is ever held past the cap,
// though the two nodes' accepts interleave in any order.
TEST_F(DirectoryRace, TwoNodesAcceptingAtOnceNeverTakeAPlayerPastTheCap) {
  constexpr int kSeeks = 120, kAskers = 10, kCap = 3;
  for (int i = 0; i < kSeeks; ++i)
    ASSERT_TRUE(ok(a_->add_seek(seek("p" + std::to_string(i), 1500.0, kT0 + i))));
  std::vector<std::string> taken_a, taken_b;
  std::vector<std::string> errors_a, errors_b;
  race([&](Directory& dir, const std::string& node) {
    auto& taken = node == "A" ? taken_a : taken_b;
    auto& errors = node == "A" ? errors_a : errors_b;
    for (int i = 0; i < kSeeks; ++i) {
      // A walks the seeks up, B down; each seek's asker is the same for both.
      const int k = node == "A" ? i : kSeeks - 1 - i;
      const std::string asker = "q" + std::to_string(k % kAskers);
      const MatchSlot slot{node + std::to_string(k), kCap, 10s};
      auto r = dir.accept_seek("s-p" + std::to_string(k), asker, false, slot);
      if (!r) {
        errors.push_back(r.error());
      } else if (r->outcome == Accepted::Outcome::taken) {
        taken.push_back(r->seek.seek_id);
      }
    }
  });
  EXPECT_TRUE(errors_a.empty()) << errors_a.front();
  EXPECT_TRUE(errors_b.empty()) << errors_b.front();
  std::set<std::string> taken(taken_a.begin(), taken_a.end());
  for (const auto& id : taken_b)
    EXPECT_TRUE(taken.insert(id).second) << id << " taken twice";
  // Every asker reached the cap exactly: 10 x 3 taken, no more.
  EXPECT_EQ(taken.size(), static_cast<std::size_t>(kAskers * kCap));
  for (int q = 0; q < kAskers; ++q)
    EXPECT_EQ(ok(a_->playing("q" + std::to_string(q))), kCap) << q;
  EXPECT_EQ(ok(a_->seeks()).size(), static_cast<std::size_t>(kSeeks - kAskers * kCap));
  RecordProperty("taken_by_a", static_cast<int>(taken_a.size()));
}

}  // namespace
}  // namespace inarow::server
