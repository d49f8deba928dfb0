// The Store interface, pinned: one typed suite held by every store (SQLite
// on a file and in memory, the in-memory store, PostgreSQL on a private
// cluster) to the same exact answers: each op, each read (a player whole by
// id, by any token still valid, by an account's name key), failed batches,
// unique name keys, revoked devices, the leaderboard's order and pages, a
// player's games by cursor with private games for their players only,
// live matches with their events and times, the heartbeat, reads while a
// writer commits, and the fencing generation: take-overs, writes of an
// older owner refused and naming their matches, and the StoreWriter
// committing the rest of a batch without them. This file has the players,
// accounts, ratings and the leaderboard; conformance_matches_test.cpp the
// matches, the reads while writing and the fencing. PostgreSQL's own tests
// (reopening, schema versions, a server away and back) are in
// postgres_store_test.cpp.
#include "conformance.h"

#include <gtest/gtest.h>

namespace inarow::server::conformance {
namespace {

TYPED_TEST(Conformance, APlayerIsSavedAndSavedAgain) {
  Store& store = this->store();
  EXPECT_FALSE(store.find_player("pa"));
  this->write({store_op::SavePlayer{person("pa", "Alice", "t-a")},
               store_op::SavePlayer{bot("bot-hard", "Hard bot")}});
  auto a = store.find_player("pa");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->id, "pa");
  EXPECT_EQ(a->name, "Alice");
  EXPECT_EQ(a->token_hash, "t-a");
  EXPECT_FALSE(a->bot);
  EXPECT_TRUE(a->ratings.empty());
  EXPECT_TRUE(a->games.empty());
  EXPECT_EQ(a->name_key, "");
  EXPECT_EQ(a->password_hash, "");
  EXPECT_EQ(a->account_since_ms, 0);
  EXPECT_TRUE(a->device_token_hashes.empty());
  auto b = store.find_player("bot-hard");
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->bot);
  EXPECT_EQ(b->token_hash, "");
  // Saved again: a new name and token, the same player.
  this->write({store_op::SavePlayer{person("pa", "Alicia", "t-a2")}});
  a = store.find_player("pa");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->name, "Alicia");
  EXPECT_EQ(a->token_hash, "t-a2");
  EXPECT_FALSE(store.find_player_by_token("t-a"));
  EXPECT_EQ(store.find_player_by_token("t-a2")->id, "pa");
  EXPECT_FALSE(store.find_player_by_token(""));  // the bot's token is nobody's
  EXPECT_FALSE(store.find_player("PA"));         // ids are as stored
  // Names are text in any script.
  this->write({store_op::SavePlayer{person("pz", "Zoë 名前 🙂", "t-z")}});
  EXPECT_EQ(store.find_player("pz")->name, "Zoë 名前 🙂");
}

TYPED_TEST(Conformance, RatingsAreTheVeryDoublesSaved) {
  const double third = 1.0 / 3.0;
  const double tiny = std::nextafter(0.0, 1.0);  // the least subnormal
  const double awkward = 1500.0 + 0.1 + 0.2;
  this->write({store_op::SavePlayer{person("pa", "Alice", "t-a")},
               store_op::SaveRating{"pa", "gomoku", Rating{awkward, third, tiny}, 7},
               store_op::SaveRating{"pa", "connect4", Rating{-0.0, 1e300, 0.06}, 0}});
  auto p = this->store().find_player("pa");
  ASSERT_TRUE(p);
  ASSERT_EQ(p->ratings.size(), 2u);
  EXPECT_EQ(p->ratings.at("gomoku").rating, awkward);  // exactly, not nearly
  EXPECT_EQ(p->ratings.at("gomoku").deviation, third);
  EXPECT_EQ(p->ratings.at("gomoku").volatility, tiny);
  EXPECT_EQ(p->ratings.at("connect4").deviation, 1e300);
  // A variant without a game has no count.
  EXPECT_EQ(p->games, (std::map<std::string, int>{{"gomoku", 7}}));
  // Saved again: replaced, count and all.
  this->write({store_op::SaveRating{"pa", "gomoku", Rating{1490.25, 80.5, 0.0599}, 8},
               store_op::SaveRating{"pa", "connect4", Rating{1510, 290, 0.06}, 1}});
  p = this->store().find_player("pa");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->ratings.at("gomoku").rating, 1490.25);
  EXPECT_EQ(p->ratings.at("gomoku").deviation, 80.5);
  EXPECT_EQ(p->ratings.at("gomoku").volatility, 0.0599);
  EXPECT_EQ(p->games, (std::map<std::string, int>{{"connect4", 1}, {"gomoku", 8}}));
}

