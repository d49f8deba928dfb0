// A PostgreSQL store (libpq): for a server whose database is elsewhere, or
// shared with other tools. The same promises as the SQLite store: each
// write is one transaction, durable when it returns (synchronous_commit as
// the server has it, on by default); reads go to connections of their own,
// so a read never waits for a commit. Schema 2 (src/pg_schema.h).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "inarow/common/expected.h"
#include "inarow/server/store.h"

namespace inarow::server {

struct PostgresOptions {
  // Connections for reads (players, leaderboards, game records), beside the
  // writer's: a read takes a free one, or waits for one.
  std::size_t readers = 2;
  // How often a batch that ends a match also drops finished matches' events.
  std::chrono::milliseconds prune_every{1000};
  // How long a connection (or a reconnection) may take before it fails.
  std::chrono::seconds connect_timeout{10};
};

// conninfo: a URI (postgresql://user@host:port/db) or a keyword string
// (host=... port=... dbname=...). Errors (cannot connect, a schema newer
// than ours) are returned, naming the host and port, never the password.
// A connection lost later fails the call that found it lost; the next call
// on that connection connects again.
inarow::expected<std::unique_ptr<Store>, std::string> open_postgres_store(
    const std::string& conninfo, PostgresOptions options = {});

// Where a conninfo points, for logs: "PostgreSQL at HOST port PORT,
// database DB, user USER", never the password.
std::string postgres_store_label(const std::string& conninfo);

}  // namespace inarow::server
