// The PostgreSQL store: one connection the writer thread commits on,
// guarded by a mutex, and a small pool of connections for reads, so that
// a reader never waits out a commit. Every query is parameterised (the
// statements are prepared on each connection on first use); results come
// in binary, so that ratings are the very doubles written whatever the
// server's extra_float_digits, and events (BYTEA) are the very bytes.
// Each behaviour follows the SQLite store's (sqlite_store.cpp): read that
// first; the comments here say where PostgreSQL differs.
#include "inarow/server/postgres_store.h"

#include <libpq-fe.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pg_schema.h"
#include "record_text.h"
#include "store_sql.h"

namespace inarow::server {
namespace {

using postgres::kSchemaVersion;
using sqlite::decode_record;
using sqlite::encode_record;
using store_sql::kLogFromColumn;
using store_sql::kMatchColumnList;
using store_sql::kPruneLog;
using store_sql::kRatingsColumn;
using store_sql::kRecordColumn;
using store_sql::select_games;

// A query's parameter: text (libpq reads it up to its NUL), bytes (binary
// format, for BYTEA) or NULL. Numbers are written as text.
class Param {
 public:
  Param(const std::string& s) : data_(s.c_str()) {}  // NOLINT: implicit on purpose
  Param(const char*) = delete;                       // not a bool: say std::string
  Param(std::int64_t v) : owned_(std::to_string(v)) {}
  Param(int v) : owned_(std::to_string(v)) {}
  Param(bool v) : data_(v ? "t" : "f") {}
  Param(double v) {
    char text[32];
    // The shortest text that reads back as the same double (float8in does).
    const auto end = std::to_chars(text, text + sizeof text, v).ptr;
    owned_.assign(text, end);
  }
  static Param bytes(const std::string& s) {
    Param p(s);
    p.length_ = static_cast<int>(s.size());
    p.binary_ = true;
    return p;
  }
  static Param null() {
    Param p(false);
    p.data_ = nullptr;
    p.null_ = true;
    return p;
  }
  const char* value() const { return null_ ? nullptr : data_ ? data_ : owned_.c_str(); }
  int length() const { return length_; }
  int format() const { return binary_ ? 1 : 0; }

 private:
  const char* data_ = nullptr;  // else owned_
  std::string owned_;
  int length_ = 0;
  bool binary_ = false;
  bool null_ = false;
};

// A query's result, freed with it. Columns are read in binary (network
// byte order) or text, as the result has them.
class Result {
 public:
  explicit Result(PGresult* r = nullptr) : r_(r) {}
  Result(Result&& o) noexcept : r_(std::exchange(o.r_, nullptr)) {}
  Result& operator=(Result&& o) noexcept {
    std::swap(r_, o.r_);
    return *this;
  }
  ~Result() { PQclear(r_); }

  bool ok() const {
    const ExecStatusType s = PQresultStatus(r_);
    return r_ && (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK);
  }
  const char* command() const { return r_ ? PQcmdStatus(r_) : ""; }
  // The rows an INSERT, UPDATE or DELETE changed.
  std::int64_t affected() const {
    const char* n = r_ ? PQcmdTuples(r_) : "";
    std::int64_t v = 0;
    std::from_chars(n, n + std::strlen(n), v);
    return v;
  }
  int rows() const { return ok() ? PQntuples(r_) : 0; }
  bool null(int row, int col) const { return PQgetisnull(r_, row, col) != 0; }
  std::string text(int row, int col) const {
    return std::string(PQgetvalue(r_, row, col),
                       static_cast<std::size_t>(PQgetlength(r_, row, col)));
  }
  std::int64_t integer(int row, int col) const {
    if (null(row, col)) return 0;
    const char* p = PQgetvalue(r_, row, col);
    const int n = PQgetlength(r_, row, col);
    if (PQfformat(r_, col) == 0) {
      std::int64_t v = 0;
      std::from_chars(p, p + n, v);
      return v;
    }
    if (n == 1) return p[0] != 0;  // a boolean
    std::uint64_t v = 0;           // a smallint, integer or bigint, big-endian
    for (int i = 0; i < n; ++i)
      v = (v << 8) | static_cast<unsigned char>(p[i]);
    if (n < 8 && (v >> (8 * n - 1)) != 0) v |= ~std::uint64_t{0} << (8 * n);  // its sign
    return static_cast<std::int64_t>(v);
  }
  bool boolean(int row, int col) const {
    if (PQfformat(r_, col) == 0) return !null(row, col) && PQgetvalue(r_, row, col)[0] == 't';
    return integer(row, col) != 0;
  }
  double real(int row, int col) const {
    if (null(row, col)) return 0;
    if (PQfformat(r_, col) == 0) return std::strtod(PQgetvalue(r_, row, col), nullptr);
    return std::bit_cast<double>(static_cast<std::uint64_t>(integer(row, col)));
  }
  PGresult* get() const { return r_; }

