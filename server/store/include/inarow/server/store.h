// Store: where players, ratings, matches, their events and every move are
// kept. A small interface so another database can follow; SQLite (WAL) is
// the one we ship. Writes come in batches, each one transaction.
//
// A live match is its event log (AppendEvent, one per event: the hot path).
// When it ends, FinishMatch files its result and its moves as the game's
// record; its events are then no longer needed and the store may drop them.
//
// Time the server was down is charged to nobody, but time a player to move
// used before a crash is: every log row carries the wall time its clocks were
// true at, and the store keeps the last time the server was known alive
// (Alive, a heartbeat the writer commits). A restore charges the player to
// move from the one to the other (server/net/src/recovery.cpp).
//
// Several nodes may share one database, each live match owned by one node
// at a time (a lease with a fencing generation, bumped by every new owner).
// A match row keeps the generation of its owner: a new owner's TakeOver
// raises it, and a write that carries a generation (AppendEvent,
// FinishMatch, ClockFrom) is refused unless it is the stored one, in the
// write's own transaction, so that a node that lost its lease cannot write
// after the new owner took over. Generation 0 is a single node's: never
// checked.
//
// The SQLite store is in sqlite_store.h, an in-memory one for tests in
// memory_store.h, and the group-committing writer in store_writer.h.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "inarow/common/expected.h"
#include "inarow/server/rating.h"