TYPED_TEST(Conformance, AccountsDevicesAndRevokedTokens) {
  Store& store = this->store();
  this->write({store_op::SavePlayer{person("pa", "Alice", "t-a")},
               store_op::SavePlayer{person("pb", "Bob", "t-b")},
               store_op::SaveAccount{"pa", "alice", "$argon2id$1", 1000},
               store_op::AddDevice{"pa", "d-2", 2000}, store_op::AddDevice{"pa", "d-3", 3000}});
  auto a = store.find_account("alice");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->id, "pa");
  EXPECT_EQ(a->name_key, "alice");
  EXPECT_EQ(a->password_hash, "$argon2id$1");
  EXPECT_EQ(a->account_since_ms, 1000);
  // Devices in the order they signed in (the databases order them by
  // time, the in-memory store keeps them as added: the same here).
  EXPECT_EQ(a->device_token_hashes, (std::vector<std::string>{"d-2", "d-3"}));
  for (const char* token : {"t-a", "d-2", "d-3"}) {
    auto p = store.find_player_by_token(token);
    ASSERT_TRUE(p) << token;
    EXPECT_EQ(p->id, "pa");
    EXPECT_EQ(p->name_key, "alice");
    EXPECT_EQ(p->device_token_hashes.size(), 2u);
  }
  EXPECT_FALSE(store.find_account("Alice"));
  EXPECT_FALSE(store.find_account("bob"));  // a guest
  EXPECT_FALSE(store.find_account(""));
  // A new password keeps the first date.
  this->write({store_op::SaveAccount{"pa", "alice", "$argon2id$2", 9000}});
  EXPECT_EQ(store.find_account("alice")->password_hash, "$argon2id$2");
  EXPECT_EQ(store.find_account("alice")->account_since_ms, 1000);
  // Changed on device 3: only its token names Alice now; Bob keeps his.
  this->write({store_op::RevokeDevices{"pa", "d-3"}});
  EXPECT_FALSE(store.find_player_by_token("t-a"));
  EXPECT_FALSE(store.find_player_by_token("d-2"));
  auto kept = store.find_player_by_token("d-3");
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->token_hash, "");
  EXPECT_EQ(kept->device_token_hashes, (std::vector<std::string>{"d-3"}));
  EXPECT_EQ(store.find_player_by_token("t-b")->id, "pb");
  // Changed on the first device: the devices go, the first token stays.
  this->write({store_op::SaveAccount{"pb", "bob", "$argon2id$b", 500},
               store_op::AddDevice{"pb", "b-2", 600}, store_op::RevokeDevices{"pb", "t-b"}});
  EXPECT_FALSE(store.find_player_by_token("b-2"));
  auto bob = store.find_account("bob");
  ASSERT_TRUE(bob);
  EXPECT_EQ(bob->token_hash, "t-b");
  EXPECT_TRUE(bob->device_token_hashes.empty());
  EXPECT_EQ(bob->account_since_ms, 500);
}