 private:
  PGresult* r_;
};

// libpq's message without its trailing newline (and its tab-indented hint
// on one line).
std::string message(const char* m) {
  std::string s = m ? m : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  for (char& c : s) {
    if (c == '\n' || c == '\t') c = ' ';
  }
  return s;
}

// The parameters every connection is opened with: ours first, so that the
// conninfo (expanded from dbname) overrides them.
struct ConnectParams {
  std::string conninfo;
  std::string connect_timeout;
  std::vector<const char*> keys() const {
    return {"connect_timeout", "application_name", "dbname", nullptr};
  }
  std::vector<const char*> values() const {
    return {connect_timeout.c_str(), "inarow-server", conninfo.c_str(), nullptr};
  }
};

// One connection, and the statements prepared on it.
class Connection {
 public:
  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() { PQfinish(conn_); }

  // Connects; false (and error()) if it could not.
  bool connect(const ConnectParams& params, bool writer) {
    const auto keys = params.keys();
    const auto values = params.values();
    conn_ = PQconnectdbParams(keys.data(), values.data(), 1);
    writer_ = writer;
    // The server's notices ("already exists, skipping") are not errors:
    // not printed on the server's standard error. (Kept across PQreset.)
    if (conn_)
      PQsetNoticeProcessor(
          conn_, [](void*, const char*) {}, nullptr);
    return conn_ && PQstatus(conn_) == CONNECTION_OK && set_up();
  }

  // Whether the connection can be used, connecting again (PQreset) if it
  // was lost: a connection whose server went away fails the call that finds
  // it gone, and the next one connects again.
  bool usable() {
    if (PQstatus(conn_) == CONNECTION_OK) return true;
    PQreset(conn_);
    prepared_.clear();  // a new session has none of them
    return PQstatus(conn_) == CONNECTION_OK && set_up();
  }

  // A query without parameters (BEGIN, COMMIT, the schema), in text.
  Result exec(const char* sql) {
    Result r(PQexec(conn_, sql));
    if (!r.ok()) note(r);
    return r;
  }

  // `sql` (a string that outlives the connection: its address names its
  // statement) with `params`, prepared on this connection on first use;
  // the result in binary.
  Result run(const char* sql) { return run(sql, std::span<const Param>()); }
  Result run(const char* sql, std::initializer_list<Param> params) {
    return run(sql, std::span<const Param>(params.begin(), params.size()));
  }
  Result run(const char* sql, std::span<const Param> params) {
    auto it = prepared_.find(sql);
    if (it == prepared_.end()) {
      std::string name = "inarow_" + std::to_string(prepared_.size() + 1);
      Result made(PQprepare(conn_, name.c_str(), sql, 0, nullptr));
      if (!made.ok()) {
        note(made);
        return made;
      }
      it = prepared_.emplace(sql, std::move(name)).first;
    }
    values_.clear();
    lengths_.clear();
    formats_.clear();
    for (const Param& p : params) {
      values_.push_back(p.value());
      lengths_.push_back(p.length());
      formats_.push_back(p.format());
    }
    Result r(PQexecPrepared(conn_, it->second.c_str(), static_cast<int>(params.size()),
                            values_.data(), lengths_.data(), formats_.data(), 1));
    if (!r.ok()) note(r);
    return r;
  }

  // Why the last query that failed did.
  const std::string& error() const { return error_; }
  std::string connection_error() const { return message(PQerrorMessage(conn_)); }

 private:
  void note(const Result& r) {
    const char* why = r.get() ? PQresultErrorMessage(r.get()) : "";
    error_ = message(why && *why ? why : PQerrorMessage(conn_));
    if (error_.empty()) error_ = "the PostgreSQL server did not answer";
  }

  // The writer's commits are durable when they return: if the database
  // (or the role) has synchronous_commit off, the writer's session turns
  // it on again. Reads have nothing to set.
  bool set_up() {
    if (!writer_) return true;
    Result r(PQexec(conn_, "SELECT current_setting('synchronous_commit')"));
    if (!r.ok() || r.rows() != 1) {
      note(r);
      return false;
    }
    if (r.text(0, 0) != "off") return true;
    Result set(PQexec(conn_, "SET synchronous_commit TO on"));
    if (!set.ok()) note(set);
    return set.ok();
  }

  PGconn* conn_ = nullptr;
  bool writer_ = false;
  std::unordered_map<const char*, std::string> prepared_;
  std::vector<const char*> values_;
  std::vector<int> lengths_, formats_;
  std::string error_;
};

// The connections reads take turns on: a read takes a free one (or waits
// for one) and gives it back.
class ReaderPool {
 public:
  class Lease {
   public:
    Lease(ReaderPool& pool, Connection& c) : pool_(pool), c_(c) {}
    ~Lease() { pool_.give_back(c_); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Connection& operator*() const { return c_; }
    Connection* operator->() const { return &c_; }

   private:
    ReaderPool& pool_;
    Connection& c_;
  };

  void add(std::unique_ptr<Connection> c) {
    free_.push_back(c.get());
    all_.push_back(std::move(c));
  }
  Lease take() {
    std::unique_lock lock(mutex_);
    freed_.wait(lock, [this] { return !free_.empty(); });
    Connection* c = free_.back();
    free_.pop_back();
    return Lease(*this, *c);
  }

