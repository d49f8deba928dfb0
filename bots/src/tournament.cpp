#include "inarow/bots/tournament.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "inarow/common/splitmix.h"
#include "json_text.h"

namespace inarow::bots {
namespace {

using std::chrono::milliseconds;

Termination reason_of(MoveStatus s) {
  switch (s) {
    case MoveStatus::timeout:
      return Termination::timeout;
    case MoveStatus::illegal:
      return Termination::illegal;
    default:
      return Termination::crash;
  }
}

std::string_view result_text(Outcome o) {
  switch (o) {
    case Outcome::first_wins:
      return "1-0";
    case Outcome::second_wins:
      return "0-1";
    case Outcome::draw:
      return "1/2-1/2";
    default:
      return "*";
  }
}

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

std::string pct(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * x);
  return buf;
}

std::string fixed(double x, int decimals = 1) {
  if (!std::isfinite(x)) return x > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

}  // namespace

std::string_view to_string(Termination t) {
  switch (t) {
    case Termination::line:
      return "line";
    case Termination::full_board:
      return "full_board";
    case Termination::timeout:
      return "timeout";
    case Termination::crash:
      return "crash";
    case Termination::illegal:
      return "illegal";
    case Termination::stopped:
      return "stopped";
  }
  return "?";
}

GameRecord play_game(const Variant& v, const Opening& opening, Player& first, Player& second,
                     const TimeControl& tc, const std::atomic<bool>* stop) {
  const auto started = ArenaClock::now();
  GameRecord g;
  g.variant = v.name;
  g.first_name = first.name();
  g.second_name = second.name();
  Game game(v);
  for (Cell c : opening.moves)
    if (!game.play(c)) break;  // a book from another variant: play what fits
  g.opening = game.notation();
  std::array<Player*, 2> players{&first, &second};
  std::array<milliseconds, 2> clock{tc.per_game, tc.per_game};
  bool decided = false;
  auto lose = [&](int side, Termination why, std::string detail) {
    g.result = side == 0 ? Outcome::second_wins : Outcome::first_wins;
    g.reason = why;
    g.detail = players[side]->name() + ": " + std::move(detail);
    decided = true;
  };
  for (int s = 0; s < 2 && !decided; ++s) {
    auto st = players[s]->start(game, tc);
    if (st.status != MoveStatus::ok) lose(s, reason_of(st.status), st.detail);
  }
  while (!decided && !game.over()) {
    if (stop && stop->load(std::memory_order_relaxed)) {
      g.reason = Termination::stopped;
      decided = true;
      break;
    }
    const int s = index(game.to_move());
    milliseconds allotted{0}, limit{0};
    if (tc.per_move.count() > 0) allotted = limit = tc.per_move;
    if (tc.per_game.count() > 0) {
      // Spend a share of what is left (about a twelfth) plus the increment.
      const milliseconds share = std::min(clock[s], clock[s] / 12 + tc.increment);
      allotted = allotted.count() > 0 ? std::min(allotted, share) : share;
      limit = limit.count() > 0 ? std::min(limit, clock[s]) : clock[s];
    }
    allotted = std::max(allotted, milliseconds(limit.count() > 0 ? 1 : 0));
    const auto t0 = ArenaClock::now();
    const auto deadline = t0 + (limit.count() > 0 ? limit + tc.margin : tc.hang);
    PlayerMove m;
    try {
      m = players[s]->move(game, allotted, clock[s], deadline);
    } catch (const std::exception& e) {
      m = {kNoCell, MoveStatus::crash, std::string("exception: ") + e.what()};
    } catch (...) {
      m = {kNoCell, MoveStatus::crash, "unknown exception"};
    }
    const auto spent = std::chrono::duration_cast<milliseconds>(ArenaClock::now() - t0);
    if (m.status != MoveStatus::ok) {
      lose(s, reason_of(m.status), m.detail);
      break;
    }
    if (limit.count() > 0 && spent > limit + tc.margin) {
      lose(s, Termination::timeout,
           "took " + std::to_string(spent.count()) + " ms of " + std::to_string(limit.count()));
      break;
    }
    if (tc.per_game.count() > 0) clock[s] = clock[s] - spent + tc.increment;
    if (!game.is_legal(m.move)) {
      lose(s, Termination::illegal, "illegal move (cell " + std::to_string(m.move) + ")");
      break;
    }
    (void)game.play(m.move);
  }
  if (!decided) {
    g.result = game.outcome();
    g.reason = g.result == Outcome::draw ? Termination::full_board : Termination::line;
  }
  for (Player* p : players)
    p->finish(game);
  g.moves = game.notation();
  g.plies = game.ply();
  g.millis = std::chrono::duration_cast<milliseconds>(ArenaClock::now() - started).count();
  return g;
}

expected<TournamentResult, Error> run_tournament(
    const TournamentConfig& cfg,
    const std::function<void(const Standings&, const GameRecord&)>& on_game) {
  const int n = int(cfg.participants.size());
  if (n < 2)
    return unexpected(Error{ErrorCode::bad_syntax, 0, "a tournament needs two participants"});
  if (cfg.sprt && !(n == 2)) {
    return unexpected(Error{ErrorCode::bad_syntax, 0, "an SPRT needs exactly two participants"});
  }
  std::vector<std::pair<int, int>> pairings;
  if (cfg.format == Format::gauntlet) {
    for (int b = 1; b < n; ++b)
      pairings.emplace_back(0, b);
  } else {
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b)
        pairings.emplace_back(a, b);
  }
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
  struct Scheduled {
    std::int64_t index;
    int pairing, pair, first, second;
  };
  std::vector<Scheduled> schedule;
  for (int pair = 0; pair < pairs; ++pair)
    for (int p = 0; p < int(pairings.size()); ++p)
      for (int swap = 0; swap < 2; ++swap) {
        const auto [a, b] = pairings[p];
        const std::int64_t idx = std::int64_t(p) * games + pair * 2 + swap;
        schedule.push_back({idx, p, pair, swap ? b : a, swap ? a : b});
      }

