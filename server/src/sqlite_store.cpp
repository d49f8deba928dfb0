// The SQLite store: one connection in WAL mode, guarded by a mutex (the
// writer thread commits, HTTP readers look up finished games).
#include <sqlite3.h>

#include <charconv>
#include <chrono>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "inarow/server/store.h"

namespace inarow::server {
namespace {

// Schema 3. Every write lands at a table's right edge or on a page a
// commit dirties anyway: the log is appended by rowid; a match row (its id
// begins with its creation time) is written when it is created and once more
// when it ends, and that second write carries the game's record (its moves,
// one line each) instead of a row per move in another table, which scattered
// over as many pages as there were live matches. The live-match index holds
// live matches only. A group commit therefore writes a few pages, not
// several per finished game. (Schema 2 kept the record in `moves`; finished
// matches from then are still read from there.)
constexpr int kSchemaVersion = 3;

// The matches table under its name in `name` (a migration builds it aside).
std::string matches_table(const char* name) {
  return std::string("CREATE TABLE IF NOT EXISTS ") + name + R"sql( (
  id TEXT PRIMARY KEY,
  variant TEXT NOT NULL,
  kind INTEGER NOT NULL,
  rated INTEGER NOT NULL,
  initial_ms INTEGER NOT NULL,
  increment_ms INTEGER NOT NULL,
  first_id TEXT NOT NULL,
  second_id TEXT NOT NULL,
  first_level TEXT NOT NULL,
  second_level TEXT NOT NULL,
  result INTEGER NOT NULL DEFAULT 0,
  reason INTEGER NOT NULL DEFAULT 0,
  created_ms INTEGER NOT NULL,
  ended_ms INTEGER NOT NULL DEFAULT 0,
  log_from INTEGER NOT NULL DEFAULT 0,
  record TEXT
) WITHOUT ROWID;
)sql";
}

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS players (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL,
  bot INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ratings (
  player_id TEXT NOT NULL,
  variant TEXT NOT NULL,
  rating REAL NOT NULL,
  deviation REAL NOT NULL,
  volatility REAL NOT NULL,
  PRIMARY KEY (player_id, variant)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS matches_live ON matches (log_from) WHERE result = 0;
CREATE TABLE IF NOT EXISTS log (
  id INTEGER PRIMARY KEY,
  match_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  blob BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS moves (
  match_id TEXT NOT NULL,
  ply INTEGER NOT NULL,
  move TEXT NOT NULL,
  first_ms INTEGER NOT NULL,
  second_ms INTEGER NOT NULL,
  PRIMARY KEY (match_id, ply)
) WITHOUT ROWID;
)sql";

// Schema 2 → 3: the matches move to the table above (the record column, no
// rowid), the live index becomes partial, and whatever `moves` still holds of
// live matches (schema 1 wrote moves as they were made) gives way to the
// record they will file when they end.
// Schema 2's columns, in the order the store reads them (record follows).
constexpr const char* kMatchColumnList =
    "id, variant, kind, rated, initial_ms, increment_ms, first_id, second_id, first_level, "
    "second_level, result, reason, created_ms, ended_ms, log_from";
std::string migrate_from_2() {
  return matches_table("matches_v3") + "INSERT INTO matches_v3 (" + kMatchColumnList + ") SELECT " +
         kMatchColumnList + " FROM matches;\n" + R"sql(
DROP TABLE matches;
ALTER TABLE matches_v3 RENAME TO matches;
DELETE FROM moves WHERE match_id IN (SELECT id FROM matches WHERE result = 0);
)sql";
}

// Schema 1 (user_version 0) kept every event in a table keyed by match and
// every move as it was made. Its live matches' events move to the log; the
// moves of finished matches are already their records.
constexpr const char* kMigrateFrom1 = R"sql(
ALTER TABLE matches ADD COLUMN log_from INTEGER NOT NULL DEFAULT 0;
CREATE INDEX matches_live ON matches (result, log_from);
DROP INDEX IF EXISTS matches_by_result;
CREATE TABLE log (
  id INTEGER PRIMARY KEY,
  match_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  blob BLOB NOT NULL
);
INSERT INTO log (match_id, seq, blob)
  SELECT e.match_id, e.seq, e.blob FROM events e JOIN matches m ON m.id = e.match_id
  WHERE m.result = 0 ORDER BY m.created_ms, e.match_id, e.seq;
DROP TABLE events;
)sql";

