// StoreWriter puts a Store behind one thread and commits whatever queued up
// while the last commit ran as one transaction (group commit); a submitter's
// callback runs once its ops are durable, and only then may anyone be told.
//
// With a heartbeat it also writes an Alive op at least that often (riding in
// a batch when there is one, alone when the store is idle): the last time the
// server was known to be alive, up to which a restore charges the player to
// move for the time they used before a crash.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "inarow/server/store.h"

namespace inarow::server {

class StoreWriter {
 public:
  using Done = std::function<void(bool ok)>;
  // Called after every commit with its duration in seconds and its op count.
  using Observer = std::function<void(double seconds, std::size_t ops, bool ok)>;

  explicit StoreWriter(Store& store, Observer observer = {});
  ~StoreWriter();  // writes everything queued, then stops
  StoreWriter(const StoreWriter&) = delete;
  StoreWriter& operator=(const StoreWriter&) = delete;

  void submit(std::vector<StoreOp> ops, Done done = {});
  // From now on write an Alive at least this often (the first at once).
  // Only after a restore has read the last one: a beat before it would
  // pass the downtime off as time the server was alive.
  void heartbeat(std::chrono::milliseconds every);
  // Block until everything submitted so far is written.
  void flush();
  void stop();

 private:
  struct Job {
    std::vector<StoreOp> ops;
    Done done;
  };
  void run();

  Store& store_;
  Observer observer_;
  std::chrono::milliseconds heartbeat_{0};  // 0: none (guarded by mutex_)
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::vector<Job> queue_;  // swapped with the writer's batch: both keep their capacity
  bool busy_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace inarow::server
