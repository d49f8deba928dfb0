// The SQLite store: one connection in WAL mode that the writer thread
// commits on, guarded by a mutex; players, the leaderboard and game records
// are read from a read-only connection of their own, so a reader never
// waits out a commit's fsync.
#include "inarow/server/sqlite_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include "checkpointer.h"
#include "record_text.h"
#include "schema.h"
#include "statement.h"
#include "store_sql.h"

namespace inarow::server {
namespace {

using sqlite::Checkpointer;
using sqlite::decode_record;
using sqlite::encode_record;
using sqlite::kSchemaVersion;
using sqlite::Statement;
using store_sql::kLogFromColumn;
using store_sql::kMatchColumnList;
using store_sql::kPruneLog;
using store_sql::kRatingsColumn;
using store_sql::kRecordColumn;

class SqliteStore final : public Store {
 public:
  SqliteStore(sqlite3* db, std::chrono::milliseconds prune_every)
      : db_(db), prune_every_(prune_every) {}
  ~SqliteStore() override {
    checkpointer_.reset();
    // Fold the WAL back into the database file on a clean close.
    sqlite3_exec(db_, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
    prepared_ = {};  // every statement finalized before the connection closes
    writer_reads_ = {};
    reader_reads_ = {};
    sqlite3_close(reader_);
    sqlite3_close(db_);
  }

  // Hand checkpoints to their own thread (a database file in WAL mode only).
  bool checkpoint_elsewhere(const std::string& path) {
    auto c = std::make_unique<Checkpointer>(path);
    if (!c->ok()) return false;
    checkpointer_ = std::move(c);
    sqlite3_wal_hook(
        db_,
        [](void* self, sqlite3* writer, const char*, int pages) {
          static_cast<Checkpointer*>(self)->wal_grew(writer, pages);
          return SQLITE_OK;
        },
        checkpointer_.get());
    return true;
  }

  inarow::expected<void, StoreError> write(std::span<const StoreOp> ops) override {
    std::lock_guard lock(mutex_);
    if (!done(stmt(prepared_.begin, "BEGIN IMMEDIATE"))) return failed(error());
    finished_ = false;
    fenced_.clear();
    restored_added_.clear();
    restored_dropped_.clear();
    for (const StoreOp& op : ops) {
      if (!std::visit([this](const auto& o) { return apply(o); }, op)) return failed(error());
    }
    if (!fenced_.empty()) {
      // A fenced op wrote nothing; the batch's others are undone with it.
      // Every fenced match is named, so that the rest can go without them.
      std::string why = "fenced:";
      for (const std::string& id : fenced_)
        why += " " + id;
      return failed(std::move(why), std::move(fenced_));
    }
    if (finished_ && std::chrono::steady_clock::now() - last_prune_ >= prune_every_) {
      // Best effort: a failed prune is undone alone and tried again later.
      (void)done(stmt(prepared_.prune_log, kPruneLog));
      last_prune_ = std::chrono::steady_clock::now();
    }
    if (!done(stmt(prepared_.commit, "COMMIT"))) return failed(error());
    return {};
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
    Statement log(db_, "SELECT match_id, blob, at_ms FROM log WHERE id >= ? ORDER BY id");
    log.bind(1, from);
    while (log.step() == SQLITE_ROW) {
      auto it = at.find(log.text(0));
      if (it == at.end()) continue;
      out[it->second].events.push_back(log.blob(1));
      out[it->second].event_ms.push_back(log.integer(2));
    }
    // A restore's times for the events its clocks resumed from.
    Statement resumed(db_, "SELECT match_id, seq, at_ms FROM clock_from");
    while (resumed.step() == SQLITE_ROW) {
      auto it = at.find(resumed.text(0));
      if (it == at.end()) continue;
      restored_.insert(it->first);
      auto& times = out[it->second].event_ms;
      const std::int64_t seq = resumed.integer(1);
      if (seq >= 1 && static_cast<std::size_t>(seq) <= times.size()) {
        times[static_cast<std::size_t>(seq - 1)] = resumed.integer(2);
      }
    }
    return out;
  }

  std::int64_t last_alive_ms() override {
    std::lock_guard lock(mutex_);
    return integer("SELECT at_ms FROM alive WHERE id = 1");
  }

  // A reader of its own (a database file in WAL mode only):
  // in WAL a reader sees the last commit and never waits for the writer.
  bool read_elsewhere(const std::string& path) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) !=
        SQLITE_OK) {
      sqlite3_close(db);
      return false;
    }
    sqlite3_busy_timeout(db, 1000);
    reader_ = db;
    return true;
  }