TYPED_TEST(Conformance, AFailedBatchWritesNothing) {
  if (!TestFixture::kTransactional) GTEST_SKIP() << "the in-memory store has no transactions";
  Store& store = this->store();
  this->write({store_op::SavePlayer{person("pa", "Alice", "t-a")}, store_op::Alive{100}});
  const std::vector<StoreOp> batch = {
      store_op::SavePlayer{person("pb", "Bob", "t-b")},
      store_op::SavePlayer{person("pa", "Alicia", "t-a2")},
      store_op::SaveRating{"pa", "gomoku", Rating{1600, 90, 0.06}, 1},
      store_op::SaveAccount{"pa", "alice", "$argon2id$1", 1000},
      store_op::AddDevice{"pa", "d-2", 2000},
      store_op::Alive{200},
      store_op::CreateMatch{match("m1", "pa", "pb", 10)},
      store_op::AppendEvent{"m1", 1, "e1", 11},
      store_op::CreateMatch{match("m1", "pa", "pb", 10)},  // the same id again: fails
      store_op::SavePlayer{person("pc", "Carol", "t-c")},
  };
  EXPECT_FALSE(store.write(batch));
  EXPECT_FALSE(store.find_player("pb"));
  EXPECT_FALSE(store.find_player("pc"));
  auto a = store.find_player("pa");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->name, "Alice");
  EXPECT_EQ(a->token_hash, "t-a");
  EXPECT_TRUE(a->ratings.empty());
  EXPECT_EQ(a->name_key, "");
  EXPECT_TRUE(a->device_token_hashes.empty());
  EXPECT_FALSE(store.find_account("alice"));
  EXPECT_FALSE(store.find_player_by_token("d-2"));
  EXPECT_EQ(store.last_alive_ms(), 100);
  EXPECT_FALSE(store.load_match("m1"));
  EXPECT_TRUE(store.load_unfinished().empty());
  EXPECT_EQ(store.leaderboard("gomoku", 0, 0, 10).total, 0u);
  // And the store goes on: the next batch commits.
  this->write({store_op::SavePlayer{person("pb", "Bob", "t-b")}, store_op::Alive{300}});
  EXPECT_EQ(store.find_player("pb")->name, "Bob");
  EXPECT_EQ(store.last_alive_ms(), 300);
}

TYPED_TEST(Conformance, ASecondAccountWithTheSameNameKeyFailsItsBatch) {
  if (!TestFixture::kTransactional) GTEST_SKIP() << "the in-memory store has no unique keys";
  Store& store = this->store();
  this->write({store_op::SavePlayer{person("pa", "Alice", "t-a")},
               store_op::SavePlayer{person("pb", "ALICE", "t-b")},
               store_op::SaveAccount{"pa", "alice", "$argon2id$a", 1000}});
  const std::vector<StoreOp> batch = {
      store_op::SaveRating{"pb", "gomoku", Rating{1600, 90, 0.06}, 1},
      store_op::SaveAccount{"pb", "alice", "$argon2id$b", 2000},
      store_op::AddDevice{"pb", "b-2", 2000},
  };
  EXPECT_FALSE(store.write(batch));
  EXPECT_EQ(store.find_account("alice")->id, "pa");
  auto b = store.find_player("pb");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->name_key, "");
  EXPECT_TRUE(b->ratings.empty());
  EXPECT_FALSE(store.find_player_by_token("b-2"));
  // A key of its own goes through; so does a device token once only.
  this->write({store_op::SaveAccount{"pb", "alice2", "$argon2id$b", 2000}});
  EXPECT_EQ(store.find_account("alice2")->id, "pb");
  this->write({store_op::AddDevice{"pb", "b-2", 2000}});
  EXPECT_FALSE(store.write(std::vector<StoreOp>{store_op::AddDevice{"pa", "b-2", 3000}}));
  EXPECT_EQ(store.find_player_by_token("b-2")->id, "pb");
}

// Alice: rated in two variants, an account with two more devices. Bob: a
// guest. A bot.
std::vector<StoreOp> alice_bob_and_a_bot() {
  return {store_op::SavePlayer{testing::person("pa", "Alice", "t-a")},
          store_op::SavePlayer{testing::person("pb", "Bob", "t-b")},
          store_op::SavePlayer{testing::bot("bot-easy", "Easy bot")},
          store_op::SaveRating{"pa", "tictactoe", Rating{1612.5, 80.25, 0.059}, 3},
          store_op::SaveRating{"pa", "connect4", Rating{1400.125, 200.5, 0.061}, 1},
          store_op::SaveAccount{"pa", "alice", "$argon2id$a", 1000},
          store_op::AddDevice{"pa", "d-2", 2000},
          store_op::AddDevice{"pa", "d-3", 3000}};
}

