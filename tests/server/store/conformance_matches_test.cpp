// The Store interface's typed suite, continued (conformance_test.cpp has
// the first part and says what the suite pins): live matches with their
// events and times, finished games, a player's games by cursor, reads while a
// writer commits, and the fencing generation.
#include <gtest/gtest.h>

#include "conformance.h"

namespace inarow::server::conformance {
namespace {

using testing::page_through;

TYPED_TEST(Conformance, LiveMatchesComeBackWithTheirEventsAndTimes) {
  Store& store = this->store();
  EXPECT_EQ(store.last_alive_ms(), 0);
  MatchRecord m2 = match("m2", "pb", "bot-easy", 20);
  m2.second_level = "easy";
  m2.rated = false;
  m2.kind = 2;
  m2.initial_ms = 0;
  m2.increment_ms = 0;
  this->write({store_op::SavePlayer{person("pa", "Alice", "t-a")},
               store_op::SavePlayer{person("pb", "Bob", "t-b")},
               store_op::SavePlayer{bot("bot-easy", "Easy bot")},
               store_op::CreateMatch{match("m1", "pa", "pb", 10)}, store_op::CreateMatch{m2},
               store_op::AppendEvent{"m1", 1, "m1-start", 1001},
               store_op::AppendEvent{"m2", 1, kBinaryEvent, 2001},
               store_op::AppendEvent{"m1", 2, "m1-move", 1002}, store_op::Alive{1500}});
  this->write({store_op::AppendEvent{"m2", 2, "", 2002},
               store_op::AppendEvent{"m1", 3, "m1-again", 1003},
               store_op::CreateMatch{match("m3", "pa", "pb", 30)},
               store_op::AppendEvent{"m3", 1, "m3-start", 3001},
               store_op::FinishMatch{finish("m3", 3500, 0, 4)}, store_op::Alive{2500}});
  EXPECT_EQ(store.last_alive_ms(), 2500);
  auto live = store.load_unfinished();
  ASSERT_EQ(live.size(), 2u);  // m3 ended; by creation
  EXPECT_EQ(live[0].id, "m1");
  EXPECT_EQ(live[0].variant, "gomoku");
  EXPECT_EQ(live[0].kind, 1);
  EXPECT_TRUE(live[0].rated);
  EXPECT_EQ(live[0].initial_ms, 300000);
  EXPECT_EQ(live[0].increment_ms, 2000);
  EXPECT_EQ(live[0].first_id, "pa");
  EXPECT_EQ(live[0].second_id, "pb");
  EXPECT_EQ(live[0].created_ms, 10);
  EXPECT_EQ(live[0].result, 0);
  EXPECT_EQ(live[0].ended_ms, 0);
  EXPECT_EQ(live[0].events, (std::vector<std::string>{"m1-start", "m1-move", "m1-again"}));
  EXPECT_EQ(live[0].event_ms, (std::vector<std::int64_t>{1001, 1002, 1003}));
  EXPECT_EQ(live[1].id, "m2");
  EXPECT_EQ(live[1].kind, 2);
  EXPECT_FALSE(live[1].rated);
  EXPECT_EQ(live[1].first_level, "");
  EXPECT_EQ(live[1].second_level, "easy");
  EXPECT_EQ(live[1].events, (std::vector<std::string>{kBinaryEvent, ""}));
  EXPECT_EQ(live[1].event_ms, (std::vector<std::int64_t>{2001, 2002}));
  // A live match read alone: its events, no record.
  auto m1 = store.load_match("m1");
  ASSERT_TRUE(m1);
  EXPECT_EQ(m1->result, 0);
  EXPECT_EQ(m1->events, (std::vector<std::string>{"m1-start", "m1-move", "m1-again"}));
  EXPECT_TRUE(m1->moves.empty());
  EXPECT_FALSE(m1->ratings);
  EXPECT_EQ(store.load_match("m2")->events, (std::vector<std::string>{kBinaryEvent, ""}));
  EXPECT_FALSE(store.load_match("m9"));

  // Restored: m1's last event's clocks hold from 5000, m2's first's from
  // 6000 (and then again from 7000: the last one counts).
  this->write({store_op::ClockFrom{"m1", 3, 5000}, store_op::ClockFrom{"m2", 1, 6000}});
  this->write({store_op::ClockFrom{"m2", 1, 7000}, store_op::Alive{7500}});
  live = store.load_unfinished();
  ASSERT_EQ(live.size(), 2u);
  EXPECT_EQ(live[0].event_ms, (std::vector<std::int64_t>{1001, 1002, 5000}));
  EXPECT_EQ(live[1].event_ms, (std::vector<std::int64_t>{7000, 2002}));
  EXPECT_EQ(store.last_alive_ms(), 7500);
  // m1 goes on and ends; m2 goes on.
  this->write({store_op::AppendEvent{"m1", 4, "m1-end", 8000},
               store_op::FinishMatch{finish("m1", 8000, 2)},
               store_op::AppendEvent{"m2", 3, "m2-more", 8001}});
  live = store.load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].id, "m2");
  EXPECT_EQ(live[0].events, (std::vector<std::string>{kBinaryEvent, "", "m2-more"}));
  EXPECT_EQ(live[0].event_ms, (std::vector<std::int64_t>{7000, 2002, 8001}));
  auto ended = store.load_match("m1");
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->result, 1);
  EXPECT_EQ(ended->reason, 2);
  EXPECT_EQ(ended->ended_ms, 8000);
  EXPECT_TRUE(ended->events.empty());
  ASSERT_EQ(ended->moves.size(), 2u);
  EXPECT_EQ(ended->moves[1].ply, 2);
  EXPECT_EQ(ended->moves[1].move, "h2");
  EXPECT_EQ(ended->moves[1].first_ms, 299980);
  EXPECT_EQ(ended->moves[1].second_ms, 298986);
  EXPECT_EQ(ended->first_name, "Alice");
  EXPECT_EQ(ended->second_name, "Bob");
  auto aborted = store.load_match("m3");
  ASSERT_TRUE(aborted);
  EXPECT_EQ(aborted->result, 4);
  EXPECT_TRUE(aborted->moves.empty());
}