  std::optional<MatchRecord> load_match(const std::string& id) override {
    if (!reader_) {
      std::lock_guard lock(mutex_);
      return read_match_record(db_, id);
    }
    std::lock_guard lock(reader_mutex_);
    return read_match_record(reader_, id);
  }

  std::optional<std::vector<MatchRecord>> list_games(const std::string& player_id,
                                                     const std::string& viewer,
                                                     const std::optional<GameCursor>& before,
                                                     std::size_t limit) override {
    if (!reader_) {
      std::lock_guard lock(mutex_);
      return read_games(db_, player_id, viewer, before, limit);
    }
    std::lock_guard lock(reader_mutex_);
    return read_games(reader_, player_id, viewer, before, limit);
  }

  std::optional<PlayerRecord> find_player(const std::string& id) override {
    return reading([&](Reads& r) { return read_player(r, id); });
  }

  std::optional<PlayerRecord> find_player_by_token(const std::string& token_hash) override {
    return reading([&](Reads& r) -> std::optional<PlayerRecord> {
      // The first device's token (players_by_token, which leaves out the
      // '' of bots and revoked tokens) or another device's (its key).
      auto id = read_id(r, r.by_token,
                        "SELECT id FROM players WHERE token_hash = ?1 AND token_hash != '' "
                        "UNION ALL SELECT player_id FROM devices WHERE token_hash = ?1 LIMIT 1",
                        token_hash);
      return id ? read_player(r, *id) : std::nullopt;
    });
  }

  std::optional<PlayerRecord> find_account(const std::string& name_key) override {
    return reading([&](Reads& r) -> std::optional<PlayerRecord> {
      auto id =
          read_id(r, r.by_name, "SELECT player_id FROM accounts WHERE name_key = ?", name_key);
      return id ? read_player(r, *id) : std::nullopt;
    });
  }

