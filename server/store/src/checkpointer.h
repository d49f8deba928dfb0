// Checkpoints off the commit path. The writer's connection never copies the
// WAL back into the database itself (its WAL hook only reports the WAL's
// size); this thread, with a connection of its own, does it passively while
// commits go on. A passive checkpoint that copies every frame lets the next
// commit start the WAL over. When commits come too fast for that and the WAL
// has grown long anyway, the writer itself restarts it after its commit (the
// rest of the copy, then the WAL from its start), so the file stops growing.
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

  // From the writer's WAL hook, after every commit: `pages` are the WAL's.
  void wal_grew(sqlite3* writer, int pages);

 private:
  void run();

  sqlite3* db_ = nullptr;
  std::mutex checkpointing_;  // held for each checkpoint, from either connection
  std::mutex mutex_;
  std::condition_variable wake_;
  bool pending_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace inarow::server::sqlite
