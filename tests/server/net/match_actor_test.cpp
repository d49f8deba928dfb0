// The match actor without sockets: an io_context run by the test, an
// in-memory store behind a real StoreWriter, and fake connections that
// keep what they are sent. Every wait is for the message or state it means.
#include "inarow/server/match_actor.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <functional>
#include <mutex>

#include "inarow/server/memory_store.h"
#include "inarow/server/store_writer.h"
#include "inarow/testing/fake_connection.h"
#include "inarow/testing/messages.h"
#include "inarow/testing/run_until.h"

namespace inarow::server {
namespace {

using namespace std::chrono_literals;
namespace asio = boost::asio;

using inarow::testing::FakeConnection;

class MatchActorTest : public ::testing::Test {
 protected:
  MatchActorTest() {
    config_.reconnect_grace = 50ms;
    config_.bot_seed = 7;
    services_ = std::make_shared<MatchServices>(ioc_, bot_workers_, config_, writer_, metrics_);
    services_->match_ended = [this](const std::string& id) {
      std::lock_guard lock(ended_mutex_);
      ended_.push_back(id);
    };
  }
  ~MatchActorTest() override {
    writer_.flush();
    bot_workers_.join();
    services_->match_ended = nullptr;
  }

  MatchSetup setup(Millis initial = 0ms, Millis increment = 0ms, bool second_is_bot = false) {
    MatchSetup s;
    s.id = "m-test";
    s.variant = *Variant::parse("tictactoe");
    s.kind = v1::MATCH_KIND_SEEK;
    s.rated = true;
    s.initial = initial;
    s.increment = increment;
    s.seats[0] = Seat{"alice", "alice", false, {}, {}};
    s.seats[1] = second_is_bot ? Seat{"bot-easy", "easy bot", true, "easy", {}}
                               : Seat{"bob", "bob", false, {}, {}};
    return s;
  }

  std::shared_ptr<MatchActor> start(MatchSetup s) {
    auto actor = std::make_shared<MatchActor>(services_, std::move(s));
    actor->start({{a_, Side::first}, {b_, Side::second}});
    return actor;
  }

  bool run_until(const std::function<bool()>& done, std::chrono::milliseconds timeout = 5s) {
    return inarow::testing::run_until(ioc_, done, timeout);
  }

  bool events_reach(const FakeConnection& c, std::size_t n) {
    return run_until([&] { return c.events().size() >= n; });
  }

  std::uint64_t command(const std::shared_ptr<MatchActor>& actor,
                        const std::shared_ptr<FakeConnection>& from, Side side,
                        v1::ClientMessage m) {
    m.set_request_id(++request_id_);
    actor->command(from, side, std::move(m));
    return request_id_;
  }
  std::uint64_t move(const std::shared_ptr<MatchActor>& actor,
                     const std::shared_ptr<FakeConnection>& from, Side side,
                     const std::string& cell) {
    return command(actor, from, side, inarow::testing::move_message("m-test", cell));
  }
  std::optional<v1::ServerMessage> answer(const std::shared_ptr<FakeConnection>& c,
                                          std::uint64_t request_id) {
    std::optional<v1::ServerMessage> a;
    run_until([&] { return (a = c->answer(request_id)).has_value(); });
    return a;
  }
  std::vector<std::string> ended() {
    std::lock_guard lock(ended_mutex_);
    return ended_;
  }

