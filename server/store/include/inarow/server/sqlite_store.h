// The store we ship: SQLite in WAL mode, schema 7 (src/schema.h), with
// checkpoints on a thread of their own (src/checkpointer.h).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "inarow/common/expected.h"
#include "inarow/server/store.h"

namespace inarow::server {

struct SqliteOptions {
  bool full_sync = true;  // fsync every commit (WAL + synchronous=FULL)
  // How often a batch that ends a match also drops finished matches' events.
  std::chrono::milliseconds prune_every{1000};
  // How long a write waits for another connection's lock before it fails.
  std::chrono::milliseconds busy_timeout{5000};
};

// path may be ":memory:". Errors (cannot open, bad schema) are returned.
inarow::expected<std::unique_ptr<Store>, std::string> open_sqlite_store(const std::string& path,
                                                                        SqliteOptions options = {});

}  // namespace inarow::server