  Tally tally(cfg, pairings, std::int64_t(schedule.size()));
  for (auto& [idx, g] : done) {
    tally.add(g);
    result.games.push_back(g);
  }
  result.resumed_games = std::int64_t(done.size());

  std::vector<Scheduled> todo;
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
      Scheduled job;
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

std::string progress_line(const TournamentConfig& cfg, const Standings& s) {
  std::ostringstream out;
  out << '[' << s.done_games << '/' << s.total_games << ']';
  if (s.pairings.size() == 1) {
    const auto& p = s.pairings[0];
    const auto e = estimate(p.pairs);
    out << ' ' << s.participants[p.a].name << " vs " << s.participants[p.b].name << ": +"
        << p.games.wins << " =" << p.games.draws << " -" << p.games.losses << "  Elo "
        << fixed(e.elo) << " +- " << fixed(e.margin);
    if (s.llr && cfg.sprt) {
      out << "  LLR " << fixed(*s.llr, 2) << " [" << fixed(cfg.sprt->lower_bound(), 2) << ", "
          << fixed(cfg.sprt->upper_bound(), 2) << ']';
    }
  } else {
    // The leader by score so far.
    int best = 0;
    for (int i = 1; i < int(s.participants.size()); ++i)
      if (s.participants[i].games.score() > s.participants[best].games.score()) best = i;
    out << " leader " << s.participants[best].name << ' '
        << pct(s.participants[best].games.score());
  }
  const auto fails = s.by_reason[int(Termination::timeout)] + s.by_reason[int(Termination::crash)] +
                     s.by_reason[int(Termination::illegal)];
  if (fails) out << "  failures " << fails;
  return out.str();
}

std::string format_report(const TournamentConfig& cfg, const TournamentResult& r) {
  const auto& s = r.standings;
  std::ostringstream out;
  out << "Tournament " << cfg.variant.name << ", "
      << (cfg.format == Format::gauntlet ? "gauntlet" : "round robin") << ", " << s.done_games
      << " of " << s.total_games << " games";
  if (r.resumed_games) out << " (" << r.resumed_games << " resumed)";
  if (r.stopped) out << ", stopped";
  out << "\n\n";
  // Ranking by joint rating.
  std::vector<int> order(s.participants.size());
  for (int i = 0; i < int(order.size()); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return r.ratings[a].elo > r.ratings[b].elo; });
  char line[256];
  std::snprintf(line, sizeof line, "%-4s %-24s %8s %7s %6s %7s %5s %5s %5s %5s\n", "Rank", "Name",
                "Elo", "+-", "Games", "Score", "W", "D", "L", "Fail");
  out << line;
  for (int rank = 0; rank < int(order.size()); ++rank) {
    const auto& p = s.participants[order[rank]];
    const auto& rt = r.ratings[order[rank]];
    std::snprintf(line, sizeof line, "%-4d %-24s %8s %7s %6lld %7s %5lld %5lld %5lld %5lld\n",
                  rank + 1, p.name.substr(0, 24).c_str(), fixed(rt.elo).c_str(),
                  fixed(rt.margin).c_str(), static_cast<long long>(p.games.games()),
                  pct(p.games.score()).c_str(), static_cast<long long>(p.games.wins),
                  static_cast<long long>(p.games.draws), static_cast<long long>(p.games.losses),
                  static_cast<long long>(p.timeouts + p.crashes + p.illegal));
    out << line;
  }
  out << "\nPairings (Elo and 95% margin from the pentanomial model over game pairs)\n";
  for (const auto& p : s.pairings) {
    const auto e = estimate(p.pairs);
    out << "  " << cfg.participants[p.a].name << " vs " << cfg.participants[p.b].name << ": +"
        << p.games.wins << " =" << p.games.draws << " -" << p.games.losses << "  score "
        << pct(p.games.score()) << "  Elo " << fixed(e.elo) << " +- " << fixed(e.margin) << "  LOS "
        << pct(e.los) << "  pairs [" << p.pairs.counts[0] << ' ' << p.pairs.counts[1] << ' '
        << p.pairs.counts[2] << ' ' << p.pairs.counts[3] << ' ' << p.pairs.counts[4] << "]\n";
  }
  out << "First mover: +" << s.first_mover.wins << " =" << s.first_mover.draws << " -"
      << s.first_mover.losses << " (" << pct(s.first_mover.score()) << ")\n";
  out << "Terminations:";
  for (int t = 0; t < kTerminations - 1; ++t)
    out << ' ' << to_string(Termination(t)) << ' ' << s.by_reason[t];
  out << '\n';
  for (const auto& p : s.participants)
    if (p.timeouts + p.crashes + p.illegal)
      out << "  " << p.name << " lost " << p.timeouts << " on time, " << p.crashes
          << " by crashing, " << p.illegal << " by illegal moves\n";
  if (cfg.sprt) {
    out << "SPRT elo0=" << cfg.sprt->elo0 << " elo1=" << cfg.sprt->elo1
        << " alpha=" << cfg.sprt->alpha << " beta=" << cfg.sprt->beta << ": LLR "
        << fixed(s.llr.value_or(0), 2) << " [" << fixed(cfg.sprt->lower_bound(), 2) << ", "
        << fixed(cfg.sprt->upper_bound(), 2) << "] " << to_string(s.decision) << '\n';
  }
  return out.str();
}