TYPED_TEST(Conformance, AFinishedGameKeepsItsRatingChangesAndItsSwap) {
  Store& store = this->store();
  MatchRecord m = match("s1", "pa", "bot-hard", 10);
  m.second_level = "hard";
  this->write({store_op::SavePlayer{person("pa", "Alice", "t-a")},
               store_op::SavePlayer{bot("bot-hard", "Hard bot")}, store_op::CreateMatch{m},
               store_op::CreateMatch{match("s2", "pa", "bot-hard", 11)}});
  store_op::FinishMatch swapped = finish("s1", 100, 3, 2);
  swapped.swapped = true;
  swapped.ratings = std::array<RatingDelta, 2>{
      RatingDelta{Rating{1400.5, 120.25, 0.06}, Rating{1410.125, 118.5, 0.0601}},
      RatingDelta{Rating{1800, 60, 0.05}, Rating{1799.0625, 59.75, 0.05}}};
  this->write({swapped, finish("s2", 200, 1)});
  auto s1 = store.load_match("s1");
  ASSERT_TRUE(s1);
  // The bot played first after the swap; its level went with it.
  EXPECT_EQ(s1->first_id, "bot-hard");
  EXPECT_EQ(s1->second_id, "pa");
  EXPECT_EQ(s1->first_level, "hard");
  EXPECT_EQ(s1->second_level, "");
  EXPECT_EQ(s1->first_name, "Hard bot");
  EXPECT_TRUE(s1->first_bot);
  EXPECT_EQ(s1->second_name, "Alice");
  EXPECT_FALSE(s1->second_bot);
  EXPECT_EQ(s1->result, 2);
  ASSERT_TRUE(s1->ratings);
  EXPECT_EQ((*s1->ratings)[0].before.rating, 1400.5);
  EXPECT_EQ((*s1->ratings)[0].before.deviation, 120.25);
  EXPECT_EQ((*s1->ratings)[0].after.rating, 1410.125);
  EXPECT_EQ((*s1->ratings)[0].after.deviation, 118.5);
  EXPECT_EQ((*s1->ratings)[1].before.rating, 1800);
  EXPECT_EQ((*s1->ratings)[1].after.rating, 1799.0625);
  EXPECT_EQ((*s1->ratings)[1].after.deviation, 59.75);
  ASSERT_EQ(s1->moves.size(), 3u);
  auto s2 = store.load_match("s2");
  ASSERT_TRUE(s2);
  EXPECT_EQ(s2->first_id, "pa");
  EXPECT_EQ(s2->second_id, "bot-hard");
  EXPECT_FALSE(s2->ratings);
  // Listed by the sides they finished with.
  auto games = store.list_games("pa", "pa", std::nullopt, 10);
  ASSERT_TRUE(games);
  ASSERT_EQ(ids_of(*games), (std::vector<std::string>{"s2", "s1"}));
  EXPECT_EQ((*games)[1].second_id, "pa");
  EXPECT_EQ((*games)[1].plies, 3);
  EXPECT_TRUE((*games)[1].moves.empty());
  EXPECT_TRUE((*games)[1].ratings.has_value());
  EXPECT_EQ((*games)[0].plies, 1);
}