// A finished game's record in the matches row: a line per move,
// "<ply> <move> <first_ms> <second_ms>" (moves are notation, never spaces).
void encode_record(const std::vector<MoveRecord>& moves, std::string& out) {
  char number[24];
  auto put = [&](std::int64_t v) {
    const auto end = std::to_chars(number, number + sizeof number, v).ptr;
    out.append(number, end);
  };
  for (const MoveRecord& m : moves) {
    put(m.ply);
    out += ' ';
    out += m.move;
    out += ' ';
    put(m.first_ms);
    out += ' ';
    put(m.second_ms);
    out += '\n';
  }
}

// The moves of a record written by encode_record. A line that does not parse
// (the file was edited by hand) ends the record there.
void decode_record(std::string_view text, std::vector<MoveRecord>& out) {
  auto field = [&text]() {
    const auto end = text.find_first_of(" \n");
    const std::string_view f = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    return f;
  };
  auto number = [](std::string_view f, auto& v) {
    const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
    return ec == std::errc() && end == f.data() + f.size();
  };
  while (!text.empty()) {
    MoveRecord m;
    const std::string_view ply = field(), move = field(), first = field(), second = field();
    if (move.empty() || !number(ply, m.ply) || !number(first, m.first_ms) ||
        !number(second, m.second_ms)) {
      return;
    }
    m.move = std::string(move);
    out.push_back(std::move(m));
  }
}

// Log rows older than every live match's first row belong to finished
// matches: drop them now and then, inside a batch's transaction.
constexpr const char* kPruneLog =
    "DELETE FROM log WHERE id < COALESCE((SELECT MIN(log_from) FROM matches WHERE result = 0), "
    "(SELECT COALESCE(MAX(id), 0) + 1 FROM log))";

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool ok() const { return stmt_ != nullptr; }
  // Text and blobs are bound without a copy: every statement is stepped and
  // reset while the string it was given is alive.
  Statement& bind(int i, const std::string& s) {
    sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_STATIC);
    return *this;
  }
  Statement& bind_blob(int i, const std::string& s) {
    sqlite3_bind_blob(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_STATIC);
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Statement& bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  // SQLITE_ROW, SQLITE_DONE or an error.
  int step() { return sqlite3_step(stmt_); }
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::string text(int col) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
  }
  std::string blob(int col) const {
    auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
  }
  std::int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  int type(int col) const { return sqlite3_column_type(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

// Checkpoints off the commit path. The writer's connection never copies the
// WAL back into the database itself (its WAL hook only reports the WAL's
// size); this thread, with a connection of its own, does it passively while
// commits go on, and when the WAL has grown long anyway it waits for a gap
// between two commits to restart it, so the file stops growing.
class Checkpointer {
 public:
  static constexpr int kPassivePages = 1000;  // ~4 MiB of WAL
  static constexpr int kRestartPages = 8000;  // ~32 MiB

  explicit Checkpointer(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) !=
        SQLITE_OK) {
      sqlite3_close(db_);
      db_ = nullptr;
      return;
    }
    sqlite3_busy_timeout(db_, 1000);
    thread_ = std::thread([this] { run(); });
  }
  ~Checkpointer() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
    sqlite3_close(db_);
  }
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  bool ok() const { return db_ != nullptr; }

  // From the writer's WAL hook, after every commit.
  void wal_grew(int pages) {
    if (pages < kPassivePages) return;
    {
      std::lock_guard lock(mutex_);
      pending_ = true;
    }
    wake_.notify_one();
  }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return stopping_ || pending_; });
      if (stopping_) return;
      pending_ = false;
      lock.unlock();
      int wal_pages = 0, copied = 0;
      sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &wal_pages, &copied);
      if (wal_pages >= kRestartPages) {
        sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_RESTART, &wal_pages, &copied);
      }
      lock.lock();
    }
  }

  sqlite3* db_ = nullptr;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool pending_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