 private:
  void give_back(Connection& c) {
    {
      std::lock_guard lock(mutex_);
      free_.push_back(&c);
    }
    freed_.notify_one();
  }
  std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<std::unique_ptr<Connection>> all_;
  std::vector<Connection*> free_;
};

// A read of several queries sees one commit: a commit between them could
// tear a player (a device revoked after its token found them). Ended by
// COMMIT, which also ends a transaction a failed query aborted.
class ReadTransaction {
 public:
  explicit ReadTransaction(Connection& c)
      : c_(c), open_(c.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").ok()) {}
  ~ReadTransaction() {
    if (open_) c_.exec("COMMIT");
  }
  ReadTransaction(const ReadTransaction&) = delete;
  ReadTransaction& operator=(const ReadTransaction&) = delete;
  bool open() const { return open_; }

 private:
  Connection& c_;
  bool open_;
};

// The columns of kSelectMatches, then the record.
const std::string kSelectMatches = std::string("SELECT ") + kMatchColumnList +
                                   ", record FROM matches WHERE result = 0 "
                                   "ORDER BY created_ms, id";
const std::string kSelectGame = select_games("WHERE m.id = $1");
// A player's finished games on one seat that the viewer may see (visible_to
// in SQL), newest first, before the cursor: each seat's index gives them in
// order.
const std::string kSelectGamesAsFirst = select_games(
    "WHERE m.first_id = $1 AND m.result <> 0 AND (m.ended_ms, m.id) < ($2, $3) "
    "AND (m.kind <> $5 OR ($6 <> '' AND $6 IN (m.first_id, m.second_id))) "
    "ORDER BY m.ended_ms DESC, m.id DESC LIMIT $4");
const std::string kSelectGamesAsSecond = select_games(
    "WHERE m.second_id = $1 AND m.result <> 0 AND (m.ended_ms, m.id) < ($2, $3) "
    "AND (m.kind <> $5 OR ($6 <> '' AND $6 IN (m.first_id, m.second_id))) "
    "ORDER BY m.ended_ms DESC, m.id DESC LIMIT $4");

MatchRecord read_match(const Result& q, int row) {
  MatchRecord m;
  m.id = q.text(row, 0);
  m.variant = q.text(row, 1);
  m.kind = static_cast<int>(q.integer(row, 2));
  m.rated = q.boolean(row, 3);
  m.initial_ms = q.integer(row, 4);
  m.increment_ms = q.integer(row, 5);
  m.first_id = q.text(row, 6);
  m.second_id = q.text(row, 7);
  m.first_level = q.text(row, 8);
  m.second_level = q.text(row, 9);
  m.result = static_cast<int>(q.integer(row, 10));
  m.reason = static_cast<int>(q.integer(row, 11));
  m.created_ms = q.integer(row, 12);
  m.ended_ms = q.integer(row, 13);
  m.generation = q.integer(row, store_sql::kGenerationColumn);
  return m;
}

// The history's columns of a row of select_games.
void read_game(const Result& q, int row, MatchRecord& m) {
  constexpr int r = kRatingsColumn;
  if (!q.null(row, r)) {
    m.ratings.emplace();
    for (int s = 0; s < 2; ++s) {
      RatingDelta& d = (*m.ratings)[s];
      d.before.rating = q.real(row, r + 4 * s);
      d.before.deviation = q.real(row, r + 4 * s + 1);
      d.after.rating = q.real(row, r + 4 * s + 2);
      d.after.deviation = q.real(row, r + 4 * s + 3);
      d.before.volatility = d.after.volatility = 0;  // not kept
    }
  }
  m.first_name = q.text(row, r + 8);
  m.first_bot = q.boolean(row, r + 9);
  m.second_name = q.text(row, r + 10);
  m.second_bot = q.boolean(row, r + 11);
}

std::int64_t clamp64(std::size_t n) {
  constexpr auto kMax = static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max());
  return static_cast<std::int64_t>(std::min(n, kMax));
}

class PostgresStore final : public Store {
 public:
  PostgresStore(std::unique_ptr<Connection> writer, std::chrono::milliseconds prune_every)
      : writer_(std::move(writer)), prune_every_(prune_every) {}

  void add_reader(std::unique_ptr<Connection> c) { readers_.add(std::move(c)); }

  inarow::expected<void, StoreError> write(std::span<const StoreOp> ops) override {
    std::lock_guard lock(mutex_);
    Connection& c = *writer_;
    if (!c.usable()) return inarow::unexpected(StoreError{failed(c.connection_error()), {}});
    if (!c.exec("BEGIN").ok()) return inarow::unexpected(StoreError{failed(c.error()), {}});
    finished_ = false;
    fenced_.clear();
    restored_added_.clear();
    restored_dropped_.clear();
    for (const StoreOp& op : ops) {
      if (!std::visit([this](const auto& o) { return apply(o); }, op)) {
        return rolled_back(c.error());
      }
    }
    if (!fenced_.empty()) {
      // A fenced op wrote nothing (no statement failed: the transaction
      // went on to name every fenced match); the others are undone with it.
      std::string why = "fenced:";
      for (const std::string& id : fenced_)
        why += " " + id;
      return rolled_back(why, std::move(fenced_));
    }
    if (finished_ && std::chrono::steady_clock::now() - last_prune_ >= prune_every_) {
      // Best effort: a failed prune is undone alone (a failed statement
      // aborts PostgreSQL's whole transaction: hence the savepoint) and
      // tried again later.
      if (c.exec("SAVEPOINT prune").ok()) {
        const bool pruned = c.run(kPruneLog).ok();
        if (!c.exec(pruned ? "RELEASE SAVEPOINT prune" : "ROLLBACK TO SAVEPOINT prune").ok()) {
          return rolled_back(c.error());
        }
      }
      last_prune_ = std::chrono::steady_clock::now();
    }
    Result commit = c.exec("COMMIT");
    // A COMMIT of a transaction that failed answers ROLLBACK, not an error.
    if (!commit.ok() || std::strcmp(commit.command(), "COMMIT") != 0) {
      return rolled_back(commit.ok() ? "the transaction was rolled back" : c.error());
    }
    return {};
  }