// Alice's games: ten that end in the same millisecond (every other one
// private against Bob), two later ones, a live one; a bot's game against
// itself.
std::vector<StoreOp> history_ops() {
  std::vector<StoreOp> ops = {
      store_op::SavePlayer{person("pa", "alice", "h-a")},
      store_op::SavePlayer{person("pb", "bob", "h-b")},
      store_op::SavePlayer{person("pc", "carol", "h-c")},
      store_op::SavePlayer{person("pd", "dave", "h-d")},
      store_op::SavePlayer{bot("bot-easy", "Easy bot")},
  };
  for (int i = 0; i < 10; ++i) {
    const std::string id = "s" + std::to_string(i);
    MatchRecord m = match(id, "pa", i % 2 == 0 ? "pb" : "pc", 100 + i);
    if (i % 2 == 0) m.kind = kPrivateMatchKind;
    ops.push_back(store_op::CreateMatch{m});
    ops.push_back(finish(id, 4000, i % 4));
  }
  ops.push_back(store_op::CreateMatch{match("late", "pc", "pa", 200)});
  ops.push_back(finish("late", 9000, 5));
  ops.push_back(store_op::CreateMatch{match("early", "pa", "bot-easy", 50)});
  ops.push_back(finish("early", 1000, 2));
  ops.push_back(store_op::CreateMatch{match("live", "pa", "pb", 300)});
  ops.push_back(store_op::CreateMatch{match("self", "bot-easy", "bot-easy", 60)});
  ops.push_back(finish("self", 2000, 4));
  return ops;
}

