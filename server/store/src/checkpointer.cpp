#include "checkpointer.h"

namespace inarow::server::sqlite {

Checkpointer::Checkpointer(const std::string& path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK) {
    sqlite3_close(db_);
    db_ = nullptr;
    return;
  }
  sqlite3_busy_timeout(db_, 1000);
  // A connection that has never read the database does not know it is in WAL
  // mode, and sqlite3_wal_checkpoint_v2 on it does nothing (it answers -1
  // pages, SQLite 3.40): read the schema once so that it opens the WAL.
  sqlite3_exec(db_, "SELECT 1 FROM sqlite_master LIMIT 1", nullptr, nullptr, nullptr);
  thread_ = std::thread([this] { run(); });
}

Checkpointer::~Checkpointer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  sqlite3_close(db_);
}

void Checkpointer::wal_grew(sqlite3* writer, int pages) {
  if (pages < kPassivePages) return;
  if (pages >= kRestartPages) {
    // Between this commit and the next, on the writer's thread: what the
    // passive checkpoints left to copy, then the WAL from its start. SQLite
    // runs one checkpoint at a time and refuses a second at once: wait for
    // a passive one under way.
    int wal_pages = 0, copied = 0;
    std::lock_guard one_at_a_time(checkpointing_);
    sqlite3_wal_checkpoint_v2(writer, nullptr, SQLITE_CHECKPOINT_RESTART, &wal_pages, &copied);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    pending_ = true;
  }
  wake_.notify_one();
}

void Checkpointer::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || pending_; });
    if (stopping_) return;
    pending_ = false;
    lock.unlock();
    {
      std::lock_guard one_at_a_time(checkpointing_);
      int wal_pages = 0, copied = 0;
      sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &wal_pages, &copied);
    }
    lock.lock();
  }
}

}  // namespace inarow::server::sqlite