  std::vector<MatchRecord> load_unfinished() override {
    std::lock_guard lock(mutex_);
    Connection& c = *writer_;
    std::vector<MatchRecord> out;
    if (!c.usable()) return out;
    ReadTransaction snapshot(c);
    if (!snapshot.open()) return out;
    std::unordered_map<std::string, std::size_t> at;
    std::int64_t from = std::numeric_limits<std::int64_t>::max();
    Result matches = c.run(kSelectMatches.c_str());
    for (int row = 0; row < matches.rows(); ++row) {
      from = std::min(from, matches.integer(row, kLogFromColumn));
      at[matches.text(row, 0)] = out.size();
      out.push_back(read_match(matches, row));
    }
    if (out.empty()) return out;
    // One pass over the log's live tail, in commit order (each match's seq order).
    Result log = c.run("SELECT match_id, blob, at_ms FROM log WHERE id >= $1 ORDER BY id", {from});
    for (int row = 0; row < log.rows(); ++row) {
      auto it = at.find(log.text(row, 0));
      if (it == at.end()) continue;
      out[it->second].events.push_back(log.text(row, 1));
      out[it->second].event_ms.push_back(log.integer(row, 2));
    }
    // A restore's times for the events its clocks resumed from.
    Result resumed = c.run("SELECT match_id, seq, at_ms FROM clock_from");
    for (int row = 0; row < resumed.rows(); ++row) {
      auto it = at.find(resumed.text(row, 0));
      if (it == at.end()) continue;
      restored_.insert(it->first);
      auto& times = out[it->second].event_ms;
      const std::int64_t seq = resumed.integer(row, 1);
      if (seq >= 1 && static_cast<std::size_t>(seq) <= times.size()) {
        times[static_cast<std::size_t>(seq - 1)] = resumed.integer(row, 2);
      }
    }
    return out;
  }

  std::int64_t last_alive_ms() override {
    std::lock_guard lock(mutex_);
    Connection& c = *writer_;
    if (!c.usable()) return 0;
    Result r = c.run("SELECT at_ms FROM alive WHERE id = 1");
    return r.rows() == 1 ? r.integer(0, 0) : 0;
  }

  std::optional<MatchRecord> load_match(const std::string& id) override {
    return reading([&](Connection& c) { return read_match_record(c, id); });
  }

  std::optional<std::vector<MatchRecord>> list_games(const std::string& player_id,
                                                     const std::string& viewer,
                                                     const std::optional<GameCursor>& before,
                                                     std::size_t limit) override {
    return reading([&](Connection& c) { return read_games(c, player_id, viewer, before, limit); });
  }

  std::optional<PlayerRecord> find_player(const std::string& id) override {
    return reading([&](Connection& c) { return read_player(c, id); });
  }

  std::optional<PlayerRecord> find_player_by_token(const std::string& token_hash) override {
    return reading([&](Connection& c) -> std::optional<PlayerRecord> {
      // The first device's token (players_by_token, which leaves out the
      // '' of bots and revoked tokens) or another device's (its key).
      Result r = c.run(
          "SELECT id FROM players WHERE token_hash = $1 AND token_hash <> '' "
          "UNION ALL SELECT player_id FROM devices WHERE token_hash = $1 LIMIT 1",
          {token_hash});
      return r.rows() == 1 ? read_player(c, r.text(0, 0)) : std::nullopt;
    });
  }

  std::optional<PlayerRecord> find_account(const std::string& name_key) override {
    return reading([&](Connection& c) -> std::optional<PlayerRecord> {
      Result r = c.run("SELECT player_id FROM accounts WHERE name_key = $1", {name_key});
      return r.rows() == 1 ? read_player(c, r.text(0, 0)) : std::nullopt;
    });
  }

  LeaderboardPage leaderboard(const std::string& variant, int min_games, std::size_t offset,
                              std::size_t limit) override {
    return reading(
        [&](Connection& c) { return read_leaderboard(c, variant, min_games, offset, limit); });
  }

 private:
  std::string failed(const std::string& why) const { return "PostgreSQL store: " + why; }

  inarow::unexpected<StoreError> rolled_back(const std::string& why,
                                             std::vector<std::string> fenced = {}) {
    std::string error = failed(why);
    writer_->exec("ROLLBACK");  // fails harmlessly if the connection is gone
    // The batch's changes to what was restored are undone with it.
    for (const std::string& id : restored_added_)
      restored_.erase(id);
    for (const std::string& id : restored_dropped_)
      restored_.insert(id);
    return inarow::unexpected(StoreError{std::move(error), std::move(fenced)});
  }