TYPED_TEST(Conformance, APlayersGamesPageByCursorWithPrivateGamesForTheirPlayers) {
  this->write(history_ops());
  Store& store = this->store();
  const std::vector<std::string> all = {"late", "s9", "s8", "s7", "s6", "s5",
                                        "s4",   "s3", "s2", "s1", "s0", "early"};
  const std::vector<std::string> open = {"late", "s9", "s7", "s5", "s3", "s1", "early"};
  for (std::size_t limit : {1u, 2u, 5u, 12u, 100u}) {
    EXPECT_EQ(page_through(store, "pa", "pa", limit), all) << limit;
    EXPECT_EQ(page_through(store, "pa", "pb", limit), all) << limit;  // played the private ones
    EXPECT_EQ(page_through(store, "pa", "pc", limit), open) << limit;
    EXPECT_EQ(page_through(store, "pa", "", limit), open) << limit;  // nobody (HTTP)
  }
  auto first = store.list_games("pa", "pd", std::nullopt, 3);
  ASSERT_TRUE(first);
  ASSERT_EQ(ids_of(*first), (std::vector<std::string>{"late", "s9", "s7"}));
  const MatchRecord& late = (*first)[0];
  EXPECT_EQ(late.first_id, "pc");
  EXPECT_EQ(late.first_name, "carol");
  EXPECT_EQ(late.second_name, "alice");
  EXPECT_EQ(late.ended_ms, 9000);
  EXPECT_EQ(late.created_ms, 200);
  EXPECT_EQ(late.result, 1);
  EXPECT_EQ(late.reason, 2);
  EXPECT_EQ(late.variant, "gomoku");
  EXPECT_EQ(late.plies, 5);
  EXPECT_TRUE(late.moves.empty());
  EXPECT_EQ((*first)[1].plies, 1);  // s9: 9 % 4
  // Between two games that ended in the same millisecond.
  auto after = store.list_games("pa", "pa", GameCursor{4000, "s5"}, 3);
  ASSERT_TRUE(after);
  EXPECT_EQ(ids_of(*after), (std::vector<std::string>{"s4", "s3", "s2"}));
  auto tail = store.list_games("pa", "pa", GameCursor{4000, "s0"}, 3);
  ASSERT_TRUE(tail);
  ASSERT_EQ(ids_of(*tail), (std::vector<std::string>{"early"}));
  EXPECT_TRUE((*tail)[0].second_bot);
  EXPECT_EQ((*tail)[0].second_name, "Easy bot");
  EXPECT_TRUE(store.list_games("pa", "pa", GameCursor{1000, "early"}, 3)->empty());
  // Bob's are all private: another sees none, and he is still a player.
  auto bobs = store.list_games("pb", "pd", std::nullopt, 5);
  ASSERT_TRUE(bobs);
  EXPECT_TRUE(bobs->empty());
  EXPECT_EQ(page_through(store, "pb", "pb", 2),
            (std::vector<std::string>{"s8", "s6", "s4", "s2", "s0"}));
  EXPECT_TRUE(store.list_games("pd", "pd", std::nullopt, 5)->empty());
  EXPECT_FALSE(store.list_games("nobody", "pa", std::nullopt, 5));
  // A bot against itself: listed once.
  auto self = store.list_games("bot-easy", "", std::nullopt, 10);
  ASSERT_TRUE(self);
  EXPECT_EQ(ids_of(*self), (std::vector<std::string>{"self", "early"}));
  EXPECT_EQ((*self)[0].plies, 4);
}

// Reads on this thread while a writer commits on another: each sees whole
// commits, never part of one, nor an older one than the read before.
TYPED_TEST(Conformance, ReadsSeeWholeCommitsWhileAWriterCommits) {
  this->write({store_op::SavePlayer{person("pa", "Alice", "t-a")},
               store_op::SavePlayer{person("pb", "Bob", "t-b")},
               store_op::SaveAccount{"pa", "alice", "$argon2id$a", 1},
               store_op::SaveRating{"pb", "gomoku", Rating{1500, 100, 0.06}, 1}});
  constexpr int kBatches = 400;
  std::atomic<bool> writing{true};
  std::atomic<bool> write_failed{false};
  std::thread writer([&] {
    for (int i = 1; i <= kBatches && !write_failed; ++i) {
      const std::string id = "g" + std::to_string(1000 + i);
      const std::vector<StoreOp> ops{
          store_op::SaveRating{"pa", "gomoku", Rating{1500.0 + i, 100, 0.06}, i},
          store_op::AddDevice{"pa", "d-" + std::to_string(i), i},
          store_op::CreateMatch{match(id, "pa", "pb", i)}, store_op::AppendEvent{id, 1, "start", i},
          store_op::FinishMatch{finish(id, i, 1)}};
      if (!this->store().write(ops)) write_failed = true;
    }
    writing = false;
  });
  int last_games = 0;
  int reads = 0;
  std::string failure;
  while (failure.empty() && (writing || reads == 0)) {
    ++reads;
    std::optional<PlayerRecord> p = reads % 3 == 0   ? this->store().find_player_by_token("t-a")
                                    : reads % 3 == 1 ? this->store().find_account("alice")
                                                     : this->store().find_player("pa");
    if (!p) {
      failure = "read " + std::to_string(reads) + " found nobody";
      break;
    }
    const auto g = p->games.find("gomoku");
    const int games = g == p->games.end() ? 0 : g->second;
    if (games < last_games) failure = "games went back to " + std::to_string(games);
    if (p->device_token_hashes.size() != static_cast<std::size_t>(games)) {
      failure = "a torn read: " + std::to_string(games) + " games, " +
                std::to_string(p->device_token_hashes.size()) + " devices";
    }
    if (games > 0 && p->ratings.at("gomoku").rating != 1500.0 + games) {
      failure = "a rating from another commit";
    }
    last_games = games;
    // Read after the player: a commit as new or newer.
    auto board = this->store().leaderboard("gomoku", 1, 0, 10);
    if (board.total != board.entries.size() || board.total < (games > 0 ? 2u : 1u)) {
      failure = "total " + std::to_string(board.total);
    }
    for (const RankedPlayer& e : board.entries) {
      if (e.player_id == "pa" && e.games < games) failure = "the leaderboard went back";
    }
    auto listed = this->store().list_games("pa", "pa", std::nullopt, 1);
    if (!listed || (games > 0 && (listed->empty() || listed->front().ended_ms < games))) {
      failure = "the games went back";
    }
    if (games > 0) {
      auto last = this->store().load_match("g" + std::to_string(1000 + games));
      if (!last || last->result != 1 || last->moves.size() != 1u) failure = "a game half-read";
    }
  }
  writer.join();
  EXPECT_FALSE(write_failed);
  EXPECT_EQ(failure, "");
  EXPECT_GT(reads, 0);
  auto p = this->store().find_player("pa");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->games.at("gomoku"), kBatches);
  EXPECT_EQ(p->device_token_hashes.size(), static_cast<std::size_t>(kBatches));
  auto board = this->store().leaderboard("gomoku", 1, 0, 10);
  EXPECT_EQ(board.total, 2u);
  EXPECT_EQ(ids_of(board), (std::vector<std::string>{"pa", "pb"}));
  EXPECT_TRUE(this->store().load_unfinished().empty());
  EXPECT_EQ(page_through(this->store(), "pb", "pb", 50).size(), static_cast<std::size_t>(kBatches));
}

