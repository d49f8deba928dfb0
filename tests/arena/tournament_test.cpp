#include "inarow/arena/tournament.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <thread>

#include "inarow/arena/record.h"
#include "inarow/arena/report.h"
#include "inarow/testing/temp_dir.h"

namespace inarow::arena {
namespace {

std::vector<Participant> participants(std::initializer_list<const char*> specs) {
  std::vector<Participant> out;
  for (const char* s : specs) {
    auto p = Participant::parse(s);
    EXPECT_TRUE(p) << s;
    out.push_back(*p);
  }
  return out;
}

TournamentConfig small_connect4(std::initializer_list<const char*> specs, int games) {
  TournamentConfig cfg;
  cfg.variant = Variant::connect4();
  cfg.participants = participants(specs);
  cfg.games_per_pairing = games;
  cfg.concurrency = 2;
  cfg.seed = 11;
  cfg.openings = {.count = 16, .plies = 4, .depth = 2, .seed = 0};
  return cfg;
}

std::map<std::int64_t, std::string> moves_by_game(const TournamentResult& r) {
  std::map<std::int64_t, std::string> out;
  for (const auto& g : r.games)
    out[g.index] = g.moves + " " + std::string(to_string(g.reason));
  return out;
}

TEST(Tournament, ParticipantSpecs) {
  auto p = Participant::parse("strong:depth=4,noise=0");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->name, "strong");
  EXPECT_EQ(p->bot.level.depth, 4);
  auto e = Participant::parse("pbrain:/usr/bin/brain --k 4");
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->external);
  EXPECT_EQ(e->name, "brain");
  EXPECT_EQ(e->command, "/usr/bin/brain --k 4");
  EXPECT_FALSE(Participant::parse("nosuchlevel"));
}

// calibrate --levels: a comma separates levels, and also a level's options.
TEST(Tournament, ParticipantListsSplitBetweenParticipantsNotTheirOptions) {
  using List = std::vector<std::string>;
  EXPECT_EQ(split_participants("beginner,easy,master"), (List{"beginner", "easy", "master"}));
  EXPECT_EQ(split_participants("base:medium,weights=w.txt,hard,nodes=5,x:expert"),
            (List{"base:medium,weights=w.txt", "hard,nodes=5", "x:expert"}));
  EXPECT_EQ(split_participants("depth=4,noise=0,easy"), (List{"depth=4,noise=0", "easy"}));
  EXPECT_EQ(split_participants("pbrain:/usr/bin/brain --k 4,hard"),
            (List{"pbrain:/usr/bin/brain --k 4", "hard"}));
  EXPECT_EQ(split_participants(",easy,,hard,"), (List{"easy", "hard"}));
  EXPECT_EQ(split_participants(""), List{});
  // Each item is a participant as -e takes it.
  for (const auto& item : split_participants("base:medium,nodes=500,noise=0,hard")) {
    auto p = Participant::parse(item);
    EXPECT_TRUE(p) << item;
  }
}

TEST(Tournament, SeededTournamentIsReproducible) {
  // Randomised bots (easy has noise and blunders), two workers: the same seed
  // gives the same games whatever the scheduling.
  auto cfg = small_connect4({"easy", "beginner", "depth=2"}, 4);
  const auto a = run_tournament(cfg);
  const auto b = run_tournament(cfg);
  ASSERT_TRUE(a);
  ASSERT_TRUE(b);
  EXPECT_EQ(a->standings.done_games, 12);
  EXPECT_EQ(moves_by_game(*a), moves_by_game(*b));
  cfg.seed = 12;
  const auto c = run_tournament(cfg);
  ASSERT_TRUE(c);
  EXPECT_NE(moves_by_game(*a), moves_by_game(*c));
}

TEST(Tournament, PairsShareOpeningsWithColoursSwapped) {
  auto cfg = small_connect4({"depth=1", "depth=2", "depth=3"}, 4);
  const auto r = run_tournament(cfg);
  ASSERT_TRUE(r);
  std::map<int, std::set<std::string>> openings_by_pair;
  std::map<std::pair<int, int>, std::vector<const GameRecord*>> games;
  for (const auto& g : r->games) {
    openings_by_pair[g.pair].insert(g.opening);
    games[{g.pairing, g.pair}].push_back(&g);
  }
  for (const auto& [pair, openings] : openings_by_pair)
    EXPECT_EQ(openings.size(), 1u) << pair;
  for (const auto& [key, two] : games) {
    ASSERT_EQ(two.size(), 2u);
    EXPECT_EQ(two[0]->first, two[1]->second);
    EXPECT_EQ(two[0]->opening, two[1]->opening);
  }
  for (const auto& p : r->standings.pairings)
    EXPECT_EQ(p.pairs.pairs(), 2);
}