  LeaderboardPage leaderboard(const std::string& variant, int min_games, std::size_t offset,
                              std::size_t limit) override {
    return reading(
        [&](Reads& r) { return read_leaderboard(r, variant, min_games, offset, limit); });
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
  // Rolls the batch back (what it did to restored_ too) and says why.
  inarow::unexpected<StoreError> failed(std::string why, std::vector<std::string> fenced = {}) {
    exec("ROLLBACK");
    for (const std::string& id : restored_added_)
      restored_.erase(id);
    for (const std::string& id : restored_dropped_)
      restored_.insert(id);
    return inarow::unexpected(StoreError{std::move(why), std::move(fenced)});
  }

  // Whether an op of `generation` on match `id` may write (store.h): it
  // is the stored generation (or 0, never checked); else the match is
  // fenced (noted in fenced_), as when there is no such match; or the read
  // failed. BEGIN IMMEDIATE holds the database's write lock from the
  // batch's start, so nothing can take the match over between this read
  // and the op's write.
  enum class Check { owner, fenced, failed };
  Check check(const std::string& id, std::int64_t generation) {
    if (generation == 0) return Check::owner;
    auto& q = stmt(prepared_.generation, "SELECT generation FROM matches WHERE id = ?");
    q.bind(1, id);
    const int rc = q.step();
    const bool owner = rc == SQLITE_ROW && q.integer(0) == generation;
    q.reset();
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return Check::failed;
    if (owner) return Check::owner;
    fence(id);
    return Check::fenced;
  }
  void fence(const std::string& id) {
    if (std::find(fenced_.begin(), fenced_.end(), id) == fenced_.end()) fenced_.push_back(id);
  }

  // The player and leaderboard reads of one connection, prepared on first
  // use: they run on every sign-in and reconnection.
  struct Reads {
    sqlite3* db = nullptr;
    std::unique_ptr<Statement> begin, commit, player, ratings, account, devices, by_token, by_name,
        ranked_count, ranked_page;
  };

  static Statement& prepared(Reads& r, std::unique_ptr<Statement>& slot, const char* sql) {
    if (!slot) slot = std::make_unique<Statement>(r.db, sql);
    return *slot;
  }

  // Steps `s` through its rows, `row` on each, and resets it (a statement
  // left stepped would hold its read transaction, and the binds' strings,
  // past the read). False on an error.
  template <class Row>
  static bool each_row(Statement& s, Row&& row) {
    struct Reset {
      Statement& s;
      ~Reset() { s.reset(); }
    } reset{s};
    int rc = SQLITE_ROW;
    while ((rc = s.step()) == SQLITE_ROW)
      row(s);
    return rc == SQLITE_DONE;
  }

  // A read of several statements sees one commit: without it a commit
  // between them could tear a player (a device revoked after its token
  // found them). BEGIN is deferred: the first SELECT takes the snapshot.
  class ReadTransaction {
   public:
    explicit ReadTransaction(Reads& r)
        : commit_(prepared(r, r.commit, "COMMIT")), open_(done(prepared(r, r.begin, "BEGIN"))) {}
    ~ReadTransaction() {
      if (open_) done(commit_);
    }
    ReadTransaction(const ReadTransaction&) = delete;
    ReadTransaction& operator=(const ReadTransaction&) = delete;

   private:
    Statement& commit_;
    bool open_;
  };

  // Runs `read` on the reading connection under its mutex, in one read
  // transaction: the reader of its own if there is one (a commit never
  // holds it up), else the writer's, between batches.
  template <class Read>
  std::invoke_result_t<Read&, Reads&> reading(Read&& read) {
    if (!reader_) {
      std::lock_guard lock(mutex_);
      writer_reads_.db = db_;
      ReadTransaction snapshot(writer_reads_);
      return read(writer_reads_);
    }
    std::lock_guard lock(reader_mutex_);
    reader_reads_.db = reader_;
    ReadTransaction snapshot(reader_reads_);
    return read(reader_reads_);
  }

  // The player id the one-column query `sql` finds for `key`, if any.
  static std::optional<std::string> read_id(Reads& r, std::unique_ptr<Statement>& slot,
                                            const char* sql, const std::string& key) {
    Statement& q = prepared(r, slot, sql);
    q.bind(1, key);
    std::optional<std::string> id;
    if (!each_row(q, [&](const Statement& row) { id = row.text(0); })) return std::nullopt;
    return id;
  }

  // One player, whole, by id: four lookups by key.
  static std::optional<PlayerRecord> read_player(Reads& r, const std::string& id) {
    std::optional<PlayerRecord> p;
    Statement& player =
        prepared(r, r.player, "SELECT name, token_hash, bot FROM players WHERE id = ?");
    player.bind(1, id);
    const bool found = each_row(player, [&](const Statement& q) {
      p.emplace();
      p->id = id;
      p->name = q.text(0);
      p->token_hash = q.text(1);
      p->bot = q.integer(2) != 0;
    });
    if (!found || !p) return std::nullopt;
    Statement& ratings = prepared(r, r.ratings,
                                  "SELECT variant, rating, deviation, volatility, games FROM "
                                  "ratings WHERE player_id = ?");
    ratings.bind(1, id);
    const bool rated = each_row(ratings, [&](const Statement& q) {
      p->ratings[q.text(0)] = Rating{q.real(1), q.real(2), q.real(3)};
      // A variant without a game has no count (as before schema 6).
      if (const auto games = static_cast<int>(q.integer(4)); games > 0) p->games[q.text(0)] = games;
    });
    Statement& account =
        prepared(r, r.account,
                 "SELECT name_key, password_hash, created_ms FROM accounts WHERE player_id = ?");
    account.bind(1, id);
    const bool has_account = each_row(account, [&](const Statement& q) {
      p->name_key = q.text(0);
      p->password_hash = q.text(1);
      p->account_since_ms = q.integer(2);
    });
    Statement& devices = prepared(
        r, r.devices, "SELECT token_hash FROM devices WHERE player_id = ? ORDER BY created_ms");
    devices.bind(1, id);
    const bool has_devices =
        each_row(devices, [&](const Statement& q) { p->device_token_hashes.push_back(q.text(0)); });
    if (!rated || !has_account || !has_devices) return std::nullopt;
    return p;
  }

  // A page of a variant's leaderboard: the page's players from the rank
  // index alone (an offset skips index entries, not rows), then their
  // rows and names; the count from the index too. Every rating has its
  // player (the rating book rates players it has stored), so counting the
  // ratings counts the players; one without would be listed without a name.
  static LeaderboardPage read_leaderboard(Reads& r, const std::string& variant, int min_games,
                                          std::size_t offset, std::size_t limit) {
    constexpr auto kMax = static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max());
    LeaderboardPage page;
    Statement& count = prepared(r, r.ranked_count,
                                "SELECT COUNT(*) FROM ratings WHERE variant = ? AND games >= ?");
    count.bind(1, variant).bind(2, std::int64_t{min_games});
    if (!each_row(count, [&](const Statement& q) {
          page.total = static_cast<std::size_t>(q.integer(0));
        })) {
      return {};
    }
    if (limit == 0 || offset >= page.total) return page;
    Statement& ranked = prepared(
        r, r.ranked_page,
        "SELECT top.player_id, p.name, p.bot, r.rating, r.deviation, r.volatility, r.games "
        "FROM (SELECT player_id, rating, games FROM ratings WHERE variant = ?1 AND games >= ?2 "
        "ORDER BY rating DESC, games DESC, player_id LIMIT ?3 OFFSET ?4) AS top "
        "JOIN ratings r ON r.player_id = top.player_id AND r.variant = ?1 "
        "LEFT JOIN players p ON p.id = top.player_id "
        "ORDER BY top.rating DESC, top.games DESC, top.player_id");
    ranked.bind(1, variant).bind(2, std::int64_t{min_games});
    ranked.bind(3, static_cast<std::int64_t>(std::min(limit, kMax)));
    ranked.bind(4, static_cast<std::int64_t>(std::min(offset, kMax)));
    if (!each_row(ranked, [&](const Statement& q) {
          page.entries.push_back(RankedPlayer{q.text(0), q.text(1), q.integer(2) != 0,
                                              Rating{q.real(3), q.real(4), q.real(5)},
                                              static_cast<int>(q.integer(6))});
        })) {
      return {};
    }
    return page;
  }