// The fencing generation (store.h): what CreateMatch stored and TakeOver
// raised, read back by both reads, finished or not.
TYPED_TEST(Conformance, ATakeOverRaisesTheGenerationAndTheReadsReturnIt) {
  Store& store = this->store();
  MatchRecord owned = match("m1", "pa", "pb", 10);
  owned.generation = 3;
  this->write({store_op::SavePlayer{person("pa", "Alice", "t-a")},
               store_op::SavePlayer{person("pb", "Bob", "t-b")}, store_op::CreateMatch{owned},
               store_op::CreateMatch{match("m2", "pa", "pb", 20)}});
  auto live = store.load_unfinished();
  ASSERT_EQ(live.size(), 2u);
  EXPECT_EQ(live[0].generation, 3);
  EXPECT_EQ(live[1].generation, 0);
  EXPECT_EQ(store.load_match("m1")->generation, 3);

  this->write({store_op::TakeOver{"m1", 4}, store_op::TakeOver{"m2", 1}});
  EXPECT_EQ(store.load_match("m1")->generation, 4);
  EXPECT_EQ(store.load_match("m2")->generation, 1);
  // Twice in one batch: each above the one before.
  this->write({store_op::TakeOver{"m1", 9}, store_op::TakeOver{"m1", 1000000000000}});
  live = store.load_unfinished();
  ASSERT_EQ(live.size(), 2u);
  EXPECT_EQ(live[0].generation, 1000000000000);  // past 32 bits
  EXPECT_EQ(live[1].generation, 1);
  // A finished game keeps its last owner's.
  store_op::FinishMatch end = finish("m2", 500, 1);
  end.generation = 1;
  this->write({end});
  auto ended = store.load_match("m2");
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->result, 1);
  EXPECT_EQ(ended->generation, 1);
}