void expect_alice(const std::optional<PlayerRecord>& p) {
  ASSERT_TRUE(p);
  EXPECT_EQ(p->id, "pa");
  EXPECT_EQ(p->name, "Alice");
  EXPECT_EQ(p->token_hash, "t-a");
  EXPECT_FALSE(p->bot);
  ASSERT_EQ(p->ratings.size(), 2u);
  EXPECT_DOUBLE_EQ(p->ratings.at("tictactoe").rating, 1612.5);
  EXPECT_DOUBLE_EQ(p->ratings.at("tictactoe").deviation, 80.25);
  EXPECT_DOUBLE_EQ(p->ratings.at("tictactoe").volatility, 0.059);
  EXPECT_DOUBLE_EQ(p->ratings.at("connect4").rating, 1400.125);
  EXPECT_DOUBLE_EQ(p->ratings.at("connect4").deviation, 200.5);
  EXPECT_DOUBLE_EQ(p->ratings.at("connect4").volatility, 0.061);
  EXPECT_EQ(p->games, (std::map<std::string, int>{{"connect4", 1}, {"tictactoe", 3}}));
  EXPECT_EQ(p->name_key, "alice");
  EXPECT_EQ(p->password_hash, "$argon2id$a");
  EXPECT_EQ(p->account_since_ms, 1000);
  EXPECT_EQ(p->device_token_hashes, (std::vector<std::string>{"d-2", "d-3"}));
}

TYPED_TEST(Conformance, FindsAPlayerWholeById) {
  this->write(alice_bob_and_a_bot());
  expect_alice(this->store().find_player("pa"));

  auto bob = this->store().find_player("pb");
  ASSERT_TRUE(bob);
  EXPECT_EQ(bob->name, "Bob");
  EXPECT_EQ(bob->token_hash, "t-b");
  EXPECT_TRUE(bob->ratings.empty());
  EXPECT_TRUE(bob->games.empty());
  EXPECT_TRUE(bob->name_key.empty());
  EXPECT_TRUE(bob->password_hash.empty());
  EXPECT_EQ(bob->account_since_ms, 0);
  EXPECT_TRUE(bob->device_token_hashes.empty());

  auto bot = this->store().find_player("bot-easy");
  ASSERT_TRUE(bot);
  EXPECT_TRUE(bot->bot);
  EXPECT_EQ(bot->name, "Easy bot");
  EXPECT_EQ(bot->token_hash, "");

  EXPECT_FALSE(this->store().find_player("nobody"));
  EXPECT_FALSE(this->store().find_player(""));
}

TYPED_TEST(Conformance, FindsAPlayerByAnyTokenStillValid) {
  this->write(alice_bob_and_a_bot());
  expect_alice(this->store().find_player_by_token("t-a"));  // the first device's
  expect_alice(this->store().find_player_by_token("d-2"));
  expect_alice(this->store().find_player_by_token("d-3"));
  EXPECT_EQ(this->store().find_player_by_token("t-b")->id, "pb");
  EXPECT_FALSE(this->store().find_player_by_token("unknown"));
  EXPECT_FALSE(this->store().find_player_by_token(""));  // a bot's is ''

  // Alice changes her password on her third device: the first token and
  // the second device's name nobody now. Bob keeps his.
  this->write({store_op::RevokeDevices{"pa", "d-3"}});
  EXPECT_FALSE(this->store().find_player_by_token("t-a"));
  EXPECT_FALSE(this->store().find_player_by_token("d-2"));
  auto alice = this->store().find_player_by_token("d-3");
  ASSERT_TRUE(alice);
  EXPECT_EQ(alice->id, "pa");
  EXPECT_EQ(alice->token_hash, "");
  EXPECT_EQ(alice->device_token_hashes, (std::vector<std::string>{"d-3"}));
  EXPECT_FALSE(this->store().find_player_by_token(""));  // revoked: '' too
  EXPECT_EQ(this->store().find_player_by_token("t-b")->id, "pb");

  // Bob keeps his first device's token: his other device names nobody.
  this->write({store_op::SaveAccount{"pb", "bob", "$argon2id$b", 1000},
               store_op::AddDevice{"pb", "b-2", 2000}});
  EXPECT_EQ(this->store().find_player_by_token("b-2")->id, "pb");
  this->write({store_op::RevokeDevices{"pb", "t-b"}});
  EXPECT_FALSE(this->store().find_player_by_token("b-2"));
  auto bob = this->store().find_player_by_token("t-b");
  ASSERT_TRUE(bob);
  EXPECT_EQ(bob->id, "pb");
  EXPECT_EQ(bob->token_hash, "t-b");
  EXPECT_TRUE(bob->device_token_hashes.empty());
  EXPECT_EQ(this->store().find_player_by_token("d-3")->id, "pa");  // not Bob's to revoke
}