std::string to_json(const TournamentConfig& cfg, const TournamentResult& r) {
  const auto& s = r.standings;
  std::ostringstream out;
  out << "{\n  \"variant\": " << json::quote(cfg.variant.name) << ",\n  \"format\": "
      << json::quote(cfg.format == Format::gauntlet ? "gauntlet" : "round_robin")
      << ",\n  \"seed\": " << cfg.seed << ",\n  \"games\": " << s.done_games
      << ",\n  \"scheduled\": " << s.total_games << ",\n  \"resumed\": " << r.resumed_games
      << ",\n  \"stopped\": " << (r.stopped ? "true" : "false") << ",\n  \"participants\": [";
  for (std::size_t i = 0; i < s.participants.size(); ++i) {
    const auto& p = s.participants[i];
    out << (i ? "," : "") << "\n    {\"name\": " << json::quote(p.name)
        << ", \"spec\": " << json::quote(cfg.participants[i].spec)
        << ", \"elo\": " << json::number(r.ratings[i].elo)
        << ", \"margin\": " << json::number(r.ratings[i].margin) << ", \"wins\": " << p.games.wins
        << ", \"draws\": " << p.games.draws << ", \"losses\": " << p.games.losses
        << ", \"score\": " << json::number(p.games.score(), 4) << ", \"timeouts\": " << p.timeouts
        << ", \"crashes\": " << p.crashes << ", \"illegal\": " << p.illegal << "}";
  }
  out << "\n  ],\n  \"pairings\": [";
  for (std::size_t i = 0; i < s.pairings.size(); ++i) {
    const auto& p = s.pairings[i];
    const auto e = estimate(p.pairs);
    out << (i ? "," : "") << "\n    {\"a\": " << json::quote(cfg.participants[p.a].name)
        << ", \"b\": " << json::quote(cfg.participants[p.b].name) << ", \"wins\": " << p.games.wins
        << ", \"draws\": " << p.games.draws << ", \"losses\": " << p.games.losses
        << ", \"pentanomial\": [" << p.pairs.counts[0] << ", " << p.pairs.counts[1] << ", "
        << p.pairs.counts[2] << ", " << p.pairs.counts[3] << ", " << p.pairs.counts[4]
        << "], \"elo\": " << json::number(e.elo) << ", \"margin\": " << json::number(e.margin)
        << ", \"los\": " << json::number(e.los, 4) << "}";
  }
  out << "\n  ],\n  \"first_mover\": {\"wins\": " << s.first_mover.wins
      << ", \"draws\": " << s.first_mover.draws << ", \"losses\": " << s.first_mover.losses
      << "},\n  \"terminations\": {";
  for (int t = 0; t < kTerminations - 1; ++t)
    out << (t ? ", " : "") << json::quote(to_string(Termination(t))) << ": " << s.by_reason[t];
  out << "}";
  if (cfg.sprt) {
    out << ",\n  \"sprt\": {\"elo0\": " << json::number(cfg.sprt->elo0)
        << ", \"elo1\": " << json::number(cfg.sprt->elo1)
        << ", \"alpha\": " << json::number(cfg.sprt->alpha, 4)
        << ", \"beta\": " << json::number(cfg.sprt->beta, 4)
        << ", \"llr\": " << json::number(s.llr.value_or(0), 3)
        << ", \"lower\": " << json::number(cfg.sprt->lower_bound(), 3)
        << ", \"upper\": " << json::number(cfg.sprt->upper_bound(), 3)
        << ", \"decision\": " << json::quote(to_string(s.decision)) << "}";
  }
  out << "\n}\n";
  return out.str();
}