TYPED_TEST(Conformance, ATakeOverNotAboveTheStoredGenerationIsFenced) {
  Store& store = this->store();
  MatchRecord owned = match("m1", "pa", "pb", 10);
  owned.generation = 5;
  this->write({store_op::CreateMatch{owned}, store_op::AppendEvent{"m1", 1, "start", 11, 5}});
  using Ids = std::vector<std::string>;
  EXPECT_EQ(this->fenced({store_op::TakeOver{"m1", 5}}), Ids{"m1"});  // equal
  EXPECT_EQ(this->fenced({store_op::TakeOver{"m1", 4}}), Ids{"m1"});  // lower
  EXPECT_EQ(this->fenced({store_op::TakeOver{"m1", 0}}), Ids{"m1"});
  EXPECT_EQ(this->fenced({store_op::TakeOver{"m9", 1}}), Ids{"m9"});  // no such match
  // The second of two take-overs in one batch with the same generation.
  EXPECT_EQ(this->fenced({store_op::TakeOver{"m1", 6}, store_op::TakeOver{"m1", 6}}), Ids{"m1"});
  // A fenced batch changes nothing, whatever else it held.
  EXPECT_EQ(this->fenced({store_op::SavePlayer{person("pz", "Zed", "t-z")}, store_op::Alive{77},
                          store_op::TakeOver{"m1", 5}, store_op::AppendEvent{"m1", 2, "x", 12}}),
            Ids{"m1"});
  EXPECT_FALSE(store.find_player("pz"));
  EXPECT_EQ(store.last_alive_ms(), 0);
  auto m1 = store.load_match("m1");
  ASSERT_TRUE(m1);
  EXPECT_EQ(m1->generation, 5);
  EXPECT_EQ(m1->events, (std::vector<std::string>{"start"}));
  // And the owner's writes go on.
  this->write({store_op::AppendEvent{"m1", 2, "move", 12, 5}});
  EXPECT_EQ(store.load_match("m1")->events, (std::vector<std::string>{"start", "move"}));
}

TYPED_TEST(Conformance, TheOldOwnersWritesAfterATakeOverAreRefusedAndChangeNothing) {
  Store& store = this->store();
  MatchRecord owned = match("m1", "pa", "pb", 10);
  owned.generation = 1;
  this->write({store_op::CreateMatch{owned}, store_op::AppendEvent{"m1", 1, "start", 1001, 1},
               store_op::AppendEvent{"m1", 2, "move", 1002, 1},
               store_op::ClockFrom{"m1", 2, 1500, 1}});
  this->write({store_op::TakeOver{"m1", 2}});
  const std::vector<std::string> events{"start", "move"};
  const std::vector<std::int64_t> times{1001, 1500};
  auto unchanged = [&](const char* after) {
    auto live = store.load_unfinished();
    ASSERT_EQ(live.size(), 1u) << after;
    EXPECT_EQ(live[0].generation, 2) << after;
    EXPECT_EQ(live[0].result, 0) << after;
    EXPECT_EQ(live[0].events, events) << after;
    EXPECT_EQ(live[0].event_ms, times) << after;
    auto m1 = store.load_match("m1");
    ASSERT_TRUE(m1) << after;
    EXPECT_EQ(m1->result, 0) << after;
    EXPECT_EQ(m1->events, events) << after;
  };
  using Ids = std::vector<std::string>;
  store_op::FinishMatch stale_end = finish("m1", 2000, 1);
  stale_end.generation = 1;
  EXPECT_EQ(this->fenced({store_op::AppendEvent{"m1", 3, "stale", 2000, 1}}), Ids{"m1"});
  unchanged("an old append");
  EXPECT_EQ(this->fenced({store_op::ClockFrom{"m1", 2, 9999, 1}}), Ids{"m1"});
  unchanged("an old ClockFrom");
  EXPECT_EQ(this->fenced({stale_end}), Ids{"m1"});
  unchanged("an old FinishMatch");
  // Nor a generation the store has not seen (only the stored one is the owner's).
  EXPECT_EQ(this->fenced({store_op::AppendEvent{"m1", 3, "ahead", 2000, 3}}), Ids{"m1"});
  unchanged("a newer generation's append");
  // The new owner's, with the current generation, go through.
  this->write(
      {store_op::ClockFrom{"m1", 2, 3000, 2}, store_op::AppendEvent{"m1", 3, "new", 3001, 2}});
  auto live = store.load_unfinished();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].events, (std::vector<std::string>{"start", "move", "new"}));
  EXPECT_EQ(live[0].event_ms, (std::vector<std::int64_t>{1001, 3000, 3001}));
  store_op::FinishMatch end = finish("m1", 4000, 2);
  end.generation = 2;
  this->write({end});
  EXPECT_TRUE(store.load_unfinished().empty());
  EXPECT_EQ(store.load_match("m1")->result, 1);
}