  // Runs `read` on a reader connection of its own, in one read-only
  // snapshot. A connection that cannot be used (the server is down) or a
  // query that fails gives what an empty store would.
  template <class Read>
  std::invoke_result_t<Read&, Connection&> reading(Read&& read) {
    auto c = readers_.take();
    if (!c->usable()) return {};
    ReadTransaction snapshot(*c);
    if (!snapshot.open()) return {};
    return read(*c);
  }

  // One player, whole, by id: four lookups by key.
  static std::optional<PlayerRecord> read_player(Connection& c, const std::string& id) {
    Result player = c.run("SELECT name, token_hash, bot FROM players WHERE id = $1", {id});
    if (player.rows() != 1) return std::nullopt;
    std::optional<PlayerRecord> p(std::in_place);
    p->id = id;
    p->name = player.text(0, 0);
    p->token_hash = player.text(0, 1);
    p->bot = player.boolean(0, 2);
    Result ratings = c.run(
        "SELECT variant, rating, deviation, volatility, games FROM ratings WHERE player_id = $1",
        {id});
    if (!ratings.ok()) return std::nullopt;
    for (int row = 0; row < ratings.rows(); ++row) {
      p->ratings[ratings.text(row, 0)] =
          Rating{ratings.real(row, 1), ratings.real(row, 2), ratings.real(row, 3)};
      // A variant without a game has no count.
      if (const auto games = static_cast<int>(ratings.integer(row, 4)); games > 0) {
        p->games[ratings.text(row, 0)] = games;
      }
    }
    Result account = c.run(
        "SELECT name_key, password_hash, created_ms FROM accounts WHERE player_id = $1", {id});
    if (!account.ok()) return std::nullopt;
    if (account.rows() == 1) {
      p->name_key = account.text(0, 0);
      p->password_hash = account.text(0, 1);
      p->account_since_ms = account.integer(0, 2);
    }
    // Ties in time by token, as SQLite's index (player_id, created_ms) over
    // a table keyed by token has them.
    Result devices =
        c.run("SELECT token_hash FROM devices WHERE player_id = $1 ORDER BY created_ms, token_hash",
              {id});
    if (!devices.ok()) return std::nullopt;
    for (int row = 0; row < devices.rows(); ++row)
      p->device_token_hashes.push_back(devices.text(row, 0));
    return p;
  }

  // A page of a variant's leaderboard (as SQLite's: the page's players
  // from the rank index, then their rows and names; the count too).
  static LeaderboardPage read_leaderboard(Connection& c, const std::string& variant, int min_games,
                                          std::size_t offset, std::size_t limit) {
    LeaderboardPage page;
    Result count = c.run("SELECT COUNT(*) FROM ratings WHERE variant = $1 AND games >= $2",
                         {variant, min_games});
    if (count.rows() != 1) return {};
    page.total = static_cast<std::size_t>(count.integer(0, 0));
    if (limit == 0 || offset >= page.total) return page;
    Result ranked = c.run(
        "SELECT top.player_id, p.name, p.bot, r.rating, r.deviation, r.volatility, r.games "
        "FROM (SELECT player_id, rating, games FROM ratings WHERE variant = $1 AND games >= $2 "
        "ORDER BY rating DESC, games DESC, player_id LIMIT $3 OFFSET $4) AS top "
        "JOIN ratings r ON r.player_id = top.player_id AND r.variant = $1 "
        "LEFT JOIN players p ON p.id = top.player_id "
        "ORDER BY top.rating DESC, top.games DESC, top.player_id",
        {variant, min_games, clamp64(limit), clamp64(offset)});
    if (!ranked.ok()) return {};
    for (int row = 0; row < ranked.rows(); ++row) {
      page.entries.push_back(
          RankedPlayer{ranked.text(row, 0), ranked.text(row, 1), ranked.boolean(row, 2),
                       Rating{ranked.real(row, 3), ranked.real(row, 4), ranked.real(row, 5)},
                       static_cast<int>(ranked.integer(row, 6))});
    }
    return page;
  }

  // One match: a finished one with its record, a live one with its events.
  static std::optional<MatchRecord> read_match_record(Connection& c, const std::string& id) {
    Result q = c.run(kSelectGame.c_str(), {id});
    if (q.rows() != 1) return std::nullopt;
    MatchRecord m = read_match(q, 0);
    read_game(q, 0, m);
    if (m.result == 0) {
      Result log = c.run("SELECT blob FROM log WHERE id >= $1 AND match_id = $2 ORDER BY id",
                         {q.integer(0, kLogFromColumn), id});
      if (!log.ok()) return std::nullopt;
      for (int row = 0; row < log.rows(); ++row)
        m.events.push_back(log.text(row, 0));
      return m;
    }
    if (!q.null(0, kRecordColumn)) decode_record(q.text(0, kRecordColumn), m.moves);
    return m;
  }