std::string record_line(const GameRecord& g, const std::string& fingerprint) {
  std::ostringstream out;
  out << "{\"tournament\":" << json::quote(fingerprint) << ",\"game\":" << g.index
      << ",\"pairing\":" << g.pairing << ",\"pair\":" << g.pair << ",\"first\":" << g.first
      << ",\"second\":" << g.second << ",\"first_name\":" << json::quote(g.first_name)
      << ",\"second_name\":" << json::quote(g.second_name)
      << ",\"variant\":" << json::quote(g.variant) << ",\"opening\":" << json::quote(g.opening)
      << ",\"moves\":" << json::quote(g.moves)
      << ",\"result\":" << json::quote(result_text(g.result))
      << ",\"reason\":" << json::quote(to_string(g.reason)) << ",\"plies\":" << g.plies
      << ",\"ms\":" << g.millis;
  if (!g.detail.empty()) out << ",\"detail\":" << json::quote(g.detail);
  out << '}';
  return out.str();
}

expected<GameRecord, Error> parse_record_line(std::string_view line, std::string* fingerprint) {
  auto bad = [](std::string what) {
    return unexpected(Error{ErrorCode::bad_syntax, 0, std::move(what)});
  };
  const auto obj = json::parse_flat(line);
  if (!obj) return bad("not a record line");
  auto get = [&](const char* key) -> const std::string* {
    auto it = obj->find(key);
    return it == obj->end() ? nullptr : &it->second;
  };
  for (const char* key : {"tournament", "game", "pairing", "pair", "first", "second", "result",
                          "reason", "moves", "opening", "variant"})
    if (!get(key)) return bad(std::string("record line lacks \"") + key + "\"");
  GameRecord g;
  try {
    g.index = std::stoll(*get("game"));
    g.pairing = std::stoi(*get("pairing"));
    g.pair = std::stoi(*get("pair"));
    g.first = std::stoi(*get("first"));
    g.second = std::stoi(*get("second"));
    if (auto p = get("plies")) g.plies = std::stoi(*p);
    if (auto p = get("ms")) g.millis = std::stoll(*p);
  } catch (const std::exception&) {
    return bad("a number in the record line does not parse");
  }
  if (auto p = get("first_name")) g.first_name = *p;
  if (auto p = get("second_name")) g.second_name = *p;
  if (auto p = get("detail")) g.detail = *p;
  g.variant = *get("variant");
  g.opening = *get("opening");
  g.moves = *get("moves");
  const auto& res = *get("result");
  if (res == "1-0") {
    g.result = Outcome::first_wins;
  } else if (res == "0-1") {
    g.result = Outcome::second_wins;
  } else if (res == "1/2-1/2") {
    g.result = Outcome::draw;
  } else {
    return bad("unknown result '" + res + "'");
  }
  const auto& reason = *get("reason");
  bool found = false;
  for (int t = 0; t < kTerminations; ++t)
    if (reason == to_string(Termination(t))) {
      g.reason = Termination(t);
      found = true;
    }
  if (!found) return bad("unknown reason '" + reason + "'");
  if (fingerprint) *fingerprint = *get("tournament");
  return g;
}

}  // namespace inarow::bots