class SqliteStore final : public Store {
 public:
  SqliteStore(sqlite3* db, std::chrono::milliseconds prune_every)
      : db_(db), prune_every_(prune_every) {}
  ~SqliteStore() override {
    checkpointer_.reset();
    // Fold the WAL back into the database file on a clean close.
    sqlite3_exec(db_, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
    for (auto* slot : {&begin_, &commit_, &save_player_, &save_rating_, &create_match_,
                       &append_event_, &finish_match_, &prune_log_}) {
      slot->reset();  // finalized before the connection closes
    }
    sqlite3_close(db_);
  }

  // Hand checkpoints to their own thread (a database file in WAL mode only).
  bool checkpoint_elsewhere(const std::string& path) {
    auto c = std::make_unique<Checkpointer>(path);
    if (!c->ok()) return false;
    checkpointer_ = std::move(c);
    sqlite3_wal_hook(
        db_,
        [](void* self, sqlite3*, const char*, int pages) {
          static_cast<Checkpointer*>(self)->wal_grew(pages);
          return SQLITE_OK;
        },
        checkpointer_.get());
    return true;
  }

  inarow::expected<void, std::string> write(std::span<const StoreOp> ops) override {
    std::lock_guard lock(mutex_);
    if (!done(stmt(begin_, "BEGIN IMMEDIATE"))) return inarow::unexpected(error());
    finished_ = false;
    for (const StoreOp& op : ops) {
      if (!std::visit([this](const auto& o) { return apply(o); }, op)) {
        std::string why = error();
        exec("ROLLBACK");
        return inarow::unexpected(why);
      }
    }
    if (finished_ && std::chrono::steady_clock::now() - last_prune_ >= prune_every_) {
      // Best effort: a failed prune is undone alone and tried again later.
      (void)done(stmt(prune_log_, kPruneLog));
      last_prune_ = std::chrono::steady_clock::now();
    }
    if (!done(stmt(commit_, "COMMIT"))) {
      std::string why = error();
      exec("ROLLBACK");
      return inarow::unexpected(why);
    }
    return {};
  }

  std::vector<PlayerRecord> load_players() override {
    std::lock_guard lock(mutex_);
    std::vector<PlayerRecord> out;
    std::map<std::string, std::size_t> at;
    Statement players(db_, "SELECT id, name, token_hash, bot FROM players");
    while (players.step() == SQLITE_ROW) {
      PlayerRecord p;
      p.id = players.text(0);
      p.name = players.text(1);
      p.token_hash = players.text(2);
      p.bot = players.integer(3) != 0;
      at[p.id] = out.size();
      out.push_back(std::move(p));
    }
    Statement ratings(db_, "SELECT player_id, variant, rating, deviation, volatility FROM ratings");
    while (ratings.step() == SQLITE_ROW) {
      auto it = at.find(ratings.text(0));
      if (it == at.end()) continue;
      out[it->second].ratings[ratings.text(1)] =
          Rating{ratings.real(2), ratings.real(3), ratings.real(4)};
    }
    return out;
  }

  std::vector<MatchRecord> load_unfinished() override {
    std::lock_guard lock(mutex_);
    std::vector<MatchRecord> out;
    std::unordered_map<std::string, std::size_t> at;
    std::int64_t from = std::numeric_limits<std::int64_t>::max();
    {
      Statement q(db_, (kSelectMatches + " WHERE result = 0 ORDER BY created_ms").c_str());
      while (q.step() == SQLITE_ROW) {
        from = std::min(from, q.integer(kLogFromColumn));
        at[q.text(0)] = out.size();
        out.push_back(read_match(q));
      }
    }
    if (out.empty()) return out;
    // One pass over the log's live tail, in commit order (each match's seq order).
    Statement log(db_, "SELECT match_id, blob FROM log WHERE id >= ? ORDER BY id");
    log.bind(1, from);
    while (log.step() == SQLITE_ROW) {
      auto it = at.find(log.text(0));
      if (it != at.end()) out[it->second].events.push_back(log.blob(1));
    }
    return out;
  }

  std::optional<MatchRecord> load_match(const std::string& id) override {
    std::lock_guard lock(mutex_);
    Statement q(db_, (kSelectMatches + " WHERE id = ?").c_str());
    q.bind(1, id);
    if (q.step() != SQLITE_ROW) return std::nullopt;
    MatchRecord m = read_match(q);
    if (m.result == 0) {
      Statement log(db_, "SELECT blob FROM log WHERE id >= ? AND match_id = ? ORDER BY id");
      log.bind(1, q.integer(kLogFromColumn)).bind(2, id);
      while (log.step() == SQLITE_ROW)
        m.events.push_back(log.blob(0));
      return m;
    }
    if (q.type(kRecordColumn) != SQLITE_NULL) {
      decode_record(q.text(kRecordColumn), m.moves);
      return m;
    }
    // Finished under schema 2 or earlier: a row per move.
    Statement moves(db_,
                    "SELECT ply, move, first_ms, second_ms FROM moves WHERE match_id = ? ORDER BY "
                    "ply");
    moves.bind(1, id);
    while (moves.step() == SQLITE_ROW) {
      m.moves.push_back(MoveRecord{static_cast<int>(moves.integer(0)), moves.text(1),
                                   moves.integer(2), moves.integer(3)});
    }
    return m;
  }

  bool exec(const char* sql) {
    return sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
  }
  std::string error() const { return sqlite3_errmsg(db_); }
  std::int64_t integer(const char* sql) {
    Statement q(db_, sql);
    return q.step() == SQLITE_ROW ? q.integer(0) : 0;
  }

 private:
  static inline const std::string kSelectMatches =
      std::string("SELECT ") + kMatchColumnList + ", record FROM matches";
  static constexpr int kLogFromColumn = 14;
  static constexpr int kRecordColumn = 15;

  static MatchRecord read_match(const Statement& q) {
    MatchRecord m;
    m.id = q.text(0);
    m.variant = q.text(1);
    m.kind = static_cast<int>(q.integer(2));
    m.rated = q.integer(3) != 0;
    m.initial_ms = q.integer(4);
    m.increment_ms = q.integer(5);
    m.first_id = q.text(6);
    m.second_id = q.text(7);
    m.first_level = q.text(8);
    m.second_level = q.text(9);
    m.result = static_cast<int>(q.integer(10));
    m.reason = static_cast<int>(q.integer(11));
    m.created_ms = q.integer(12);
    m.ended_ms = q.integer(13);
    return m;
  }

  static bool done(Statement& s) {
    const bool ok = s.step() == SQLITE_DONE;
    s.reset();
    return ok;
  }

  bool apply(const store_op::SavePlayer& op) {
    auto& s = stmt(save_player_,
                   "INSERT INTO players (id, name, token_hash, bot) VALUES (?, ?, ?, ?) "
                   "ON CONFLICT(id) DO UPDATE SET name = excluded.name, "
                   "token_hash = excluded.token_hash");
    s.bind(1, op.player.id).bind(2, op.player.name).bind(3, op.player.token_hash);
    s.bind(4, std::int64_t{op.player.bot});
    return done(s);
  }
  bool apply(const store_op::SaveRating& op) {
    auto& s = stmt(save_rating_,
                   "INSERT OR REPLACE INTO ratings (player_id, variant, rating, deviation, "
                   "volatility) VALUES (?, ?, ?, ?, ?)");
    s.bind(1, op.player_id).bind(2, op.variant).bind(3, op.rating.rating);
    s.bind(4, op.rating.deviation).bind(5, op.rating.volatility);
    return done(s);
  }
  bool apply(const store_op::CreateMatch& op) {
    const MatchRecord& m = op.match;
    // The match's events are the log rows from here on.
    auto& s = stmt(create_match_,
                   "INSERT INTO matches (id, variant, kind, rated, initial_ms, increment_ms, "
                   "first_id, second_id, first_level, second_level, created_ms, log_from) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                   "(SELECT COALESCE(MAX(id), 0) + 1 FROM log))");
    s.bind(1, m.id).bind(2, m.variant).bind(3, std::int64_t{m.kind});
    s.bind(4, std::int64_t{m.rated}).bind(5, m.initial_ms).bind(6, m.increment_ms);
    s.bind(7, m.first_id).bind(8, m.second_id).bind(9, m.first_level).bind(10, m.second_level);
    s.bind(11, m.created_ms);
    return done(s);
  }
  bool apply(const store_op::AppendEvent& op) {
    auto& s = stmt(append_event_, "INSERT INTO log (match_id, seq, blob) VALUES (?, ?, ?)");
    s.bind(1, op.match_id).bind(2, static_cast<std::int64_t>(op.seq)).bind_blob(3, op.blob);
    return done(s);
  }
  bool apply(const store_op::FinishMatch& op) {
    // One write, on the match's row: its result and its record.
    auto& s =
        stmt(finish_match_,
             "UPDATE matches SET result = ?, reason = ?, ended_ms = ?, record = ? WHERE id = ?");
    record_text_.clear();
    encode_record(op.moves, record_text_);
    s.bind(1, std::int64_t{op.result}).bind(2, std::int64_t{op.reason}).bind(3, op.ended_ms);
    s.bind(4, record_text_).bind(5, op.match_id);
    if (!done(s)) return false;
    finished_ = true;
    return true;
  }

  Statement& stmt(std::unique_ptr<Statement>& slot, const char* sql) {
    if (!slot) slot = std::make_unique<Statement>(db_, sql);
    return *slot;
  }

  sqlite3* db_;
  std::mutex mutex_;
  std::unique_ptr<Checkpointer> checkpointer_;
  std::chrono::milliseconds prune_every_;
  bool finished_ = false;  // this batch ended a match
  std::chrono::steady_clock::time_point last_prune_{};
  // Prepared once, on first use (the batch's BEGIN and COMMIT too: parsing
  // them showed in the writer's profile).
  std::unique_ptr<Statement> begin_, commit_, save_player_, save_rating_, create_match_,
      append_event_, finish_match_, prune_log_;
  std::string record_text_;  // FinishMatch's record, encoded (reused)
};

}  // namespace

