// Bot-vs-bot tournaments: round robin or gauntlet, game pairs over a shared
// opening book with colours swapped, games run concurrently (one game per
// worker, each game owning its players), time limits enforced, a participant
// that crashes, hangs or plays an illegal move loses that game and the
// tournament goes on. Every finished game is appended to a record file (one
// JSON object a line) from which a stopped tournament resumes.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "inarow/bots/openings.h"
#include "inarow/bots/players.h"
#include "inarow/bots/stats.h"

namespace inarow::bots {

// Why a game ended.
enum class Termination : std::uint8_t { line, full_board, timeout, crash, illegal, stopped };
inline constexpr int kTerminations = 6;
std::string_view to_string(Termination t);

struct GameRecord {
  std::int64_t index = 0;  // position in the tournament's schedule
  int pairing = 0;         // index into the pairing list
  int pair = 0;            // opening pair within the pairing
  int first = 0;           // participant playing first
  int second = 1;
  std::string first_name, second_name;
  std::string variant;
  std::string opening;  // notation of the opening plies
  std::string moves;    // every move, the opening included
  Outcome result = Outcome::draw;
  Termination reason = Termination::full_board;
  std::string detail;  // for timeouts, crashes and illegal moves: what happened
  int plies = 0;
  std::int64_t millis = 0;
};

// Play one game from `opening` to the end. Set `stop` to abandon it (reason
// stopped). Time is measured here: a move past its deadline (plus the margin)
// loses on time whatever the player says.
GameRecord play_game(const Variant& v, const Opening& opening, Player& first, Player& second,
                     const TimeControl& tc, const std::atomic<bool>* stop = nullptr);

enum class Format : std::uint8_t { round_robin, gauntlet };

struct TournamentConfig {
  Variant variant = Variant::tictactoe();
  std::vector<Participant> participants;
  Format format = Format::round_robin;  // gauntlet: participant 0 against each other one
  int games_per_pairing = 2;            // rounded up to whole pairs
  int concurrency = 1;
  std::uint64_t seed = 1;   // openings and bot randomness
  OpeningOptions openings;  // its seed is replaced by `seed`
  TimeControl time;
  std::optional<SprtConfig> sprt;  // only with two participants
  std::string record_path;         // empty: no record, no resume
  const std::atomic<bool>* stop = nullptr;
  // Replaces make_player (tests use it to inject players that misbehave).
  std::function<expected<std::unique_ptr<Player>, Error>(int participant, std::uint64_t seed)>
      player_factory;
};

struct PairingStats {
  int a = 0, b = 1;  // participants; results are from a's view
  Trinomial games;
  Pentanomial pairs;  // completed opening pairs
  Trinomial a_first;  // a's results when a moved first
};

struct ParticipantStats {
  std::string name;
  Trinomial games;
  std::int64_t timeouts = 0, crashes = 0, illegal = 0;  // games lost that way
};

struct Standings {
  std::int64_t total_games = 0;
  std::int64_t done_games = 0;
  std::vector<PairingStats> pairings;
  std::vector<ParticipantStats> participants;
  std::array<std::int64_t, kTerminations> by_reason{};
  Trinomial first_mover;  // the side moving first, over all games
  std::optional<double> llr;
  SprtDecision decision = SprtDecision::continue_testing;
};

struct TournamentResult {
  Standings standings;
  std::vector<Rating> ratings;    // joint ratings, mean 0
  std::vector<GameRecord> games;  // in completion order, resumed ones first
  std::int64_t resumed_games = 0;
  bool stopped = false;  // by the stop flag
  std::string fingerprint;
};

// Runs the tournament. `on_game` is called after each game (under the
// results lock, from a worker thread) for progress display.
expected<TournamentResult, Error> run_tournament(
    const TournamentConfig& cfg,
    const std::function<void(const Standings&, const GameRecord&)>& on_game = {});

// "[ 12/100] a-b +5 =2 -5  Elo 0.0 +- 120.3  LLR 0.12 [-2.94, 2.94]"
std::string progress_line(const TournamentConfig& cfg, const Standings& s);
// The final table: ratings, each pairing with Elo, margin, LOS, pentanomial
// counts; terminations; the SPRT verdict.
std::string format_report(const TournamentConfig& cfg, const TournamentResult& r);
std::string to_json(const TournamentConfig& cfg, const TournamentResult& r);

// One record line (JSON) and back. `fingerprint` ties a line to its tournament.
std::string record_line(const GameRecord& g, const std::string& fingerprint);
expected<GameRecord, Error> parse_record_line(std::string_view line, std::string* fingerprint);

}  // namespace inarow::bots