  // A player's finished games that the viewer may see: each seat's page,
  // merged (as SQLite's read_games).
  static std::optional<std::vector<MatchRecord>> read_games(Connection& c,
                                                            const std::string& player_id,
                                                            const std::string& viewer,
                                                            const std::optional<GameCursor>& before,
                                                            std::size_t limit) {
    Result known = c.run("SELECT 1 FROM players WHERE id = $1", {player_id});
    if (known.rows() != 1) return std::nullopt;
    std::vector<MatchRecord> out;
    const std::string after_all;  // every id sorts after "" at the top end time
    for (const std::string* sql : {&kSelectGamesAsFirst, &kSelectGamesAsSecond}) {
      Result q =
          c.run(sql->c_str(),
                {player_id, before ? before->ended_ms : std::numeric_limits<std::int64_t>::max(),
                 before ? before->id : after_all, clamp64(limit), kPrivateMatchKind, viewer});
      if (!q.ok()) return std::nullopt;
      for (int row = 0; row < q.rows(); ++row) {
        MatchRecord m = read_match(q, row);
        read_game(q, row, m);
        if (!q.null(row, kRecordColumn)) {
          m.plies = sqlite::record_plies(q.text(row, kRecordColumn));
        }
        out.push_back(std::move(m));
      }
    }
    store_sql::merge_seat_pages(out, limit);
    return out;
  }

  bool apply(const store_op::SavePlayer& op) {
    return writer_
        ->run(
            "INSERT INTO players (id, name, token_hash, bot) VALUES ($1, $2, $3, $4) "
            "ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, "
            "token_hash = EXCLUDED.token_hash",
            {op.player.id, op.player.name, op.player.token_hash, op.player.bot})
        .ok();
  }
  bool apply(const store_op::SaveRating& op) {
    return writer_
        ->run(
            "INSERT INTO ratings (player_id, variant, rating, deviation, volatility, games) "
            "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (player_id, variant) DO UPDATE SET "
            "rating = EXCLUDED.rating, deviation = EXCLUDED.deviation, "
            "volatility = EXCLUDED.volatility, games = EXCLUDED.games",
            {op.player_id, op.variant, op.rating.rating, op.rating.deviation, op.rating.volatility,
             op.games})
        .ok();
  }
  bool apply(const store_op::CreateMatch& op) {
    const MatchRecord& m = op.match;
    // The match's events are the log rows from here on.
    return writer_
        ->run(
            "INSERT INTO matches (id, variant, kind, rated, initial_ms, increment_ms, "
            "first_id, second_id, first_level, second_level, created_ms, generation, log_from) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, "
            "(SELECT COALESCE(MAX(id), 0) + 1 FROM log))",
            {m.id, m.variant, m.kind, m.rated, m.initial_ms, m.increment_ms, m.first_id,
             m.second_id, m.first_level, m.second_level, m.created_ms, m.generation})
        .ok();
  }

