#include "inarow/arena/tournament.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "inarow/arena/record.h"
#include "inarow/common/splitmix.h"

namespace inarow::arena {
namespace {

// The score of participant `who` in a finished game.
double score_of(const GameRecord& g, int who) {
  if (g.result == Outcome::draw) return 0.5;
  const bool first_won = g.result == Outcome::first_wins;
  return (who == g.first) == first_won ? 1.0 : 0.0;
}

void add_game(Trinomial& t, double score) {
  if (score > 0.75) {
    ++t.wins;
  } else if (score < 0.25) {
    ++t.losses;
  } else {
    ++t.draws;
  }
}

std::string fingerprint_of(const TournamentConfig& cfg, int games, const OpeningOptions& book) {
  std::ostringstream s;
  s << cfg.variant.name << '|' << int(cfg.format) << '|' << games << '|' << cfg.seed << '|'
    << book.count << ',' << book.plies << ',' << book.depth << '|' << cfg.time.per_move.count()
    << ',' << cfg.time.per_game.count() << ',' << cfg.time.increment.count();
  for (const auto& p : cfg.participants)
    s << '|' << p.name << '=' << p.spec;
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (char ch : s.str())
    h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001b3ULL;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, h);
  return buf;
}

// Results so far, updated one game at a time under the tournament's lock.
class Tally {
 public:
  Tally(const TournamentConfig& cfg, std::vector<std::pair<int, int>> pairings, std::int64_t total)
      : cfg_(cfg) {
    s_.total_games = total;
    for (auto [a, b] : pairings)
      s_.pairings.push_back(PairingStats{a, b, {}, {}, {}});
    for (const auto& p : cfg.participants) {
      ParticipantStats ps;
      ps.name = p.name;
      s_.participants.push_back(ps);
    }
  }

  void add(const GameRecord& g) {
    ++s_.done_games;
    ++s_.by_reason[int(g.reason)];
    auto& ps = s_.pairings[g.pairing];
    const double a_score = score_of(g, ps.a);
    add_game(ps.games, a_score);
    if (g.first == ps.a) add_game(ps.a_first, a_score);
    add_game(s_.first_mover, score_of(g, g.first));
    for (int who : {g.first, g.second})
      add_game(s_.participants[who].games, score_of(g, who));
    if (g.reason == Termination::timeout || g.reason == Termination::crash ||
        g.reason == Termination::illegal) {
      auto& loser = s_.participants[g.result == Outcome::first_wins ? g.second : g.first];
      if (g.reason == Termination::timeout) ++loser.timeouts;
      if (g.reason == Termination::crash) ++loser.crashes;
      if (g.reason == Termination::illegal) ++loser.illegal;
    }
    // A pair counts once both of its games are in.
    const auto key = std::make_pair(g.pairing, g.pair);
    if (auto it = pending_.find(key); it != pending_.end()) {
      ps.pairs.add(it->second, a_score);
      pending_.erase(it);
    } else {
      pending_[key] = a_score;
    }
    if (cfg_.sprt && s_.pairings.size() == 1) {
      s_.llr = sprt_llr(*cfg_.sprt, s_.pairings[0].pairs);
      s_.decision = sprt_decide(*cfg_.sprt, *s_.llr);
    }
  }
  const Standings& standings() const { return s_; }

 private:
  const TournamentConfig& cfg_;
  Standings s_;
  std::map<std::pair<int, int>, double> pending_;
};

}  // namespace