namespace inarow::server {

// Now as the store keeps it (every at_ms and *_ms here): Unix time in
// milliseconds.
inline std::int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct PlayerRecord {
  std::string id;
  std::string name;
  std::string token_hash;  // hex SHA-1 of the token; empty for bots
  bool bot = false;
  std::map<std::string, Rating> ratings;  // by variant name
  // Rated games finished, by variant (the find_* reads fill it).
  std::map<std::string, int> games;
  // An account's (all empty for a guest; the find_* reads fill them): its
  // password's Argon2id hash, its name's key (player_name.h: name_key), when
  // the password was first set, and the token hashes of its other devices
  // (token_hash above is the first device's).
  std::string password_hash;
  std::string name_key;
  std::int64_t account_since_ms = 0;
  std::vector<std::string> device_token_hashes;
};

struct MoveRecord {
  int ply = 0;  // 1 for the first move
  std::string move;
  std::int64_t first_ms = 0;  // clocks after the move
  std::int64_t second_ms = 0;
};

// One side's rating across a rated game: before it and after it.
struct RatingDelta {
  Rating before;
  Rating after;
};

struct MatchRecord {
  std::string id;
  std::string variant;
  int kind = 0;  // v1::MatchKind
  bool rated = false;
  std::int64_t initial_ms = 0;
  std::int64_t increment_ms = 0;
  std::string first_id, second_id;
  std::string first_level, second_level;  // bots only
  int result = 0;                         // v1::Result, 0 while live
  int reason = 0;                         // v1::EndReason
  std::int64_t created_ms = 0;            // Unix time
  std::int64_t ended_ms = 0;
  // load_match: a finished match's moves; a live match's events instead
  // (its moves are what those events say). load_unfinished: the events.
  std::vector<MoveRecord> moves;
  std::vector<std::string> events;  // serialized v1::MatchEvent, seq order
  // With events: the Unix time in ms at which each event's clocks were true
  // (0: not known, a store from before schema 4). A ClockFrom for the last
  // event replaces its time.
  std::vector<std::int64_t> event_ms;
  // Finished games (load_match, list_games): both sides' ratings across a
  // rated game that ended with a result (by seat), and the players' names
  // and kinds as the players table has them.
  std::optional<std::array<RatingDelta, 2>> ratings;
  std::string first_name, second_name;
  bool first_bot = false, second_bot = false;
  int plies = 0;  // list_games: the record's length (its moves are not read)
  // The fencing generation of the match's owner (CreateMatch stores it,
  // TakeOver raises it); 0: a single node's match, never fenced.
  std::int64_t generation = 0;
};

// MatchRecord::kind of a private game (v1::MATCH_KIND_PRIVATE): a person and
// a friend who joined by code.
inline constexpr int kPrivateMatchKind = 3;

// Whether `viewer` may see game `m`: anyone may, but a private game is for
// its two players only (an empty viewer, as over HTTP, is neither). The one
// rule for the history and the records; SqliteStore::list_games says it in
// SQL.
inline bool visible_to(const MatchRecord& m, const std::string& viewer) {
  return m.kind != kPrivateMatchKind ||
         (!viewer.empty() && (m.first_id == viewer || m.second_id == viewer));
}

// One row of a variant's leaderboard.
struct RankedPlayer {
  std::string player_id;
  std::string name;
  bool bot = false;
  Rating rating;
  int games = 0;
};

// A page of a variant's leaderboard: the players with at least min_games
// rated games in it, best rating first (ties: more games, then the player
// id), from rank offset + 1; total counts them all.
struct LeaderboardPage {
  std::size_t total = 0;
  std::vector<RankedPlayer> entries;
};

// Where a page of a player's games ends: the last game's end time and id
// (games are listed newest first by end time, then by id).
struct GameCursor {
  std::int64_t ended_ms = 0;
  std::string id;
};

namespace store_op {
struct SavePlayer {
  PlayerRecord player;  // id, name, token hash, bot (ratings go by SaveRating)
};
struct SaveRating {
  std::string player_id;
  std::string variant;
  Rating rating;
  int games = 0;  // rated games finished in the variant, this one included
};
struct CreateMatch {
  MatchRecord match;
};
struct AppendEvent {
  std::string match_id;
  std::uint64_t seq = 0;
  std::string blob;        // serialized v1::MatchEvent
  std::int64_t at_ms = 0;  // Unix time when the event's clocks were taken
  // The writer's fencing generation: refused (fenced) unless it is the
  // match's stored one; 0: not checked.
  std::int64_t generation = 0;
};
struct FinishMatch {
  std::string match_id;
  int result = 0;
  int reason = 0;
  std::int64_t ended_ms = 0;
  std::vector<MoveRecord> moves;  // the game's record, in ply order
  // A rated game's rating changes, by seat (schema 5).
  std::optional<std::array<RatingDelta, 2>> ratings = std::nullopt;
  // The players changed sides in the opening: the record files each one by
  // the side they finished with (CreateMatch had them as they started).
  bool swapped = false;
  std::int64_t generation = 0;  // as AppendEvent's
};
// The server is alive at this time (Unix ms): a heartbeat. A restore charges
// no thinking time past the last one (nor past the last event).
struct Alive {
  std::int64_t at_ms = 0;
};
// After a restore: event `seq`'s clocks hold as of `at_ms` (its old time
// moved on by the time the server was down), so that a second crash charges
// neither the first downtime nor the first charge again.
struct ClockFrom {
  std::string match_id;
  std::uint64_t seq = 0;
  std::int64_t at_ms = 0;
  std::int64_t generation = 0;  // as AppendEvent's
};
// A new owner takes a live match over with its lease's generation: the
// match's writes carry it from now on, and an older one's are refused.
// Fenced (the transaction fails) unless it is greater than the stored one,
// or if the store has no such match. A single node never takes over.
struct TakeOver {
  std::string match_id;
  std::int64_t generation = 0;
};
// A player's password, set or changed: the player becomes an account whose
// name key is theirs alone (a second account with the same key fails the
// transaction). created_ms is kept from the first time.
struct SaveAccount {
  std::string player_id;
  std::string name_key;
  std::string password_hash;
  std::int64_t created_ms = 0;
};
// An account signed in from another device: that device's token (its hash)
// names the player too, beside the tokens it already had.
struct AddDevice {
  std::string player_id;
  std::string token_hash;
  std::int64_t created_ms = 0;
};
// A password changed on one device signs the others out: of the player's
// tokens (the first one and every device's) only `keep_token_hash` still
// names them.
struct RevokeDevices {
  std::string player_id;
  std::string keep_token_hash;
};
}  // namespace store_op

using StoreOp = std::variant<store_op::SavePlayer, store_op::SaveRating, store_op::CreateMatch,
                             store_op::AppendEvent, store_op::FinishMatch, store_op::Alive,
                             store_op::ClockFrom, store_op::SaveAccount, store_op::AddDevice,
                             store_op::RevokeDevices, store_op::TakeOver>;

// Why a write failed. `fenced`: the matches whose ops were refused for
// their generation (a TakeOver not above the stored one, or a write of
// another generation than the stored one; a fenced op on a match the store
// does not have is refused too), each once, in the order of the batch;
// empty for any other failure. The store reports every fenced match of the
// batch, so that a writer can commit the rest again without them.
struct StoreError {
  std::string message;
  std::vector<std::string> fenced;
};

class Store {
 public:
  virtual ~Store() = default;
  // All ops in one transaction: all are durable, or none and an error. A
  // batch with a fenced op is refused whole (StoreError::fenced names its
  // matches).
  virtual inarow::expected<void, StoreError> write(std::span<const StoreOp> ops) = 0;
  // One player with their ratings, games, account and devices, found by
  // id, by a token hash (the first device's or any device's still valid),
  // or by an account's name key; nullopt if there is none. Players are
  // read when they are needed, not all at start: these may be called from
  // any thread, and a database with its own reader does not wait for the
  // writer's commits.
  virtual std::optional<PlayerRecord> find_player(const std::string& id) = 0;
  virtual std::optional<PlayerRecord> find_player_by_token(const std::string& token_hash) = 0;
  virtual std::optional<PlayerRecord> find_account(const std::string& name_key) = 0;
  virtual LeaderboardPage leaderboard(const std::string& variant, int min_games, std::size_t offset,
                                      std::size_t limit) = 0;
  // Matches without a result, each with its events.
  virtual std::vector<MatchRecord> load_unfinished() = 0;
  // One match: a finished one with its moves, a live one with its events.
  virtual std::optional<MatchRecord> load_match(const std::string& id) = 0;
  // The last Alive written (0 if none).
  virtual std::int64_t last_alive_ms() = 0;
  // Up to `limit` of a player's finished games that `viewer` may see
  // (visible_to), newest first (by end time, then id), those strictly
  // before `before` if given; each without its moves (plies says how many).
  // nullopt: no such player.
  virtual std::optional<std::vector<MatchRecord>> list_games(
      const std::string& player_id, const std::string& viewer,
      const std::optional<GameCursor>& before, std::size_t limit) = 0;
};

}  // namespace inarow::server