  // The generation check (store.h), against other nodes' connections. The
  // transaction is READ COMMITTED (PostgreSQL's default): each statement
  // reads the last commits as of its start. A check that only read the
  // match row would race a TakeOver: the take-over could commit after the
  // check and before this batch's commit, and the new owner, having read
  // the match when its TakeOver committed, would never see this event.
  // So the check locks the row it reads, in the write's own statement: a
  // fenced AppendEvent or ClockFrom writes its row only as selected from
  // the match's row `FOR SHARE` with the generation in the WHERE, and
  // FinishMatch, an UPDATE of that row, carries the generation in its
  // WHERE. TakeOver's UPDATE and these locks conflict (FOR KEY SHARE would
  // not: the UPDATE changes no key), so the two transactions take turns on
  // the row: a TakeOver that comes second waits
  // for this batch's commit (and the new owner then reads its events); a
  // write that comes second waits for the TakeOver's commit, and then READ
  // COMMITTED evaluates its WHERE again on the row as the TakeOver left it:
  // the generation no longer matches, no row is written, and the match is
  // fenced. (REPEATABLE READ would fail such a write with a serialization
  // error instead: a failure, where the answer is "fenced".) The check
  // costs no extra round trip, and generation 0 (a single node) none at all.
  // Two nodes' batches that lock several matches' rows in opposite orders
  // can deadlock: PostgreSQL then fails one of them (a failure, not fenced).
  bool apply(const store_op::AppendEvent& op) {
    if (op.generation == 0) {
      return writer_
          ->run("INSERT INTO log (match_id, seq, blob, at_ms) VALUES ($1, $2, $3, $4)",
                {op.match_id, static_cast<std::int64_t>(op.seq), Param::bytes(op.blob), op.at_ms})
          .ok();
    }
    return checked(writer_->run("INSERT INTO log (match_id, seq, blob, at_ms) "
                                "SELECT id, $2::BIGINT, $3::BYTEA, $4::BIGINT FROM matches "
                                "WHERE id = $1 AND generation = $5 FOR SHARE",
                                {op.match_id, static_cast<std::int64_t>(op.seq),
                                 Param::bytes(op.blob), op.at_ms, op.generation}),
                   op.match_id) != Checked::failed;
  }
  bool apply(const store_op::TakeOver& op) {
    // Two take-overs take turns on the row too: the second finds the
    // first's generation, and is fenced unless its own is greater.
    return checked(
               writer_->run("UPDATE matches SET generation = $2 WHERE id = $1 AND generation < $2",
                            {op.match_id, op.generation}),
               op.match_id) != Checked::failed;
  }
  // A checked statement's outcome: it failed, wrote its row, or wrote
  // none (the match is fenced: noted in fenced_).
  enum class Checked { failed, written, fenced };
  Checked checked(const Result& r, const std::string& match_id) {
    if (!r.ok()) return Checked::failed;
    if (r.affected() == 1) return Checked::written;
    if (std::ranges::find(fenced_, match_id) == fenced_.end()) fenced_.push_back(match_id);
    return Checked::fenced;
  }
  bool apply(const store_op::Alive& op) {
    return writer_
        ->run(
            "INSERT INTO alive (id, at_ms) VALUES (1, $1) "
            "ON CONFLICT (id) DO UPDATE SET at_ms = EXCLUDED.at_ms",
            {op.at_ms})
        .ok();
  }
  bool apply(const store_op::ClockFrom& op) {
    if (op.generation == 0) {
      if (!writer_
               ->run("INSERT INTO clock_from (match_id, seq, at_ms) VALUES ($1, $2, $3) "
                     "ON CONFLICT (match_id) DO UPDATE SET seq = EXCLUDED.seq, "
                     "at_ms = EXCLUDED.at_ms",
                     {op.match_id, static_cast<std::int64_t>(op.seq), op.at_ms})
               .ok()) {
        return false;
      }
    } else {
      // Checked as AppendEvent is (the row from the match's, FOR SHARE).
      const Checked c = checked(
          writer_->run("INSERT INTO clock_from (match_id, seq, at_ms) "
                       "SELECT id, $2::BIGINT, $3::BIGINT FROM matches "
                       "WHERE id = $1 AND generation = $4 FOR SHARE "
                       "ON CONFLICT (match_id) DO UPDATE SET "
                       "seq = EXCLUDED.seq, at_ms = EXCLUDED.at_ms",
                       {op.match_id, static_cast<std::int64_t>(op.seq), op.at_ms, op.generation}),
          op.match_id);
      if (c != Checked::written) return c == Checked::fenced;
    }
    if (restored_.insert(op.match_id).second) restored_added_.push_back(op.match_id);
    return true;
  }
  bool apply(const store_op::FinishMatch& op) {
    // One write, on the match's row: its result and its record, and the
    // players in the sides they finished with (an UPDATE reads the old row
    // on the right, so the two columns swap).
    record_text_.clear();
    encode_record(op.moves, record_text_);
    std::vector<Param> params{op.result, op.reason, op.ended_ms, record_text_};
    for (int side = 0; side < 2; ++side) {
      if (op.ratings) {
        const RatingDelta& d = (*op.ratings)[side];
        params.insert(params.end(),
                      {d.before.rating, d.before.deviation, d.after.rating, d.after.deviation});
      } else {
        params.insert(params.end(), {Param::null(), Param::null(), Param::null(), Param::null()});
      }
    }
    params.emplace_back(op.swapped);
    params.emplace_back(op.match_id);
    params.emplace_back(op.generation);
    // The generation checked in the UPDATE's WHERE (see AppendEvent's).
    Result updated = writer_->run(
        "UPDATE matches SET result = $1, reason = $2, ended_ms = $3, record = $4, "
        "first_rating_before = $5, first_rd_before = $6, first_rating_after = $7, "
        "first_rd_after = $8, second_rating_before = $9, second_rd_before = $10, "
        "second_rating_after = $11, second_rd_after = $12, "
        "first_id = CASE WHEN $13 THEN second_id ELSE first_id END, "
        "second_id = CASE WHEN $13 THEN first_id ELSE second_id END, "
        "first_level = CASE WHEN $13 THEN second_level ELSE first_level END, "
        "second_level = CASE WHEN $13 THEN first_level ELSE second_level END "
        "WHERE id = $14 AND ($15::BIGINT = 0 OR generation = $15::BIGINT)",
        params);
    if (op.generation == 0) {
      if (!updated.ok()) return false;
    } else if (const Checked c = checked(updated, op.match_id); c != Checked::written) {
      return c == Checked::fenced;
    }
    if (restored_.erase(op.match_id) != 0) {
      restored_dropped_.push_back(op.match_id);
      // Its restore's time is no longer needed (a row only for a match
      // that was restored: the hot path pays nothing).
      if (!writer_->run("DELETE FROM clock_from WHERE match_id = $1", {op.match_id}).ok()) {
        return false;
      }
    }
    finished_ = true;
    return true;
  }
  bool apply(const store_op::SaveAccount& op) {
    // A second account with the same name key breaks the UNIQUE constraint:
    // the statement fails, and with it the whole transaction.
    return writer_
        ->run(
            "INSERT INTO accounts (player_id, name_key, password_hash, created_ms) "
            "VALUES ($1, $2, $3, $4) ON CONFLICT (player_id) DO UPDATE SET "
            "name_key = EXCLUDED.name_key, password_hash = EXCLUDED.password_hash",
            {op.player_id, op.name_key, op.password_hash, op.created_ms})
        .ok();
  }
  bool apply(const store_op::AddDevice& op) {
    return writer_
        ->run("INSERT INTO devices (token_hash, player_id, created_ms) VALUES ($1, $2, $3)",
              {op.token_hash, op.player_id, op.created_ms})
        .ok();
  }
  bool apply(const store_op::RevokeDevices& op) {
    return writer_
               ->run("DELETE FROM devices WHERE player_id = $1 AND token_hash <> $2",
                     {op.player_id, op.keep_token_hash})
               .ok() &&
           writer_
               ->run("UPDATE players SET token_hash = '' WHERE id = $1 AND token_hash <> $2",
                     {op.player_id, op.keep_token_hash})
               .ok();
  }