// Generation 0 is a single node's: never checked, whatever the stored one.
TYPED_TEST(Conformance, WritesOfGenerationZeroAreNotChecked) {
  Store& store = this->store();
  MatchRecord owned = match("m1", "pa", "pb", 10);
  owned.generation = 7;
  this->write({store_op::CreateMatch{owned}, store_op::CreateMatch{match("m2", "pa", "pb", 20)}});
  this->write({store_op::AppendEvent{"m1", 1, "a", 11}, store_op::AppendEvent{"m2", 1, "b", 21},
               store_op::ClockFrom{"m1", 1, 50}});
  auto live = store.load_unfinished();
  ASSERT_EQ(live.size(), 2u);
  EXPECT_EQ(live[0].events, (std::vector<std::string>{"a"}));
  EXPECT_EQ(live[0].event_ms, (std::vector<std::int64_t>{50}));
  EXPECT_EQ(live[1].events, (std::vector<std::string>{"b"}));
  this->write({finish("m1", 100, 1)});
  EXPECT_EQ(store.load_match("m1")->result, 1);
  EXPECT_EQ(store.load_match("m1")->generation, 7);
}

// A group commit holds many matches' ops: a refused one names its match
// only, each fenced match once, in the batch's order.
TYPED_TEST(Conformance, ABatchNamesExactlyItsFencedMatches) {
  Store& store = this->store();
  MatchRecord m1 = match("m1", "pa", "pb", 10);
  MatchRecord m2 = match("m2", "pa", "pb", 20);
  m1.generation = m2.generation = 1;
  this->write({store_op::CreateMatch{m1}, store_op::CreateMatch{m2},
               store_op::CreateMatch{match("m3", "pa", "pb", 30)},
               store_op::AppendEvent{"m1", 1, "m1-start", 11, 1},
               store_op::AppendEvent{"m2", 1, "m2-start", 21, 1}});
  this->write({store_op::TakeOver{"m1", 2}});
  using Ids = std::vector<std::string>;
  // One fenced match and one other.
  EXPECT_EQ(this->fenced({store_op::AppendEvent{"m2", 2, "m2-move", 22, 1},
                          store_op::AppendEvent{"m1", 2, "m1-stale", 12, 1}}),
            Ids{"m1"});
  // Several, and ops of every other kind around them.
  store_op::FinishMatch stale_end = finish("m1", 100, 1);
  stale_end.generation = 1;
  EXPECT_EQ(this->fenced({store_op::SavePlayer{person("pz", "Zed", "t-z")},
                          store_op::AppendEvent{"m9", 1, "nowhere", 5, 4},
                          store_op::AppendEvent{"m2", 2, "m2-move", 22, 1},
                          store_op::AppendEvent{"m1", 2, "m1-stale", 12, 1},
                          store_op::AppendEvent{"m3", 1, "m3-start", 31}, stale_end,
                          store_op::TakeOver{"m2", 1}, store_op::Alive{99}}),
            (Ids{"m9", "m1", "m2"}));
  EXPECT_FALSE(store.find_player("pz"));
  EXPECT_EQ(store.last_alive_ms(), 0);
  auto live = store.load_unfinished();
  ASSERT_EQ(live.size(), 3u);
  EXPECT_EQ(live[0].events, (std::vector<std::string>{"m1-start"}));
  EXPECT_EQ(live[1].events, (std::vector<std::string>{"m2-start"}));
  EXPECT_TRUE(live[2].events.empty());
  // The same batch without the fenced matches' ops commits.
  this->write({store_op::SavePlayer{person("pz", "Zed", "t-z")},
               store_op::AppendEvent{"m2", 2, "m2-move", 22, 1},
               store_op::AppendEvent{"m3", 1, "m3-start", 31}, store_op::Alive{99}});
  live = store.load_unfinished();
  ASSERT_EQ(live.size(), 3u);
  EXPECT_EQ(live[0].events, (std::vector<std::string>{"m1-start"}));
  EXPECT_EQ(live[1].events, (std::vector<std::string>{"m2-start", "m2-move"}));
  EXPECT_EQ(live[2].events, (std::vector<std::string>{"m3-start"}));
  EXPECT_EQ(store.last_alive_ms(), 99);
}

