// Accounts in the stores: an account and its devices survive reopening the
// SQLite file, a second account with the same name key fails its whole
// transaction and changes nothing, a password change keeps the account's
// first date, and each player's rated games per variant are what the
// rating book saved with their ratings. The in-memory store agrees.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inarow/server/memory_store.h"
#include "inarow/server/sqlite_store.h"
#include "records.h"
#include "stores.h"

namespace inarow::server {
namespace {

using testing::TempDb;

std::unique_ptr<Store> open(const std::filesystem::path& path) {
  auto store = open_sqlite_store(path.string());
  EXPECT_TRUE(store) << (store ? "" : store.error());
  return store ? std::move(*store) : nullptr;
}

PlayerRecord player(const std::string& id, const std::string& name) {
  return testing::person(id, name, "hash-" + id);
}

MatchRecord rated_match(const std::string& id, const std::string& first, const std::string& second,
                        const std::string& variant) {
  MatchRecord m;
  m.id = id;
  m.variant = variant;
  m.kind = 1;
  m.rated = true;
  m.first_id = first;
  m.second_id = second;
  m.created_ms = 1700000000000;
  return m;
}

void write_ok(Store& store, std::vector<StoreOp> ops) {
  auto ok = store.write(ops);
  ASSERT_TRUE(ok) << ok.error().message;
}

TEST(AccountsStore, AnAccountAndItsDevicesSurviveReopening) {
  const TempDb temp("inarow-accounts-store");
  const auto& path = temp.path();
  {
    auto store = open(path);
    ASSERT_TRUE(store);
    write_ok(*store, {store_op::SavePlayer{player("pa", "Alice")},
                      store_op::SavePlayer{player("pb", "Bob")},
                      store_op::SaveAccount{"pa", "alice", "$argon2id$first", 1000}});
    write_ok(*store, {store_op::AddDevice{"pa", "device-2", 2000},
                      store_op::AddDevice{"pa", "device-3", 3000}});
    // A change of password keeps the date the account began.
    write_ok(*store, {store_op::SaveAccount{"pa", "alice", "$argon2id$second", 5000}});
  }
  auto store = open(path);
  ASSERT_TRUE(store);
  const auto a = store->find_player("pa");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->name_key, "alice");
  EXPECT_EQ(a->password_hash, "$argon2id$second");
  EXPECT_EQ(a->account_since_ms, 1000);
  EXPECT_EQ(a->token_hash, "hash-pa");
  EXPECT_EQ(a->device_token_hashes, (std::vector<std::string>{"device-2", "device-3"}));
  EXPECT_EQ(store->find_account("alice")->id, "pa");
  const auto b = store->find_player("pb");
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->password_hash.empty());
  EXPECT_TRUE(b->name_key.empty());
  EXPECT_TRUE(b->device_token_hashes.empty());
}

// Signing the other devices out keeps one token, the first or a device's,
// and touches no other player; both stores agree.
TEST(AccountsStore, RevokingDevicesKeepsOneTokenOfThatPlayerOnly) {
  const TempDb temp("inarow-accounts-revoke");
  const auto& path = temp.path();
  MemoryStore memory;
  {
    auto sqlite = open(path);
    ASSERT_TRUE(sqlite);
    for (Store* store : {sqlite.get(), static_cast<Store*>(&memory)}) {
      write_ok(*store, {store_op::SavePlayer{player("pa", "Alice")},
                        store_op::SavePlayer{player("pb", "Bob")},
                        store_op::SaveAccount{"pa", "alice", "$argon2id$a", 1000},
                        store_op::SaveAccount{"pb", "bob", "$argon2id$b", 1000}});
      write_ok(*store,
               {store_op::AddDevice{"pa", "a-2", 2000}, store_op::AddDevice{"pa", "a-3", 3000},
                store_op::AddDevice{"pb", "b-2", 2000}});
      // Alice changes her password on her third device, Bob on his first.
      write_ok(*store, {store_op::RevokeDevices{"pa", "a-3"}});
      write_ok(*store, {store_op::RevokeDevices{"pb", "hash-pb"}});
    }
  }
  auto sqlite = open(path);
  ASSERT_TRUE(sqlite);
  for (Store* store : {sqlite.get(), static_cast<Store*>(&memory)}) {
    const auto a = store->find_player("pa");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->token_hash, "");
    EXPECT_EQ(a->device_token_hashes, (std::vector<std::string>{"a-3"}));
    EXPECT_EQ(a->password_hash, "$argon2id$a");
    const auto b = store->find_player("pb");
    ASSERT_TRUE(b);
    EXPECT_EQ(b->token_hash, "hash-pb");
    EXPECT_TRUE(b->device_token_hashes.empty());
    // Only the kept tokens still name them.
    EXPECT_EQ(store->find_player_by_token("a-3")->id, "pa");
    EXPECT_EQ(store->find_player_by_token("hash-pb")->id, "pb");
    for (const char* revoked : {"hash-pa", "a-2", "b-2"})
      EXPECT_FALSE(store->find_player_by_token(revoked)) << revoked;
  }
}