TYPED_TEST(Conformance, FindsAccountsByNameKeyOnly) {
  this->write(alice_bob_and_a_bot());
  // A guest whose name is Alice's too: not an account, never found by it.
  this->write({store_op::SavePlayer{testing::person("pc", "ALICE", "t-c")}});
  expect_alice(this->store().find_account("alice"));
  EXPECT_FALSE(this->store().find_account("bob"));    // a guest
  EXPECT_FALSE(this->store().find_account("Alice"));  // keys are as stored
  EXPECT_FALSE(this->store().find_account(""));
  // A change of password keeps the account, and its first date.
  this->write({store_op::SaveAccount{"pa", "alice", "$argon2id$b", 9000}});
  auto a = this->store().find_account("alice");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->password_hash, "$argon2id$b");
  EXPECT_EQ(a->account_since_ms, 1000);
  // Bob takes a password: found by his key from now on.
  this->write({store_op::SaveAccount{"pb", "bob", "$argon2id$c", 5000}});
  EXPECT_EQ(this->store().find_account("bob")->id, "pb");
}

TYPED_TEST(Conformance, RatingsAndGamesRoundTripPerVariant) {
  this->write({store_op::SavePlayer{testing::person("pa", "Alice", "t-a")},
               store_op::SaveRating{"pa", "tictactoe", Rating{1550, 300, 0.06}, 1},
               store_op::SaveRating{"pa", "gomoku", Rating{1450, 310, 0.06}, 1}});
  this->write({store_op::SaveRating{"pa", "tictactoe", Rating{1580.75, 250.5, 0.0599}, 2}});
  auto p = this->store().find_player("pa");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->games, (std::map<std::string, int>{{"gomoku", 1}, {"tictactoe", 2}}));
  EXPECT_DOUBLE_EQ(p->ratings.at("tictactoe").rating, 1580.75);
  EXPECT_DOUBLE_EQ(p->ratings.at("tictactoe").deviation, 250.5);
  EXPECT_DOUBLE_EQ(p->ratings.at("tictactoe").volatility, 0.0599);
  EXPECT_DOUBLE_EQ(p->ratings.at("gomoku").rating, 1450);
  // A rating without a game keeps its rating; its variant has no count.
  this->write({store_op::SaveRating{"pa", "connect4", Rating{1500, 350, 0.06}, 0}});
  p = this->store().find_player("pa");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->ratings.size(), 3u);
  EXPECT_EQ(p->games, (std::map<std::string, int>{{"gomoku", 1}, {"tictactoe", 2}}));
}

// Gomoku at min_games 2: carol 1700, the bot 1650, then three at 1600:
// erin (9 games) before alice and bob (4 each, by id). Dave has one game,
// frank plays connect4 only, grace has a rating and no game.
std::vector<StoreOp> ranked_ops() {
  std::vector<StoreOp> ops;
  auto rated = [&](const std::string& id, const std::string& name, double rating, int games,
                   bool is_bot = false) {
    ops.push_back(store_op::SavePlayer{is_bot ? bot(id, name) : person(id, name, "t-" + id)});
    ops.push_back(store_op::SaveRating{id, "gomoku", Rating{rating, 60.5 + games, 0.05}, games});
  };
  rated("p2", "bob", 1600, 4);
  rated("p1", "alice", 1600, 4);
  rated("p5", "erin", 1600, 9);
  rated("p4", "dave", 1800, 1);
  rated("p3", "carol", 1700, 5);
  rated("b1", "Gomoku bot", 1650, 7, true);
  rated("p7", "grace", 2100, 0);
  ops.push_back(store_op::SavePlayer{person("p6", "frank", "t-p6")});
  ops.push_back(store_op::SaveRating{"p6", "connect4", Rating{2000, 50, 0.05}, 10});
  return ops;
}

