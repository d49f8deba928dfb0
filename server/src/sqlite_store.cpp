// The SQLite store: one connection in WAL mode, guarded by a mutex (the
// writer thread commits, HTTP readers look up finished games).
#include <sqlite3.h>

#include <chrono>
#include <mutex>

#include "inarow/server/store.h"

namespace inarow::server {
namespace {

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
CREATE TABLE IF NOT EXISTS matches (
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
  ended_ms INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS matches_by_result ON matches (result);
CREATE TABLE IF NOT EXISTS events (
  match_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  blob BLOB NOT NULL,
  PRIMARY KEY (match_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS moves (
  match_id TEXT NOT NULL,
  ply INTEGER NOT NULL,
  move TEXT NOT NULL,
  first_ms INTEGER NOT NULL,
  second_ms INTEGER NOT NULL,
  PRIMARY KEY (match_id, ply)
) WITHOUT ROWID;
)sql";

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool ok() const { return stmt_ != nullptr; }
  Statement& bind(int i, const std::string& s) {
    sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind_blob(int i, const std::string& s) {
    sqlite3_bind_blob(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
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
  double real(int col) const { return sqlite3_column_double(stmt_, col); }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

class SqliteStore final : public Store {
 public:
  explicit SqliteStore(sqlite3* db) : db_(db) {}
  ~SqliteStore() override {
    // Fold the WAL back into the database file on a clean close.
    sqlite3_exec(db_, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
  }

  inarow::expected<void, std::string> write(std::span<const StoreOp> ops) override {
    std::lock_guard lock(mutex_);
    if (!exec("BEGIN IMMEDIATE")) return inarow::unexpected(error());
    for (const StoreOp& op : ops) {
      if (!std::visit([this](const auto& o) { return apply(o); }, op)) {
        std::string why = error();
        exec("ROLLBACK");
        return inarow::unexpected(why);
      }
    }
    if (!exec("COMMIT")) {
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
    {
      Statement q(db_,
                  (std::string(kMatchColumns) + " WHERE result = 0 ORDER BY created_ms").c_str());
      while (q.step() == SQLITE_ROW)
        out.push_back(read_match(q));
    }
    Statement events(db_, "SELECT blob FROM events WHERE match_id = ? ORDER BY seq");
    for (MatchRecord& m : out) {
      events.bind(1, m.id);
      while (events.step() == SQLITE_ROW)
        m.events.push_back(events.blob(0));
      events.reset();
    }
    return out;
  }

  std::optional<MatchRecord> load_match(const std::string& id) override {
    std::lock_guard lock(mutex_);
    Statement q(db_, (std::string(kMatchColumns) + " WHERE id = ?").c_str());
    q.bind(1, id);
    if (q.step() != SQLITE_ROW) return std::nullopt;
    MatchRecord m = read_match(q);
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

 private:
  static constexpr const char* kMatchColumns =
      "SELECT id, variant, kind, rated, initial_ms, increment_ms, first_id, second_id, "
      "first_level, second_level, result, reason, created_ms, ended_ms FROM matches";

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
    auto& s = stmt(create_match_,
                   "INSERT INTO matches (id, variant, kind, rated, initial_ms, increment_ms, "
                   "first_id, second_id, first_level, second_level, created_ms) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, m.id).bind(2, m.variant).bind(3, std::int64_t{m.kind});
    s.bind(4, std::int64_t{m.rated}).bind(5, m.initial_ms).bind(6, m.increment_ms);
    s.bind(7, m.first_id).bind(8, m.second_id).bind(9, m.first_level).bind(10, m.second_level);
    s.bind(11, m.created_ms);
    return done(s);
  }
  bool apply(const store_op::AppendEvent& op) {
    auto& s = stmt(append_event_, "INSERT INTO events (match_id, seq, blob) VALUES (?, ?, ?)");
    s.bind(1, op.match_id).bind(2, static_cast<std::int64_t>(op.seq)).bind_blob(3, op.blob);
    return done(s);
  }
  bool apply(const store_op::AppendMove& op) {
    auto& s = stmt(append_move_,
                   "INSERT OR REPLACE INTO moves (match_id, ply, move, first_ms, second_ms) "
                   "VALUES (?, ?, ?, ?, ?)");
    s.bind(1, op.match_id).bind(2, std::int64_t{op.move.ply}).bind(3, op.move.move);
    s.bind(4, op.move.first_ms).bind(5, op.move.second_ms);
    return done(s);
  }
  bool apply(const store_op::TruncateMoves& op) {
    auto& s = stmt(truncate_moves_, "DELETE FROM moves WHERE match_id = ? AND ply > ?");
    s.bind(1, op.match_id).bind(2, std::int64_t{op.keep});
    return done(s);
  }
  bool apply(const store_op::FinishMatch& op) {
    auto& s =
        stmt(finish_match_, "UPDATE matches SET result = ?, reason = ?, ended_ms = ? WHERE id = ?");
    s.bind(1, std::int64_t{op.result}).bind(2, std::int64_t{op.reason}).bind(3, op.ended_ms);
    s.bind(4, op.match_id);
    return done(s);
  }

  Statement& stmt(std::unique_ptr<Statement>& slot, const char* sql) {
    if (!slot) slot = std::make_unique<Statement>(db_, sql);
    return *slot;
  }

  sqlite3* db_;
  std::mutex mutex_;
  std::unique_ptr<Statement> save_player_, save_rating_, create_match_, append_event_, append_move_,
      truncate_moves_, finish_match_;
};

}  // namespace

inarow::expected<std::unique_ptr<Store>, std::string> open_sqlite_store(const std::string& path,
                                                                        SqliteOptions options) {
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return inarow::unexpected("cannot open store " + path + ": " + why);
  }
  auto store = std::make_unique<SqliteStore>(db);
  sqlite3_busy_timeout(db, 5000);
  if (!store->exec("PRAGMA journal_mode=WAL") ||
      !store->exec(options.full_sync ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL") ||
      !store->exec(kSchema)) {
    return inarow::unexpected("cannot set up store " + path + ": " + store->error());
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
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) {
      if (stopping_) return;
      continue;
    }
    // Everything that queued up while the last commit ran goes in one transaction.
    std::deque<Job> batch;
    batch.swap(queue_);
    busy_ = true;
    lock.unlock();

    std::vector<StoreOp> ops;
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

    lock.lock();
    busy_ = false;
    if (queue_.empty()) idle_.notify_all();
  }
}

}  // namespace inarow::server