TEST(AccountsStore, ASecondAccountWithTheSameNameKeyFailsItsWholeTransaction) {
  const TempDb temp("inarow-accounts-unique");
  const auto& path = temp.path();
  auto store = open(path);
  ASSERT_TRUE(store);
  write_ok(*store, {store_op::SavePlayer{player("pa", "Alice")},
                    store_op::SavePlayer{player("pb", "ALICE")},
                    store_op::SaveAccount{"pa", "alice", "$argon2id$a", 1000}});
  auto clash = std::vector<StoreOp>{store_op::SaveRating{"pb", "tictactoe", Rating{1600, 80, 0.06}},
                                    store_op::SaveAccount{"pb", "alice", "$argon2id$b", 2000}};
  EXPECT_FALSE(store->write(clash));
  const auto b = store->find_player("pb");
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->password_hash.empty());
  EXPECT_TRUE(b->ratings.empty());  // the rating in the same transaction is gone too
  EXPECT_EQ(store->find_player("pa")->password_hash, "$argon2id$a");
  EXPECT_EQ(store->find_account("alice")->id, "pa");
  // A token hash names one device only.
  write_ok(*store, {store_op::AddDevice{"pa", "device", 1}});
  EXPECT_FALSE(store->write(std::vector<StoreOp>{store_op::AddDevice{"pb", "device", 2}}));
  EXPECT_EQ(store->find_player_by_token("device")->id, "pa");
}

// Rated games that ended in a result, with the ratings the rating book saves
// with each (the games it counted, this one included); live, aborted and
// unrated games save none.
std::vector<StoreOp> games_ops() {
  std::vector<StoreOp> ops{store_op::SavePlayer{player("pa", "Alice")},
                           store_op::SavePlayer{player("pb", "Bob")}};
  auto finish = [&](const std::string& id, int result) {
    ops.push_back(store_op::FinishMatch{id, result, 1, 1700000001000, {}});
  };
  auto rate = [&](const std::string& variant, int games) {
    for (const char* p : {"pa", "pb"})
      ops.push_back(store_op::SaveRating{p, variant, Rating{1500.0 + games, 300, 0.06}, games});
  };
  ops.push_back(store_op::CreateMatch{rated_match("m1", "pa", "pb", "tictactoe")});
  finish("m1", 1);
  rate("tictactoe", 1);
  ops.push_back(store_op::CreateMatch{rated_match("m2", "pb", "pa", "tictactoe")});
  finish("m2", 3);
  rate("tictactoe", 2);
  ops.push_back(store_op::CreateMatch{rated_match("m3", "pa", "pb", "connect4")});
  finish("m3", 2);
  rate("connect4", 1);
  ops.push_back(store_op::CreateMatch{rated_match("m4", "pa", "pb", "connect4")});  // live
  ops.push_back(store_op::CreateMatch{rated_match("m5", "pa", "pb", "connect4")});
  finish("m5", 4);  // aborted
  auto unrated = rated_match("m6", "pa", "pb", "connect4");
  unrated.rated = false;
  ops.push_back(store_op::CreateMatch{unrated});
  finish("m6", 1);
  return ops;
}

void expect_games(Store& store) {
  for (const char* id : {"pa", "pb"}) {
    const auto p = store.find_player(id);
    ASSERT_TRUE(p) << id;
    EXPECT_EQ(p->games, (std::map<std::string, int>{{"connect4", 1}, {"tictactoe", 2}})) << id;
    EXPECT_DOUBLE_EQ(p->ratings.at("tictactoe").rating, 1502) << id;
  }
}

TEST(AccountsStore, GamesPerVariantAreWhatTheRatingsSaved) {
  const TempDb temp("inarow-accounts-games");
  const auto& path = temp.path();
  {
    auto store = open(path);
    ASSERT_TRUE(store);
    write_ok(*store, games_ops());
    expect_games(*store);
  }
  auto store = open(path);  // and they survive reopening
  ASSERT_TRUE(store);
  expect_games(*store);
}

TEST(AccountsStore, TheMemoryStoreKeepsAccountsAndCountsGamesAlike) {
  MemoryStore store;
  write_ok(store, games_ops());
  write_ok(store, {store_op::SaveAccount{"pa", "alice", "$argon2id$first", 1000},
                   store_op::AddDevice{"pa", "device-2", 2000},
                   store_op::SaveAccount{"pa", "alice", "$argon2id$second", 5000}});
  expect_games(store);
  const auto a = store.find_account("alice");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->id, "pa");
  EXPECT_EQ(a->password_hash, "$argon2id$second");
  EXPECT_EQ(a->account_since_ms, 1000);
  EXPECT_EQ(a->device_token_hashes, (std::vector<std::string>{"device-2"}));
}

}  // namespace
}  // namespace inarow::server
