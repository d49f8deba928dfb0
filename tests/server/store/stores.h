// The stores the typed store tests run over, each made fresh for a test:
// SQLite on a file (its own reader), SQLite in memory (the writer's
// connection) and the in-memory store. The PostgreSQL store's is in
// conformance_test.cpp (it needs a cluster: postgres_cluster.h).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "inarow/server/memory_store.h"
#include "inarow/server/sqlite_store.h"

namespace inarow::server::testing {

// A store file's path under the temp dir, unique in this process, with no
// file (nor WAL) there yet.
inline std::filesystem::path temp_db(const std::string& name) {
  static int n = 0;
  auto path = std::filesystem::temp_directory_path() /
              (name + "-" + std::to_string(::getpid()) + "-" + std::to_string(++n) + ".db");
  for (const char* suffix : {"", "-wal", "-shm"})
    std::filesystem::remove(path.string() + suffix);
  return path;
}

// A store opened by a call that may fail: the failure is the test's.
class OpenedStore {
 public:
  bool ok() const { return store_ != nullptr; }
  Store& store() { return *store_; }

 protected:
  void take(inarow::expected<std::unique_ptr<Store>, std::string> opened) {
    EXPECT_TRUE(opened) << (opened ? "" : opened.error());
    if (opened) store_ = std::move(*opened);
  }
  std::unique_ptr<Store> store_;
};

class SqliteFileStore : public OpenedStore {
 public:
  // Whether the store rolls a failed batch back whole (and keeps name keys
  // unique): a real database does, the in-memory store does not.
  static constexpr bool kTransactional = true;
  static constexpr const char* kName = "SqliteFile";
  SqliteFileStore() : path_(temp_db("inarow-store")) {
    take(open_sqlite_store(path_.string(), SqliteOptions{.full_sync = false}));
  }
  ~SqliteFileStore() {
    store_.reset();
    for (const char* suffix : {"", "-wal", "-shm"})
      std::filesystem::remove(path_.string() + suffix);
  }

 private:
  std::filesystem::path path_;
};

class SqliteMemoryStore : public OpenedStore {
 public:
  static constexpr bool kTransactional = true;
  static constexpr const char* kName = "SqliteMemory";
  SqliteMemoryStore() { take(open_sqlite_store(":memory:")); }
};

class InMemoryStore {
 public:
  static constexpr bool kTransactional = false;
  static constexpr const char* kName = "MemoryStore";
  bool ok() const { return true; }
  Store& store() { return store_; }

 private:
  MemoryStore store_;
};

// Names the typed tests by their store.
class StoreNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return T::kName;
  }
};

}  // namespace inarow::server::testing