inarow::expected<std::unique_ptr<Store>, std::string> open_sqlite_store(const std::string& path,
                                                                        SqliteOptions options) {
  // Before SQLite's first use in the process: no allocation statistics
  // (nothing reads them), which spares a global mutex on every malloc.
  static const bool configured = [] {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK;
  }();
  (void)configured;  // SQLITE_MISUSE if SQLite was already in use: harmless
  sqlite3* db = nullptr;
  // SqliteStore's own mutex serializes every use of the connection, so
  // SQLite's (a lock per API call, ~37 per move) would only repeat it.
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return inarow::unexpected("cannot open store " + path + ": " + why);
  }
  auto store = std::make_unique<SqliteStore>(db, options.prune_every);
  sqlite3_busy_timeout(db, static_cast<int>(options.busy_timeout.count()));
  auto failed = [&](const std::string& doing) {
    return inarow::unexpected("cannot " + doing + " store " + path + ": " + store->error());
  };
  if (!store->exec("PRAGMA journal_mode=WAL") ||
      !store->exec(options.full_sync ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL") ||
      !store->exec("PRAGMA cache_size=-16384")) {  // 16 MiB of pages
    return failed("set up");
  }
  const std::int64_t version = store->integer("PRAGMA user_version");
  if (version > kSchemaVersion) {
    return inarow::unexpected("cannot use store " + path + ": its schema (" +
                              std::to_string(version) + ") is newer than this server's (" +
                              std::to_string(kSchemaVersion) + ")");
  }
  // Migrations go by the tables' shape, and with the schema and its version
  // in one transaction: a store is either wholly migrated or untouched.
  auto has_table = [&store](const std::string& name) {  // our own names only
    return store->integer(
               ("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '" + name + "'")
                   .c_str()) != 0;
  };
  std::string setup;
  if (has_table("events")) setup += kMigrateFrom1;  // schema 1 → 2
  if (!setup.empty() ||
      (has_table("matches") &&
       !store->integer(
           "SELECT COUNT(*) FROM pragma_table_info('matches') WHERE name = 'record'"))) {
    setup += migrate_from_2();  // schema 2 → 3
  }
  setup += matches_table("matches");
  setup += kSchema;
  setup += "PRAGMA user_version=" + std::to_string(kSchemaVersion) + ";";
  if (!store->exec("BEGIN IMMEDIATE")) return failed("set up");
  if (!store->exec(setup.c_str())) {
    auto why = failed(setup.find("matches_v3") != std::string::npos ? "migrate" : "set up");
    store->exec("ROLLBACK");
    return why;
  }
  if (!store->exec("COMMIT")) return failed("set up");
  if (path != ":memory:" && !path.empty() && !store->checkpoint_elsewhere(path)) {
    return failed("open a checkpointer for");
  }
  return std::unique_ptr<Store>(std::move(store));
}

