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

void Checkpointer::wal_grew(int pages) {
  if (pages < kPassivePages) return;
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
    int wal_pages = 0, copied = 0;
    sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &wal_pages, &copied);
    if (wal_pages >= kRestartPages) {
      sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_RESTART, &wal_pages, &copied);
    }
    lock.lock();
  }
}

}  // namespace inarow::server::sqlite