  ServerConfig config_;
  Metrics metrics_;
  MemoryStore store_;
  StoreWriter writer_{store_};
  asio::io_context ioc_;
  asio::thread_pool bot_workers_{1};
  std::shared_ptr<MatchServices> services_;
  std::shared_ptr<FakeConnection> a_ = std::make_shared<FakeConnection>();
  std::shared_ptr<FakeConnection> b_ = std::make_shared<FakeConnection>();
  std::uint64_t request_id_ = 0;
  std::mutex ended_mutex_;
  std::vector<std::string> ended_;
};

TEST_F(MatchActorTest, StartIsStoredThenToldToBothSeats) {
  auto actor = start(setup());
  ASSERT_TRUE(events_reach(*a_, 1));
  ASSERT_TRUE(events_reach(*b_, 1));
  EXPECT_TRUE(a_->events()[0].has_started());
  EXPECT_EQ(a_->events()[0].seq(), 1u);
  // Told only once durable: the store has the match and its first event.
  auto rec = store_.load_match("m-test");
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->first_id, "alice");
  EXPECT_EQ(rec->second_id, "bob");
  ASSERT_EQ(rec->events.size(), 1u);
}

TEST_F(MatchActorTest, AMoveIsAcknowledgedAndPublishedAfterItIsStored) {
  auto actor = start(setup());
  ASSERT_TRUE(events_reach(*b_, 1));
  const auto rid = move(actor, a_, Side::first, "b2");
  auto ack = answer(a_, rid);
  ASSERT_TRUE(ack && ack->has_ack()) << (ack ? ack->DebugString() : "no answer");
  EXPECT_EQ(ack->ack().match_id(), "m-test");
  ASSERT_TRUE(events_reach(*b_, 2));
  EXPECT_EQ(b_->events()[1].move_made().move(), "b2");
  EXPECT_EQ(store_.load_match("m-test")->events.size(), 2u);
  // The ack follows the event on the asker's connection (one hand-over).
  const auto got = a_->received();
  ASSERT_GE(got.size(), 2u);
  EXPECT_TRUE(got[got.size() - 2].has_event());
  EXPECT_TRUE(got.back().has_ack());
  EXPECT_EQ(actor->ply.load(), 1);
}

TEST_F(MatchActorTest, AClientsBadMoveIsRefusedAndChangesNothing) {
  auto actor = start(setup());
  ASSERT_TRUE(events_reach(*a_, 1));
  auto wrong_turn = answer(b_, move(actor, b_, Side::second, "a1"));
  ASSERT_TRUE(wrong_turn && wrong_turn->has_error());
  EXPECT_EQ(wrong_turn->error().code(), v1::ERROR_NOT_YOUR_TURN);
  EXPECT_EQ(wrong_turn->error().match_id(), "m-test");
  auto illegal = answer(a_, move(actor, a_, Side::first, "z9"));
  ASSERT_TRUE(illegal && illegal->has_error());
  EXPECT_EQ(illegal->error().code(), v1::ERROR_ILLEGAL_MOVE);
  v1::ClientMessage not_a_command;
  not_a_command.mutable_ping();
  auto unknown = answer(a_, command(actor, a_, Side::first, not_a_command));
  ASSERT_TRUE(unknown && unknown->has_error());
  EXPECT_EQ(unknown->error().code(), v1::ERROR_UNKNOWN_MESSAGE);
  // A good move after them is the first change: seq 2.
  ASSERT_TRUE(answer(a_, move(actor, a_, Side::first, "a1"))->has_ack());
  ASSERT_TRUE(events_reach(*b_, 2));
  EXPECT_EQ(b_->events()[1].seq(), 2u);
  EXPECT_EQ(store_.load_match("m-test")->events.size(), 2u);
}

TEST_F(MatchActorTest, TheFlagFallsOnTheActorsTimer) {
  auto actor = start(setup(60ms, 0ms));
  ASSERT_TRUE(events_reach(*b_, 1));
  // Nobody moves: the first player's flag falls and the match ends by itself.
  ASSERT_TRUE(events_reach(*b_, 2));
  const auto end = b_->events()[1];
  ASSERT_TRUE(end.has_ended()) << end.DebugString();
  // Nobody moved: aborted, and nobody's rating changes.
  EXPECT_EQ(end.ended().result(), v1::RESULT_ABORTED);
  EXPECT_EQ(end.ended().reason(), v1::END_REASON_TIMEOUT);
  EXPECT_EQ(end.clocks().first_ms(), 0);
  EXPECT_EQ(end.ended().ratings_size(), 0);
  ASSERT_TRUE(run_until([&] { return !ended().empty(); }));
  EXPECT_EQ(ended(), std::vector<std::string>{"m-test"});
  EXPECT_TRUE(actor->over.load());
  // Filed as the game's record.
  ASSERT_TRUE(run_until([&] { return store_.load_match("m-test")->result != 0; }));
  EXPECT_EQ(store_.load_match("m-test")->reason, v1::END_REASON_TIMEOUT);
  // Later commands are refused.
  auto late = answer(a_, move(actor, a_, Side::first, "a1"));
  ASSERT_TRUE(late && late->has_error());
  EXPECT_EQ(late->error().code(), v1::ERROR_MATCH_OVER);
}

TEST_F(MatchActorTest, AnAbsentPlayerForfeitsAfterTheGrace) {
  auto actor = start(setup());
  ASSERT_TRUE(events_reach(*a_, 1));
  actor->presence(Side::second, false);
  ASSERT_TRUE(events_reach(*a_, 3));
  const auto events = a_->events();
  EXPECT_TRUE(events[1].has_presence());
  EXPECT_FALSE(events[1].presence().connected());
  ASSERT_TRUE(events[2].has_ended());
  EXPECT_EQ(events[2].ended().result(), v1::RESULT_ABORTED);  // before any move
  EXPECT_EQ(events[2].ended().reason(), v1::END_REASON_ABANDONED);
}

TEST_F(MatchActorTest, APlayerBackInTimeCancelsTheGrace) {
  auto actor = start(setup());
  ASSERT_TRUE(events_reach(*a_, 1));
  actor->presence(Side::second, false);
  actor->presence(Side::second, true);
  ASSERT_TRUE(events_reach(*a_, 3));
  EXPECT_TRUE(a_->events()[2].presence().connected());
  // Well past the grace, the match still takes moves.
  const auto past_grace = std::chrono::steady_clock::now() + 4 * config_.reconnect_grace;
  run_until([&] { return std::chrono::steady_clock::now() > past_grace; });
  ASSERT_TRUE(answer(a_, move(actor, a_, Side::first, "b2"))->has_ack());
  for (const auto& e : a_->events())
    EXPECT_FALSE(e.has_ended()) << e.DebugString();
}

TEST_F(MatchActorTest, AFailedCommitPausesTheMatchAndTellsNobody) {
  auto actor = start(setup());
  ASSERT_TRUE(events_reach(*b_, 1));
  store_.fail_writes(true);
  auto refused = answer(a_, move(actor, a_, Side::first, "b2"));
  ASSERT_TRUE(refused && refused->has_error());
  EXPECT_EQ(refused->error().code(), v1::ERROR_INTERNAL);
  store_.fail_writes(false);
  // Paused: nothing more is taken or stored, and nobody heard of the move.
  auto paused = answer(b_, move(actor, b_, Side::second, "a1"));
  ASSERT_TRUE(paused && paused->has_error());
  EXPECT_EQ(paused->error().code(), v1::ERROR_INTERNAL);
  writer_.flush();
  EXPECT_EQ(b_->events().size(), 1u);
  EXPECT_EQ(a_->events().size(), 1u);
  EXPECT_EQ(store_.load_match("m-test")->events.size(), 1u);
}

// A cluster's match writes under its lease's generation; once another
// node took it over (a higher generation in the store), its next write is
// fenced: nothing of it is stored or told, the asker hears the match moved,
// and every follower is closed to come back where the match is now.
TEST_F(MatchActorTest, AFencedWriteLetsTheMatchGoAndClosesItsFollowers) {
  std::vector<std::string> moved;
  services_->match_moved = [&](const std::string& id) { moved.push_back(id); };
  MatchSetup s = setup();
  s.generation = 1;
  auto actor = start(s);
  ASSERT_TRUE(events_reach(*b_, 1));
  EXPECT_EQ(store_.load_match("m-test")->generation, 1);
  auto first = answer(a_, move(actor, a_, Side::first, "b2"));
  ASSERT_TRUE(first && first->has_ack());
  // Another node takes it over.
  const StoreOp take_over = store_op::TakeOver{"m-test", 2};
  ASSERT_TRUE(store_.write({&take_over, 1}));
  auto fenced = answer(b_, move(actor, b_, Side::second, "a1"));
  ASSERT_TRUE(fenced && fenced->has_error());
  EXPECT_EQ(fenced->error().code(), v1::ERROR_INTERNAL);
  EXPECT_NE(fenced->error().message().find("moved"), std::string::npos) << fenced->DebugString();
  ASSERT_TRUE(run_until([&] { return a_->closed() && b_->closed(); }));
  EXPECT_EQ(a_->closed(), CloseKind::going_away);
  EXPECT_TRUE(actor->moved);
  EXPECT_EQ(moved, std::vector<std::string>{"m-test"});
  // Nothing of the fenced move is stored, nor told; later commands are refused.
  writer_.flush();
  EXPECT_EQ(store_.load_match("m-test")->events.size(), 2u);
  EXPECT_EQ(a_->events().size(), 2u);
  auto later = answer(a_, move(actor, a_, Side::first, "c3"));
  ASSERT_TRUE(later && later->has_error());
  services_->match_moved = nullptr;
}

TEST_F(MatchActorTest, ARestoredMatchGoesOnFromItsLastStoredEvent) {
  {
    auto actor = start(setup());
    ASSERT_TRUE(events_reach(*b_, 1));
    ASSERT_TRUE(answer(a_, move(actor, a_, Side::first, "b2"))->has_ack());
    actor->shutdown();
  }
  writer_.flush();
  auto unfinished = store_.load_unfinished();
  ASSERT_EQ(unfinished.size(), 1u);
  auto again = std::make_shared<MatchActor>(services_, setup());
  ASSERT_TRUE(again->restore(unfinished[0]));
  EXPECT_EQ(again->ply.load(), 1);
  again->resume();
  auto c = std::make_shared<FakeConnection>();
  again->attach(c, Side::second, std::nullopt, 9);
  std::optional<v1::MatchState> state;
  ASSERT_TRUE(run_until([&] {
    for (const auto& m : c->received())
      if (m.has_match_state()) state = m.match_state();
    return state.has_value();
  }));
  EXPECT_EQ(state->last_seq(), 2u);
  ASSERT_EQ(state->moves_size(), 1);
  EXPECT_EQ(state->moves(0), "b2");
  EXPECT_EQ(state->to_move(), v1::SIDE_SECOND);
  ASSERT_TRUE(answer(c, move(again, c, Side::second, "a1"))->has_ack());
}

// A player coming back is told its match is live, and the match ends before
// its new connection is attached: the attach waits for the ending commit,
// then replays what was missed, the end included, and only then sends the
// state, which shows the result. (The soak's driver once took the replayed
// end as the last word and never looked at the state that followed.)
TEST_F(MatchActorTest, AnAttachDuringTheEndingCommitGetsTheEndThenTheFinalState) {
  auto actor = start(setup());
  ASSERT_TRUE(events_reach(*b_, 1));
  ASSERT_TRUE(answer(a_, move(actor, a_, Side::first, "a1"))->has_ack());
  ASSERT_TRUE(answer(b_, move(actor, b_, Side::second, "b1"))->has_ack());
  ASSERT_TRUE(answer(a_, move(actor, a_, Side::first, "a2"))->has_ack());
  ASSERT_TRUE(answer(b_, move(actor, b_, Side::second, "b2"))->has_ack());
  ASSERT_TRUE(events_reach(*b_, 5));
  // Both queued on the strand before either runs: the winning move is being
  // stored when the attach (with the cursor of the last event seen) comes.
  const auto win = move(actor, a_, Side::first, "a3");
  auto back = std::make_shared<FakeConnection>();
  actor->attach(back, Side::second, 5, 0);
  EXPECT_FALSE(actor->over.load());
  ASSERT_TRUE(run_until([&] {
    for (const auto& m : back->received())
      if (m.has_match_state()) return true;
    return false;
  }));
  ASSERT_TRUE(answer(a_, win)->has_ack());
  const auto got = back->received();
  ASSERT_EQ(got.size(), 3u);
  ASSERT_TRUE(got[0].has_event());
  EXPECT_EQ(got[0].event().seq(), 6u);
  EXPECT_EQ(got[0].event().move_made().move(), "a3");
  ASSERT_TRUE(got[1].has_event());
  EXPECT_EQ(got[1].event().seq(), 7u);
  ASSERT_TRUE(got[1].event().has_ended());
  EXPECT_EQ(got[1].event().ended().result(), v1::RESULT_FIRST_WINS);
  ASSERT_TRUE(got[2].has_match_state());
  const auto& state = got[2].match_state();
  EXPECT_EQ(state.match_id(), "m-test");
  EXPECT_EQ(state.last_seq(), 7u);
  EXPECT_EQ(state.result(), v1::RESULT_FIRST_WINS);
  ASSERT_EQ(state.moves_size(), 5);
  EXPECT_EQ(state.moves(4), "a3");
  EXPECT_TRUE(actor->over.load());
}

// The last spectator count a connection was told: its state's, or a later
// spectators event's.
unsigned spectators_told(const FakeConnection& c) {
  unsigned told = 0;
  for (const auto& m : c.received()) {
    if (m.has_match_state()) told = m.match_state().spectators();
    if (m.has_event() && m.event().has_spectators()) told = m.event().spectators().count();
  }
  return told;
}

TEST_F(MatchActorTest, SpectatorsAttachedTogetherAreAllToldTheWholeCount) {
  auto actor = start(setup());
  ASSERT_TRUE(events_reach(*b_, 1));
  // The move is being stored when both attaches come, so they are answered
  // together once it is published.
  const auto moved = move(actor, a_, Side::first, "a1");
  auto first = std::make_shared<FakeConnection>();
  auto second = std::make_shared<FakeConnection>();
  actor->attach(first, std::nullopt, std::nullopt, 0);
  actor->attach(second, std::nullopt, std::nullopt, 0);
  const auto has_state = [](const FakeConnection& c) {
    for (const auto& m : c.received())
      if (m.has_match_state()) return true;
    return false;
  };
  ASSERT_TRUE(run_until([&] { return has_state(*first) && has_state(*second); }));
  ASSERT_TRUE(answer(a_, moved)->has_ack());
  EXPECT_EQ(spectators_told(*first), 2u);
  EXPECT_EQ(spectators_told(*second), 2u);
  EXPECT_EQ(spectators_told(*a_), 2u);
  EXPECT_EQ(spectators_told(*b_), 2u);
  EXPECT_EQ(actor->spectators.load(), 2u);
}

TEST_F(MatchActorTest, ABotAnswersEveryMoveAndGrantsATakeback) {
  auto actor = start(setup(0ms, 0ms, /*second_is_bot=*/true));
  ASSERT_TRUE(events_reach(*a_, 1));
  ASSERT_TRUE(answer(a_, move(actor, a_, Side::first, "b2"))->has_ack());
  ASSERT_TRUE(events_reach(*a_, 3));  // the bot's reply
  const auto reply = a_->events()[2];
  ASSERT_TRUE(reply.has_move_made()) << reply.DebugString();
  EXPECT_EQ(reply.move_made().side(), v1::SIDE_SECOND);
  v1::ClientMessage takeback;
  takeback.mutable_request_takeback()->set_match_id("m-test");
  ASSERT_TRUE(answer(a_, command(actor, a_, Side::first, takeback))->has_ack());
  ASSERT_TRUE(run_until([&] {
    for (const auto& e : a_->events())
      if (e.has_takeback_done()) return true;
    return false;
  }));
}

}  // namespace
}  // namespace inarow::server
