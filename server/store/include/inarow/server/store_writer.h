// StoreWriter puts a Store behind one thread and commits whatever queued up
// while the last commit ran as one transaction (group commit); a submitter's
// callback runs once its ops are durable, and only then may anyone be told.
#pragma once

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
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::vector<Job> queue_;  // swapped with the writer's batch: both keep their capacity
  bool busy_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace inarow::server