// The StoreWriter over each store: a job fenced in a group commit is told
// so, and the others in its batch are written at once without it.
TYPED_TEST(Conformance, TheWriterAnswersAFencedJobAndCommitsTheRestOfItsBatch) {
  Store& store = this->store();
  MatchRecord m1 = match("m1", "pa", "pb", 10);
  MatchRecord m2 = match("m2", "pa", "pb", 20);
  m1.generation = m2.generation = 1;
  this->write({store_op::CreateMatch{m1}, store_op::CreateMatch{m2}});
  this->write({store_op::TakeOver{"m1", 2}});  // another node took m1

  using Outcome = StoreWriter::Outcome;
  std::mutex mutex;
  std::vector<std::pair<std::size_t, bool>> commits;  // ops, ok
  std::map<std::string, Outcome> outcomes;
  StoreWriter writer(store, [&](double, std::size_t ops, bool ok) {
    std::lock_guard lock(mutex);
    commits.emplace_back(ops, ok);
  });
  // A first job holds the writer in its callback until the next ones are
  // queued: they go in one batch.
  auto batch = [&](std::vector<std::pair<std::string, std::vector<StoreOp>>> jobs) {
    std::promise<void> writing, queued;
    auto written = writing.get_future();
    auto released = queued.get_future();
    writer.submit({store_op::Alive{1}}, [&](Outcome) {
      writing.set_value();
      released.wait();
    });
    written.wait();
    for (auto& job : jobs) {
      writer.submit(std::move(job.second), [&, name = job.first](Outcome o) {
        std::lock_guard lock(mutex);
        outcomes[name] = o;
      });
    }
    queued.set_value();
    writer.flush();
  };
  batch({{"stale", {store_op::AppendEvent{"m1", 1, "m1-stale", 11, 1}}},
         {"fresh", {store_op::AppendEvent{"m2", 1, "m2-start", 21, 1}}},
         {"player", {store_op::SavePlayer{person("pa", "Alice", "t-a")}}}});
  EXPECT_EQ(outcomes,
            (std::map<std::string, Outcome>{
                {"stale", Outcome::fenced}, {"fresh", Outcome::ok}, {"player", Outcome::ok}}));
  // Written: the first job; the batch, refused; the batch less the fenced
  // job. No failure among them.
  EXPECT_EQ(commits, (std::vector<std::pair<std::size_t, bool>>{{1, true}, {3, true}, {2, true}}));
  auto live = store.load_unfinished();
  ASSERT_EQ(live.size(), 2u);
  EXPECT_TRUE(live[0].events.empty());
  EXPECT_EQ(live[1].events, (std::vector<std::string>{"m2-start"}));
  EXPECT_EQ(store.find_player("pa")->name, "Alice");

  // A batch of fenced jobs only: refused, and nothing left to write.
  outcomes.clear();
  commits.clear();
  store_op::FinishMatch stale_end = finish("m1", 50, 0);
  stale_end.generation = 1;
  batch({{"stale", {store_op::AppendEvent{"m1", 1, "m1-stale", 11, 1}}},
         {"stale end", {stale_end}},
         {"late take-over", {store_op::TakeOver{"m1", 2}}}});
  EXPECT_EQ(outcomes, (std::map<std::string, Outcome>{{"stale", Outcome::fenced},
                                                      {"stale end", Outcome::fenced},
                                                      {"late take-over", Outcome::fenced}}));
  EXPECT_EQ(commits, (std::vector<std::pair<std::size_t, bool>>{{1, true}, {3, true}}));
  EXPECT_TRUE(store.load_unfinished().at(0).events.empty());
  EXPECT_EQ(store.load_match("m1")->result, 0);
}

}  // namespace
}  // namespace inarow::server::conformance