TEST(Tournament, BadWeightsLoseClearly) {
  // Weights that prize lone stones over threats against the defaults.
  const inarow::testing::TempDir dir;
  const auto path = dir.write("bad_weights.txt", "w1 = 40\nw2 = 6\nw3 = 1\n").string();
  auto cfg = small_connect4({}, 40);
  cfg.participants = participants({"default:depth=3"});
  auto bad = Participant::parse("bad:depth=3,weights=" + path);
  ASSERT_TRUE(bad);
  cfg.participants.push_back(*bad);
  const auto r = run_tournament(cfg);
  ASSERT_TRUE(r);
  const auto& p = r->standings.pairings[0];
  EXPECT_EQ(p.games.games(), 40);
  EXPECT_GT(p.games.score(), 0.7) << "+" << p.games.wins << " =" << p.games.draws << " -"
                                  << p.games.losses;
  const auto e = estimate(p.pairs);
  EXPECT_GT(e.elo, 0);
  EXPECT_GT(e.los, 0.99);
}

// Players that fail in each way the arena must survive.
class Misbehaving final : public Player {
 public:
  enum Kind { throws, slow, illegal };
  explicit Misbehaving(Kind kind) : kind_(kind) {}
  std::string name() const override { return "bad"; }
  PlayerMove move(const Game& game, std::chrono::milliseconds, std::chrono::milliseconds,
                  Clock::time_point deadline) override {
    if (kind_ == throws) throw std::runtime_error("boom");
    // Late by construction, past the deadline and any margin the tests set
    // (sleep_until never wakes early), not by racing a fixed sleep against it.
    if (kind_ == slow) std::this_thread::sleep_until(deadline + std::chrono::milliseconds(50));
    if (kind_ == illegal)
      return {game.variant().cell(0, game.variant().height - 1) + 100, MoveStatus::ok, ""};
    return {game.legal_moves().front(), MoveStatus::ok, ""};
  }

 private:
  Kind kind_;
};

TEST(Tournament, CrashHangAndIllegalMovesLoseAndTheTournamentGoesOn) {
  for (auto kind : {Misbehaving::throws, Misbehaving::slow, Misbehaving::illegal}) {
    auto cfg = small_connect4({"depth=1", "bad:depth=1"}, 4);
    cfg.time.per_move = std::chrono::milliseconds(40);
    cfg.time.margin = std::chrono::milliseconds(20);
    cfg.player_factory = [&](int who,
                             std::uint64_t seed) -> expected<std::unique_ptr<Player>, Error> {
      if (who == 1) return std::unique_ptr<Player>(std::make_unique<Misbehaving>(kind));
      return make_player(cfg.variant, cfg.participants[0], seed);
    };
    const auto r = run_tournament(cfg);
    ASSERT_TRUE(r);
    const auto& s = r->standings;
    EXPECT_EQ(s.done_games, 4);
    EXPECT_EQ(s.pairings[0].games.wins, 4);
    const auto& bad = s.participants[1];
    const auto expected_reason = kind == Misbehaving::throws ? Termination::crash
                                 : kind == Misbehaving::slow ? Termination::timeout
                                                             : Termination::illegal;
    EXPECT_EQ(s.by_reason[int(expected_reason)], 4);
    EXPECT_EQ(bad.crashes + bad.timeouts + bad.illegal, 4);
    for (const auto& g : r->games)
      EXPECT_FALSE(g.detail.empty());
  }
}

TEST(Tournament, PerGameClockIsEnforced) {
  auto cfg = small_connect4({"depth=1", "bad:depth=1"}, 2);
  cfg.time.per_game = std::chrono::milliseconds(300);
  cfg.time.margin = std::chrono::milliseconds(10);
  cfg.player_factory = [&](int who,
                           std::uint64_t seed) -> expected<std::unique_ptr<Player>, Error> {
    if (who == 1) return std::unique_ptr<Player>(std::make_unique<Misbehaving>(Misbehaving::slow));
    return make_player(cfg.variant, cfg.participants[0], seed);
  };
  const auto r = run_tournament(cfg);
  ASSERT_TRUE(r);
  // 120 ms a move against a 300 ms clock: the slow side flags on its third move
  // unless depth=1 wins first; either way it never wins.
  EXPECT_EQ(r->standings.pairings[0].games.wins, 2);
}

