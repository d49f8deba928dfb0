#include "inarow/server/store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <vector>

namespace inarow::server {
namespace {

std::filesystem::path temp_db(const char* name) {
  auto path = std::filesystem::temp_directory_path() /
              (std::string(name) + "-" + std::to_string(::getpid()) + ".db");
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::filesystem::remove(path.string() + suffix);
  }
  return path;
}

MatchRecord match(const std::string& id) {
  MatchRecord m;
  m.id = id;
  m.variant = "tictactoe";
  m.kind = 1;
  m.rated = true;
  m.initial_ms = 60000;
  m.increment_ms = 1000;
  m.first_id = "pa";
  m.second_id = "bot-easy";
  m.second_level = "easy";
  m.created_ms = 1700000000000;
  return m;
}

TEST(SqliteStore, WritesSurviveReopening) {
  const auto path = temp_db("inarow-store-test");
  {
    auto store = open_sqlite_store(path.string());
    ASSERT_TRUE(store) << store.error();
    std::vector<StoreOp> ops = {
        store_op::SavePlayer{PlayerRecord{"pa", "alice", "hash-a", false, {}}},
        store_op::SaveRating{"pa", "tictactoe", Rating{1612.5, 80.25, 0.059}},
        store_op::CreateMatch{match("m1")},
        store_op::CreateMatch{match("m2")},
        store_op::AppendEvent{"m1", 1, "start"},
        store_op::AppendMove{"m1", MoveRecord{1, "b2", 59000, 60000}},
        store_op::AppendEvent{"m1", 2, "b2"},
        store_op::AppendMove{"m1", MoveRecord{2, "a1", 59000, 58500}},
        store_op::AppendEvent{"m1", 3, "a1"},
        store_op::TruncateMoves{"m1", 1},
        store_op::FinishMatch{"m2", 1, 3, 1700000001000},
    };
    auto written = (*store)->write(ops);
    ASSERT_TRUE(written) << written.error();
  }
  auto store = open_sqlite_store(path.string());
  ASSERT_TRUE(store) << store.error();
  auto players = (*store)->load_players();
  ASSERT_EQ(players.size(), 1u);
  EXPECT_EQ(players[0].name, "alice");
  EXPECT_EQ(players[0].token_hash, "hash-a");
  EXPECT_DOUBLE_EQ(players[0].ratings.at("tictactoe").rating, 1612.5);
  EXPECT_DOUBLE_EQ(players[0].ratings.at("tictactoe").deviation, 80.25);

  auto live = (*store)->load_unfinished();
  ASSERT_EQ(live.size(), 1u);  // m2 has a result
  EXPECT_EQ(live[0].id, "m1");
  EXPECT_EQ(live[0].second_level, "easy");
  EXPECT_EQ(live[0].events, (std::vector<std::string>{"start", "b2", "a1"}));

  auto m1 = (*store)->load_match("m1");
  ASSERT_TRUE(m1);
  ASSERT_EQ(m1->moves.size(), 1u);  // the takeback dropped ply 2
  EXPECT_EQ(m1->moves[0].move, "b2");
  EXPECT_EQ(m1->moves[0].first_ms, 59000);
  auto m2 = (*store)->load_match("m2");
  ASSERT_TRUE(m2);
  EXPECT_EQ(m2->result, 1);
  EXPECT_EQ(m2->reason, 3);
  EXPECT_EQ(m2->ended_ms, 1700000001000);
  EXPECT_FALSE((*store)->load_match("nope"));
}

TEST(SqliteStore, AFailedBatchWritesNothing) {
  auto store = open_sqlite_store(":memory:");
  ASSERT_TRUE(store);
  std::vector<StoreOp> ops = {store_op::CreateMatch{match("m1")},
                              store_op::CreateMatch{match("m1")}};  // duplicate key
  EXPECT_FALSE((*store)->write(ops));
  EXPECT_FALSE((*store)->load_match("m1"));
}

TEST(StoreWriter, CallsBackInOrderOnceDurable) {
  auto store = open_sqlite_store(":memory:");
  ASSERT_TRUE(store);
  std::atomic<int> commits{0};
  std::vector<int> order;
  std::mutex mutex;
  {
    StoreWriter writer(**store, [&](double, std::size_t, bool ok) {
      EXPECT_TRUE(ok);
      ++commits;
    });
    writer.submit({store_op::CreateMatch{match("m1")}});
    for (int i = 1; i <= 200; ++i) {
      writer.submit({store_op::AppendEvent{"m1", static_cast<std::uint64_t>(i), "e"}},
                    [&, i](bool ok) {
                      EXPECT_TRUE(ok);
                      std::lock_guard lock(mutex);
                      order.push_back(i);
                    });
    }
    writer.flush();
    EXPECT_EQ(order.size(), 200u);
  }
  for (int i = 0; i < 200; ++i)
    ASSERT_EQ(order[i], i + 1);
  EXPECT_GE(commits.load(), 1);
  EXPECT_LE(commits.load(), 201);
  auto live = (*store)->load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].events.size(), 200u);
}

}  // namespace
}  // namespace inarow::server