  // One match from the given connection (the caller holds its mutex).
  static std::optional<MatchRecord> read_match_record(sqlite3* db, const std::string& id) {
    Statement q(db, (kSelectGames + " WHERE m.id = ?").c_str());
    q.bind(1, id);
    if (q.step() != SQLITE_ROW) return std::nullopt;
    MatchRecord m = read_match(q);
    read_game(q, m);
    if (m.result == 0) {
      Statement log(db, "SELECT blob FROM log WHERE id >= ? AND match_id = ? ORDER BY id");
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
    Statement moves(db,
                    "SELECT ply, move, first_ms, second_ms FROM moves WHERE match_id = ? ORDER BY "
                    "ply");
    moves.bind(1, id);
    while (moves.step() == SQLITE_ROW) {
      m.moves.push_back(MoveRecord{static_cast<int>(moves.integer(0)), moves.text(1),
                                   moves.integer(2), moves.integer(3)});
    }
    return m;
  }

  // A player's finished games on one seat that the viewer may see, newest
  // first, before the cursor (each seat's index gives them in order); the
  // two seats merged.
  static std::optional<std::vector<MatchRecord>> read_games(sqlite3* db,
                                                            const std::string& player_id,
                                                            const std::string& viewer,
                                                            const std::optional<GameCursor>& before,
                                                            std::size_t limit) {
    {
      Statement known(db, "SELECT 1 FROM players WHERE id = ?");
      known.bind(1, player_id);
      if (known.step() != SQLITE_ROW) return std::nullopt;
    }
    std::vector<MatchRecord> out;
    for (const char* seat : {"m.first_id", "m.second_id"}) {
      // visible_to in SQL: a private game only when the viewer (not empty)
      // played in it.
      Statement q(db, (kSelectGames + " WHERE " + seat +
                       " = ?1 AND m.result != 0 AND (m.ended_ms, m.id) < (?2, ?3) "
                       "AND (m.kind != ?5 OR (?6 != '' AND ?6 IN (m.first_id, m.second_id))) "
                       "ORDER BY m.ended_ms DESC, m.id DESC LIMIT ?4")
                          .c_str());
      const std::string after_all;  // every id sorts after "" at the top end time
      q.bind(1, player_id);
      q.bind(2, before ? before->ended_ms : std::numeric_limits<std::int64_t>::max());
      q.bind(3, before ? before->id : after_all);
      q.bind(4, static_cast<std::int64_t>(limit));
      q.bind(5, static_cast<std::int64_t>(kPrivateMatchKind));
      q.bind(6, viewer);
      while (q.step() == SQLITE_ROW) {
        MatchRecord m = read_match(q);
        read_game(q, m);
        if (q.type(kRecordColumn) != SQLITE_NULL) {
          m.plies = sqlite::record_plies(q.text(kRecordColumn));
        } else {  // finished under schema 2 or earlier
          Statement n(db, "SELECT COUNT(*) FROM moves WHERE match_id = ?");
          n.bind(1, m.id);
          m.plies = n.step() == SQLITE_ROW ? static_cast<int>(n.integer(0)) : 0;
        }
        out.push_back(std::move(m));
      }
    }
    store_sql::merge_seat_pages(out, limit);
    return out;
  }

  // The history's columns of a row of kSelectGames.
  static void read_game(const Statement& q, MatchRecord& m) {
    constexpr int r = kRatingsColumn;
    if (q.type(r) != SQLITE_NULL) {
      m.ratings.emplace();
      for (int s = 0; s < 2; ++s) {
        RatingDelta& d = (*m.ratings)[s];
        d.before.rating = q.real(r + 4 * s);
        d.before.deviation = q.real(r + 4 * s + 1);
        d.after.rating = q.real(r + 4 * s + 2);
        d.after.deviation = q.real(r + 4 * s + 3);
        d.before.volatility = d.after.volatility = 0;  // not kept
      }
    }
    m.first_name = q.text(r + 8);
    m.first_bot = q.integer(r + 9) != 0;
    m.second_name = q.text(r + 10);
    m.second_bot = q.integer(r + 11) != 0;
  }

  static inline const std::string kSelectMatches =
      std::string("SELECT ") + kMatchColumnList + ", record FROM matches";
  // Finished games with their ratings and players (store_sql.h).
  static inline const std::string kSelectGames = store_sql::select_games("");

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
    m.generation = q.integer(store_sql::kGenerationColumn);
    return m;
  }