TEST(Tournament, StoppedTournamentResumesFromItsRecord) {
  const inarow::testing::TempDir dir;
  const auto path = (dir.path() / "resume.jsonl").string();
  auto cfg = small_connect4({"easy", "depth=2"}, 8);
  cfg.record_path = path;
  std::atomic<bool> stop{false};
  cfg.stop = &stop;
  const auto part = run_tournament(cfg, [&](const Standings& s, const GameRecord&) {
    if (s.done_games >= 3) stop = true;
  });
  ASSERT_TRUE(part);
  EXPECT_TRUE(part->stopped);
  EXPECT_LT(part->standings.done_games, 8);
  stop = false;
  const auto rest = run_tournament(cfg);
  ASSERT_TRUE(rest);
  EXPECT_EQ(rest->resumed_games, part->standings.done_games);
  EXPECT_EQ(rest->standings.done_games, 8);
  // The same games as a tournament that was never stopped.
  auto whole_cfg = cfg;
  whole_cfg.record_path.clear();
  const auto whole = run_tournament(whole_cfg);
  ASSERT_TRUE(whole);
  EXPECT_EQ(moves_by_game(*rest), moves_by_game(*whole));
  // Another tournament refuses this record.
  auto other = cfg;
  other.seed = 99;
  EXPECT_FALSE(run_tournament(other));
}

TEST(Tournament, SprtStopsEarlyWithAVerdict) {
  auto cfg = small_connect4({"depth=4", "beginner"}, 400);
  cfg.sprt = SprtConfig{0, 100, 0.05, 0.05};
  const auto r = run_tournament(cfg);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->standings.decision, SprtDecision::accept_h1);
  EXPECT_LT(r->standings.done_games, 100);
  ASSERT_TRUE(r->standings.llr);
  EXPECT_GE(*r->standings.llr, cfg.sprt->upper_bound());
  EXPECT_NE(format_report(cfg, *r).find("H1 accepted"), std::string::npos);
  EXPECT_NE(to_json(cfg, *r).find("\"decision\": \"H1 accepted\""), std::string::npos);
}

TEST(Tournament, GauntletPlaysTheFirstAgainstTheRest) {
  auto cfg = small_connect4({"depth=2", "depth=1", "beginner", "random"}, 2);
  cfg.format = Format::gauntlet;
  const auto r = run_tournament(cfg);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->standings.pairings.size(), 3u);
  for (const auto& p : r->standings.pairings)
    EXPECT_EQ(p.a, 0);
  EXPECT_EQ(r->ratings.size(), 4u);
  EXPECT_NE(format_report(cfg, *r).find("Terminations"), std::string::npos);
}

TEST(Tournament, RecordLinesRoundTrip) {
  GameRecord g;
  g.index = 17;
  g.pairing = 2;
  g.pair = 3;
  g.first = 1;
  g.second = 0;
  g.first_name = "a \"quoted\" name";
  g.second_name = "b";
  g.variant = "connect4";
  g.opening = "4453";
  g.moves = "445312";
  g.result = Outcome::second_wins;
  g.reason = Termination::timeout;
  g.detail = "took 300 ms\tof 200";
  g.plies = 6;
  g.millis = 99;
  std::string fp;
  const auto back = parse_record_line(record_line(g, "abc"), &fp);
  ASSERT_TRUE(back);
  EXPECT_EQ(fp, "abc");
  EXPECT_EQ(back->index, 17);
  EXPECT_EQ(back->first_name, g.first_name);
  EXPECT_EQ(back->moves, g.moves);
  EXPECT_EQ(back->result, g.result);
  EXPECT_EQ(back->reason, g.reason);
  EXPECT_EQ(back->detail, g.detail);
  EXPECT_FALSE(parse_record_line("{\"game\":1}", nullptr));
  EXPECT_FALSE(parse_record_line("not json", nullptr));
}

}  // namespace
}  // namespace inarow::arena