  std::mutex mutex_;  // the writer's connection and the state below
  std::unique_ptr<Connection> writer_;
  ReaderPool readers_;
  std::chrono::milliseconds prune_every_;
  bool finished_ = false;  // this batch ended a match
  std::chrono::steady_clock::time_point last_prune_{};
  // Matches with a clock_from row (written by this process or found by
  // load_unfinished), and this batch's changes to them (undone with it).
  std::unordered_set<std::string> restored_;
  std::vector<std::string> restored_added_, restored_dropped_;
  std::vector<std::string> fenced_;  // this batch's fenced matches, in order
  std::string record_text_;          // FinishMatch's record, encoded (reused)
};

// Where a conninfo points, for messages: host, port, database and user,
// never the password. Empty if it does not parse.
std::optional<std::string> describe(const std::string& conninfo) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
  PQfreemem(error);  // it may quote the string, password and all: not shown
  if (!options) return std::nullopt;
  std::string host, hostaddr, port, dbname, user;
  for (PQconninfoOption* o = options; o->keyword; ++o) {
    if (!o->val) continue;
    const std::string_view key = o->keyword;
    if (key == "host") host = o->val;
    if (key == "hostaddr") hostaddr = o->val;
    if (key == "port") port = o->val;
    if (key == "dbname") dbname = o->val;
    if (key == "user") user = o->val;
  }
  PQconninfoFree(options);
  if (host.empty()) host = hostaddr.empty() ? "the local socket" : hostaddr;
  std::string out = "PostgreSQL at " + host + " port " + (port.empty() ? "5432" : port);
  if (!dbname.empty()) out += ", database " + dbname;
  if (!user.empty()) out += ", user " + user;
  return out;
}

}  // namespace

std::string postgres_store_label(const std::string& conninfo) {
  return describe(conninfo).value_or("PostgreSQL (a connection string that does not parse)");
}

inarow::expected<std::unique_ptr<Store>, std::string> open_postgres_store(
    const std::string& conninfo, PostgresOptions options) {
  const auto where = describe(conninfo);
  if (!where) {
    return inarow::unexpected(
        std::string("cannot open store: the PostgreSQL connection string does not parse (a URI "
                    "postgresql://user@host:port/db, or keywords host=... port=... dbname=...)"));
  }
  const ConnectParams params{
      conninfo, std::to_string(std::max<std::int64_t>(1, options.connect_timeout.count()))};
  auto connect = [&](bool writer) -> inarow::expected<std::unique_ptr<Connection>, std::string> {
    auto c = std::make_unique<Connection>();
    if (!c->connect(params, writer)) {
      const std::string why = c->error().empty() ? c->connection_error() : c->error();
      return inarow::unexpected("cannot connect to " + *where + ": " + why);
    }
    return c;
  };
  auto writer = connect(true);
  if (!writer) return inarow::unexpected(writer.error());
  Connection& w = **writer;
  auto failed = [&](const std::string& doing) {
    std::string why = "cannot " + doing + " store (" + *where + "): " + w.error();
    w.exec("ROLLBACK");
    return inarow::unexpected(std::move(why));
  };
  // The schema and its version in one transaction, under a lock every
  // server takes for it: a database is set up once, wholly or not at all.
  if (!w.exec("BEGIN").ok()) return failed("set up");
  if (!w.exec(("SELECT pg_advisory_xact_lock(" + std::to_string(postgres::kSchemaLockKey) + ")")
                  .c_str())
           .ok() ||
      !w.exec(postgres::kCreateVersionTable).ok()) {
    return failed("set up");
  }
  Result version = w.exec("SELECT COUNT(*), COALESCE(MAX(version), 0) FROM schema_version");
  if (version.rows() != 1) return failed("read the schema version of");
  const std::int64_t rows = version.integer(0, 0);
  const std::int64_t found = version.integer(0, 1);
  if (found > kSchemaVersion) {
    w.exec("ROLLBACK");
    return inarow::unexpected("cannot use store (" + *where + "): its schema (" +
                              std::to_string(found) + ") is newer than this server's (" +
                              std::to_string(kSchemaVersion) + ")");
  }
  if (rows == 0) {
    if (!w.exec(postgres::kCreateSchema).ok()) return failed("set up");
    if (!w.exec(("INSERT INTO schema_version (version) VALUES (" + std::to_string(kSchemaVersion) +
                 ")")
                    .c_str())
             .ok()) {
      return failed("set up");
    }
  } else if (found < kSchemaVersion) {
    // An older schema: migrated in this transaction, under the lock.
    if (!w.exec(postgres::migration_from(static_cast<int>(found)).c_str()).ok()) {
      return failed("migrate");
    }
  }
  if (Result commit = w.exec("COMMIT");
      !commit.ok() || std::strcmp(commit.command(), "COMMIT") != 0) {
    return failed("set up");
  }
  auto store = std::make_unique<PostgresStore>(std::move(*writer), options.prune_every);
  for (std::size_t i = 0; i < std::max<std::size_t>(1, options.readers); ++i) {
    auto reader = connect(false);
    if (!reader) return inarow::unexpected(reader.error());
    store->add_reader(std::move(*reader));
  }
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace inarow::server
