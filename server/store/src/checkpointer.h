// Checkpoints off the commit path. The writer's connection never copies the
// WAL back into the database itself (its WAL hook only reports the WAL's
// size); this thread, with a connection of its own, does it passively while
// commits go on, and when the WAL has grown long anyway it waits for a gap
// between two commits to restart it, so the file stops growing.
#pragma once

#include <sqlite3.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace inarow::server::sqlite {

class Checkpointer {
 public:
  static constexpr int kPassivePages = 1000;  // ~4 MiB of WAL
  static constexpr int kRestartPages = 8000;  // ~32 MiB

  explicit Checkpointer(const std::string& path);
  ~Checkpointer();
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  bool ok() const { return db_ != nullptr; }

  // From the writer's WAL hook, after every commit.
  void wal_grew(int pages);

 private:
  void run();

  sqlite3* db_ = nullptr;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool pending_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace inarow::server::sqlite