  static bool done(Statement& s) {
    const bool ok = s.step() == SQLITE_DONE;
    s.reset();
    return ok;
  }

  bool apply(const store_op::SavePlayer& op) {
    auto& s = stmt(prepared_.save_player,
                   "INSERT INTO players (id, name, token_hash, bot) VALUES (?, ?, ?, ?) "
                   "ON CONFLICT(id) DO UPDATE SET name = excluded.name, "
                   "token_hash = excluded.token_hash");
    s.bind(1, op.player.id).bind(2, op.player.name).bind(3, op.player.token_hash);
    s.bind(4, std::int64_t{op.player.bot});
    return done(s);
  }
  bool apply(const store_op::SaveRating& op) {
    auto& s = stmt(prepared_.save_rating,
                   "INSERT OR REPLACE INTO ratings (player_id, variant, rating, deviation, "
                   "volatility, games) VALUES (?, ?, ?, ?, ?, ?)");
    s.bind(1, op.player_id).bind(2, op.variant).bind(3, op.rating.rating);
    s.bind(4, op.rating.deviation).bind(5, op.rating.volatility).bind(6, std::int64_t{op.games});
    return done(s);
  }
  bool apply(const store_op::CreateMatch& op) {
    const MatchRecord& m = op.match;
    // The match's events are the log rows from here on.
    auto& s = stmt(prepared_.create_match,
                   "INSERT INTO matches (id, variant, kind, rated, initial_ms, increment_ms, "
                   "first_id, second_id, first_level, second_level, created_ms, generation, "
                   "log_from) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                   "(SELECT COALESCE(MAX(id), 0) + 1 FROM log))");
    s.bind(1, m.id).bind(2, m.variant).bind(3, std::int64_t{m.kind});
    s.bind(4, std::int64_t{m.rated}).bind(5, m.initial_ms).bind(6, m.increment_ms);
    s.bind(7, m.first_id).bind(8, m.second_id).bind(9, m.first_level).bind(10, m.second_level);
    s.bind(11, m.created_ms).bind(12, m.generation);
    return done(s);
  }
  bool apply(const store_op::AppendEvent& op) {
    // A fenced op writes nothing and the batch goes on, to name every
    // fenced match; it fails at the end.
    if (const Check c = check(op.match_id, op.generation); c != Check::owner) {
      return c == Check::fenced;
    }
    auto& s = stmt(prepared_.append_event,
                   "INSERT INTO log (match_id, seq, blob, at_ms) VALUES (?, ?, ?, ?)");
    s.bind(1, op.match_id).bind(2, static_cast<std::int64_t>(op.seq)).bind_blob(3, op.blob);
    s.bind(4, op.at_ms);
    return done(s);
  }
  bool apply(const store_op::Alive& op) {
    auto& s = stmt(prepared_.alive, "INSERT OR REPLACE INTO alive (id, at_ms) VALUES (1, ?)");
    s.bind(1, op.at_ms);
    return done(s);
  }
  bool apply(const store_op::ClockFrom& op) {
    if (const Check c = check(op.match_id, op.generation); c != Check::owner) {
      return c == Check::fenced;
    }
    auto& s = stmt(prepared_.clock_from,
                   "INSERT OR REPLACE INTO clock_from (match_id, seq, at_ms) VALUES (?, ?, ?)");
    s.bind(1, op.match_id).bind(2, static_cast<std::int64_t>(op.seq)).bind(3, op.at_ms);
    if (!done(s)) return false;
    if (restored_.insert(op.match_id).second) restored_added_.push_back(op.match_id);
    return true;
  }
  bool apply(const store_op::TakeOver& op) {
    // Raised only above the stored generation: else nothing changes, and
    // the match is fenced (as it is when there is no such match).
    auto& s = stmt(prepared_.take_over,
                   "UPDATE matches SET generation = ?2 WHERE id = ?1 AND generation < ?2");
    s.bind(1, op.match_id).bind(2, op.generation);
    if (!done(s)) return false;
    if (sqlite3_changes(db_) != 1) fence(op.match_id);
    return true;
  }
  bool apply(const store_op::FinishMatch& op) {
    if (const Check c = check(op.match_id, op.generation); c != Check::owner) {
      return c == Check::fenced;
    }
    // One write, on the match's row: its result and its record, and the
    // players in the sides they finished with (an UPDATE reads the old row
    // on the right, so the two columns swap).
    auto& s = stmt(prepared_.finish_match,
                   "UPDATE matches SET result = ?, reason = ?, ended_ms = ?, record = ?, "
                   "first_rating_before = ?, first_rd_before = ?, first_rating_after = ?, "
                   "first_rd_after = ?, second_rating_before = ?, second_rd_before = ?, "
                   "second_rating_after = ?, second_rd_after = ?, "
                   "first_id = CASE WHEN ?13 THEN second_id ELSE first_id END, "
                   "second_id = CASE WHEN ?13 THEN first_id ELSE second_id END, "
                   "first_level = CASE WHEN ?13 THEN second_level ELSE first_level END, "
                   "second_level = CASE WHEN ?13 THEN first_level ELSE second_level END "
                   "WHERE id = ?14");
    record_text_.clear();
    encode_record(op.moves, record_text_);
    s.bind(1, std::int64_t{op.result}).bind(2, std::int64_t{op.reason}).bind(3, op.ended_ms);
    s.bind(4, record_text_);
    if (op.ratings) {  // unbound: NULL
      for (int side = 0; side < 2; ++side) {
        const RatingDelta& d = (*op.ratings)[side];
        s.bind(5 + 4 * side, d.before.rating).bind(6 + 4 * side, d.before.deviation);
        s.bind(7 + 4 * side, d.after.rating).bind(8 + 4 * side, d.after.deviation);
      }
    }
    s.bind(13, std::int64_t{op.swapped});
    s.bind(14, op.match_id);
    if (!done(s)) return false;
    if (restored_.erase(op.match_id) != 0) {
      restored_dropped_.push_back(op.match_id);
      // Its restore's time is no longer needed (a row only for a match
      // that was restored: the hot path pays nothing).
      auto& d = stmt(prepared_.drop_clock_from, "DELETE FROM clock_from WHERE match_id = ?");
      d.bind(1, op.match_id);
      if (!done(d)) return false;
    }
    finished_ = true;
    return true;
  }