TYPED_TEST(Conformance, TheLeaderboardRanksPagesAndCounts) {
  this->write(ranked_ops());
  Store& store = this->store();
  auto all = store.leaderboard("gomoku", 2, 0, 10);
  EXPECT_EQ(all.total, 5u);
  ASSERT_EQ(ids_of(all), (std::vector<std::string>{"p3", "b1", "p5", "p1", "p2"}));
  const RankedPlayer& b = all.entries[1];
  EXPECT_EQ(b.name, "Gomoku bot");
  EXPECT_TRUE(b.bot);
  EXPECT_EQ(b.rating.rating, 1650);
  EXPECT_EQ(b.rating.deviation, 67.5);
  EXPECT_EQ(b.rating.volatility, 0.05);
  EXPECT_EQ(b.games, 7);
  EXPECT_EQ(all.entries[0].name, "carol");
  EXPECT_FALSE(all.entries[0].bot);
  EXPECT_EQ(all.entries[0].games, 5);
  EXPECT_EQ(all.entries[2].name, "erin");
  EXPECT_FALSE(all.entries[2].bot);
  EXPECT_EQ(all.entries[2].games, 9);
  EXPECT_EQ(all.entries[4].name, "bob");
  EXPECT_EQ(all.entries[4].games, 4);
  // min_games 0 counts a rating without games too; 1 leaves it out.
  EXPECT_EQ(ids_of(store.leaderboard("gomoku", 0, 0, 10)),
            (std::vector<std::string>{"p7", "p4", "p3", "b1", "p5", "p1", "p2"}));
  EXPECT_EQ(store.leaderboard("gomoku", 0, 0, 10).total, 7u);
  EXPECT_EQ(store.leaderboard("gomoku", 1, 0, 10).total, 6u);
  EXPECT_EQ(ids_of(store.leaderboard("gomoku", 5, 0, 10)),
            (std::vector<std::string>{"p3", "b1", "p5"}));
  auto none = store.leaderboard("gomoku", 10, 0, 10);
  EXPECT_EQ(none.total, 0u);
  EXPECT_TRUE(none.entries.empty());
  // Pages.
  for (auto [offset, limit, ids] :
       std::vector<std::tuple<std::size_t, std::size_t, std::vector<std::string>>>{
           {1, 2, {"b1", "p5"}},
           {3, 2, {"p1", "p2"}},
           {4, 100, {"p2"}},
           {5, 2, {}},
           {0, 0, {}},
           {2, SIZE_MAX, {"p5", "p1", "p2"}},
           {SIZE_MAX, SIZE_MAX, {}}}) {
    auto page = store.leaderboard("gomoku", 2, offset, limit);
    EXPECT_EQ(page.total, 5u) << offset << " " << limit;
    EXPECT_EQ(ids_of(page), ids) << offset << " " << limit;
  }
  auto connect4 = store.leaderboard("connect4", 2, 0, 10);
  EXPECT_EQ(connect4.total, 1u);
  ASSERT_EQ(ids_of(connect4), (std::vector<std::string>{"p6"}));
  EXPECT_EQ(connect4.entries[0].name, "frank");
  EXPECT_EQ(connect4.entries[0].games, 10);
  EXPECT_EQ(connect4.entries[0].rating.rating, 2000);
  auto nothing = store.leaderboard("tictactoe", 0, 0, 10);
  EXPECT_EQ(nothing.total, 0u);
  EXPECT_TRUE(nothing.entries.empty());
  // A new game moves bob before alice.
  this->write({store_op::SaveRating{"p2", "gomoku", Rating{1600, 64, 0.05}, 5}});
  EXPECT_EQ(ids_of(store.leaderboard("gomoku", 2, 3, 2)), (std::vector<std::string>{"p2", "p1"}));
}

}  // namespace
}  // namespace inarow::server::conformance
