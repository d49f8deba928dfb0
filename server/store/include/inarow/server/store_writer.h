// StoreWriter puts a Store behind one thread and commits whatever queued up
// while the last commit ran as one transaction (group commit); a submitter's
// callback runs once its ops are durable, and only then may anyone be told.
//
// A batch the store refuses because some of its matches were fenced (their
// owner is now another node: store.h) is committed again at once without
// the jobs that touch those matches, which are told they were fenced; the
// other jobs are not held up by them.
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
  // ok: durable. failed: not written (the store failed). fenced: not
  // written, and never will be: one of the job's matches has a newer owner.
  enum class Outcome { ok, failed, fenced };
  using Done = std::function<void(Outcome)>;
  // Called after every transaction with its duration in seconds, its op
  // count and whether the store worked: a batch refused only because some
  // of its matches were fenced is not a failure (the rest follows at once).
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
  // Writes `ops` (the batch's jobs' ops in order, each job's end in
  // `ends`, then the heartbeat's), again without the jobs that touch a
  // fenced match as long as some are: each job's outcome in `outcomes`
  // (all ok when called).
  void commit(std::vector<StoreOp>& ops, std::vector<std::size_t>& ends,
              std::vector<Outcome>& outcomes);

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