  bool apply(const store_op::SaveAccount& op) {
    auto& s = stmt(prepared_.save_account,
                   "INSERT INTO accounts (player_id, name_key, password_hash, created_ms) "
                   "VALUES (?, ?, ?, ?) ON CONFLICT(player_id) DO UPDATE SET "
                   "name_key = excluded.name_key, password_hash = excluded.password_hash");
    s.bind(1, op.player_id).bind(2, op.name_key).bind(3, op.password_hash).bind(4, op.created_ms);
    return done(s);
  }
  bool apply(const store_op::AddDevice& op) {
    auto& s = stmt(prepared_.add_device,
                   "INSERT INTO devices (token_hash, player_id, created_ms) VALUES (?, ?, ?)");
    s.bind(1, op.token_hash).bind(2, op.player_id).bind(3, op.created_ms);
    return done(s);
  }

  bool apply(const store_op::RevokeDevices& op) {
    auto& devices = stmt(prepared_.revoke_devices,
                         "DELETE FROM devices WHERE player_id = ? AND token_hash <> ?");
    devices.bind(1, op.player_id).bind(2, op.keep_token_hash);
    if (!done(devices)) return false;
    auto& first = stmt(prepared_.revoke_first_token,
                       "UPDATE players SET token_hash = '' WHERE id = ? AND token_hash <> ?");
    first.bind(1, op.player_id).bind(2, op.keep_token_hash);
    return done(first);
  }