expected<TournamentResult, Error> run_tournament(
    const TournamentConfig& cfg,
    const std::function<void(const Standings&, const GameRecord&)>& on_game) {
  const int n = int(cfg.participants.size());
  if (n < 2)
    return unexpected(Error{ErrorCode::bad_syntax, 0, "a tournament needs two participants"});
  if (cfg.sprt && !(n == 2)) {
    return unexpected(Error{ErrorCode::bad_syntax, 0, "an SPRT needs exactly two participants"});
  }
  const auto pairings = make_pairings(cfg.format, n);
  const int games = std::max(2, cfg.games_per_pairing + cfg.games_per_pairing % 2);
  const int pairs = games / 2;
  OpeningOptions book_options = cfg.openings;
  book_options.seed = cfg.seed;
  book_options.count = std::max(1, std::min(book_options.count, pairs));
  TournamentResult result;
  result.fingerprint = fingerprint_of(cfg, games, book_options);

  // Resume: the games already in the record file are not played again.
  std::map<std::int64_t, GameRecord> done;
  if (!cfg.record_path.empty()) {
    std::ifstream in(cfg.record_path);
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
      ++line_no;
      if (line.empty()) continue;
      std::string fp;
      auto g = parse_record_line(line, &fp);
      if (!g) {
        return unexpected(
            Error{ErrorCode::bad_syntax, 0,
                  cfg.record_path + ":" + std::to_string(line_no) + ": " + g.error().message});
      }
      if (fp != result.fingerprint) {
        return unexpected(Error{ErrorCode::bad_syntax, 0,
                                cfg.record_path + ":" + std::to_string(line_no) +
                                    ": the record belongs to another tournament (fingerprint " +
                                    fp + ", this one " + result.fingerprint + ")"});
      }
      done[g->index] = std::move(g).value();
    }
  }

  // Every pairing plays the same openings; a pair's two games are adjacent.
  const auto schedule = make_schedule(pairings, games);

  Tally tally(cfg, pairings, std::int64_t(schedule.size()));
  for (auto& [idx, g] : done) {
    tally.add(g);
    result.games.push_back(g);
  }
  result.resumed_games = std::int64_t(done.size());

  std::vector<ScheduledGame> todo;
  for (const auto& s : schedule)
    if (!done.count(s.index)) todo.push_back(s);
  const auto book =
      todo.empty() ? std::vector<Opening>{} : make_openings(cfg.variant, book_options);

  std::ofstream record;
  if (!cfg.record_path.empty() && !todo.empty()) {
    record.open(cfg.record_path, std::ios::app);
    if (!record) {
      return unexpected(Error{ErrorCode::cannot_write, 0, "cannot write " + cfg.record_path});
    }
  }

  std::mutex mu;
  std::size_t next = 0;
  std::optional<Error> failure;
  auto worker = [&] {
    for (;;) {
      ScheduledGame job;
      {
        std::lock_guard lock(mu);
        if (next >= todo.size() || failure ||
            tally.standings().decision != SprtDecision::continue_testing ||
            (cfg.stop && cfg.stop->load()))
          return;
        job = todo[next++];
      }
      // Each game owns fresh players seeded by its index: results do not
      // depend on which worker plays which game.
      auto make = [&](int who, int side) {
        const std::uint64_t seed =
            splitmix64(cfg.seed ^ splitmix64(std::uint64_t(job.index) * 2 + side));
        return cfg.player_factory ? cfg.player_factory(who, seed)
                                  : make_player(cfg.variant, cfg.participants[who], seed, cfg.stop);
      };
      auto first = make(job.first, 0);
      auto second = make(job.second, 1);
      if (!first || !second) {
        std::lock_guard lock(mu);
        failure = !first ? first.error() : second.error();
        return;
      }
      GameRecord g = play_game(cfg.variant, book[job.pair % book.size()], **first, **second,
                               cfg.time, cfg.stop);
      if (g.reason == Termination::stopped) return;
      g.index = job.index;
      g.pairing = job.pairing;
      g.pair = job.pair;
      g.first = job.first;
      g.second = job.second;
      std::lock_guard lock(mu);
      if (record.is_open()) {
        record << record_line(g, result.fingerprint) << '\n';
        record.flush();
      }
      tally.add(g);
      result.games.push_back(g);
      if (on_game) on_game(tally.standings(), g);
    }
  };
  std::vector<std::thread> threads;
  const int workers = std::max(1, std::min<int>(cfg.concurrency, int(todo.size())));
  for (int i = 0; i < workers; ++i)
    threads.emplace_back(worker);
  for (auto& t : threads)
    t.join();
  if (failure) return unexpected(*failure);

  result.standings = tally.standings();
  result.stopped = cfg.stop && cfg.stop->load();
  std::vector<PairResult> pr;
  for (const auto& p : result.standings.pairings)
    pr.push_back({p.a, p.b, p.games});
  result.ratings = joint_ratings(n, pr);
  return result;
}

}  // namespace inarow::arena
