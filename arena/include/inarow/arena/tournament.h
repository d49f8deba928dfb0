// Bot-vs-bot tournaments: round robin or gauntlet, game pairs over a shared
// opening book with colours swapped, games run concurrently (one game per
// worker, each game owning its players), time limits enforced, a participant
// that crashes, hangs or plays an illegal move loses that game and the
// tournament goes on. Every finished game is appended to a record file (one
// JSON object a line, record.h) from which a stopped tournament resumes; the
// tables and JSON of the results are in report.h.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "inarow/arena/openings.h"
#include "inarow/arena/participant.h"
#include "inarow/arena/player.h"
#include "inarow/arena/referee.h"
#include "inarow/arena/schedule.h"
#include "inarow/arena/sprt.h"
#include "inarow/arena/statistics.h"

namespace inarow::arena {

struct TournamentConfig {
  Variant variant = Variant::tictactoe();
  std::vector<Participant> participants;
  Format format = Format::round_robin;  // gauntlet: participant 0 against each other one
  int games_per_pairing = 2;            // rounded up to whole pairs
  int concurrency = 1;
  std::uint64_t seed = 1;   // openings and bot randomness
  OpeningOptions openings;  // its seed is replaced by `seed`
  TimeLimits time;
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
  std::vector<EloRating> ratings;  // joint ratings, mean 0
  std::vector<GameRecord> games;   // in completion order, resumed ones first
  std::int64_t resumed_games = 0;
  bool stopped = false;  // by the stop flag
  std::string fingerprint;
};

// Runs the tournament. `on_game` is called after each game (under the
// results lock, from a worker thread) for progress display.
expected<TournamentResult, Error> run_tournament(
    const TournamentConfig& cfg,
    const std::function<void(const Standings&, const GameRecord&)>& on_game = {});

}  // namespace inarow::arena