  Statement& stmt(std::unique_ptr<Statement>& slot, const char* sql) {
    if (!slot) slot = std::make_unique<Statement>(db_, sql);
    return *slot;
  }

  sqlite3* db_;
  std::mutex mutex_;
  sqlite3* reader_ = nullptr;  // read-only, for every read but a restore's; null for ":memory:"
  std::mutex reader_mutex_;
  Reads writer_reads_;  // on db_, under mutex_ (no reader_)
  Reads reader_reads_;  // on reader_, under reader_mutex_
  std::unique_ptr<Checkpointer> checkpointer_;
  std::chrono::milliseconds prune_every_;
  bool finished_ = false;  // this batch ended a match
  std::chrono::steady_clock::time_point last_prune_{};
  // Prepared once, on first use (the batch's BEGIN and COMMIT too: parsing
  // them showed in the writer's profile).
  // In one struct, so that the close finalizes every one of them, however
  // many there come to be.
  struct Prepared {
    std::unique_ptr<Statement> begin, commit, save_player, save_rating, create_match, append_event,
        finish_match, prune_log, alive, clock_from, drop_clock_from, save_account, add_device,
        revoke_devices, revoke_first_token, generation, take_over;
  };
  Prepared prepared_;
  // Matches with a clock_from row (written by this process or found by
  // load_unfinished), and this batch's changes to them (undone with it).
  std::unordered_set<std::string> restored_;
  std::vector<std::string> restored_added_, restored_dropped_;
  std::vector<std::string> fenced_;  // this batch's fenced matches, in order
  std::string record_text_;          // FinishMatch's record, encoded (reused)
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
  const bool schema1 = has_table("events");
  const bool schema2 =
      has_table("matches") &&
      !store->integer("SELECT COUNT(*) FROM pragma_table_info('matches') WHERE name = 'record'");
  const bool log_without_time =
      has_table("log") &&
      !store->integer("SELECT COUNT(*) FROM pragma_table_info('log') WHERE name = 'at_ms'");
  const bool matches_without_ratings =
      has_table("matches") && !schema2 &&
      !store->integer(
          "SELECT COUNT(*) FROM pragma_table_info('matches') WHERE name = 'first_rating_before'");
  const bool ratings_without_games =
      has_table("ratings") &&
      !store->integer("SELECT COUNT(*) FROM pragma_table_info('ratings') WHERE name = 'games'");
  const bool matches_without_generation =
      has_table("matches") && !schema2 &&
      !store->integer(
          "SELECT COUNT(*) FROM pragma_table_info('matches') WHERE name = 'generation'");
  const std::string setup =
      sqlite::setup_script(schema1, schema2, log_without_time, matches_without_ratings,
                           ratings_without_games, matches_without_generation);
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
  if (path != ":memory:" && !path.empty() && !store->read_elsewhere(path)) {
    return failed("open a reader for");
  }
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace inarow::server