// ------------------------------------------------------------ StoreWriter

StoreWriter::StoreWriter(Store& store, Observer observer)
    : store_(store), observer_(std::move(observer)), thread_([this] { run(); }) {}

StoreWriter::~StoreWriter() {
  stop();
}

void StoreWriter::submit(std::vector<StoreOp> ops, Done done) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(Job{std::move(ops), std::move(done)});
  }
  wake_.notify_one();
}

void StoreWriter::flush() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

void StoreWriter::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void StoreWriter::run() {
  // Both reused: their capacity follows the largest batch.
  std::vector<StoreOp> ops;
  std::vector<Job> batch;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) {
      if (stopping_) return;
      continue;
    }
    // Everything that queued up while the last commit ran goes in one transaction.
    batch.swap(queue_);
    busy_ = true;
    lock.unlock();

    ops.clear();
    for (Job& job : batch) {
      for (StoreOp& op : job.ops)
        ops.push_back(std::move(op));
    }
    const auto started = std::chrono::steady_clock::now();
    const bool ok = store_.write(ops).has_value();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (observer_) observer_(seconds, ops.size(), ok);
    for (Job& job : batch) {
      if (job.done) job.done(ok);
    }
    batch.clear();

    lock.lock();
    busy_ = false;
    if (queue_.empty()) idle_.notify_all();
  }
}

}  // namespace inarow::server
