// The stores the typed store tests run over, each made fresh for a test:
// SQLite on a file (its own reader), SQLite in memory (the writer's
// connection) and the in-memory store. The PostgreSQL store's is in
// conformance_test.cpp (it needs a cluster: postgres_cluster.h).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "inarow/server/memory_store.h"
#include "inarow/server/sqlite_store.h"

namespace inarow::server::testing {

// A store file's path under the temp dir, unique in this process, with no
// file (nor WAL, nor shared memory) there on construction or after
// destruction. Every store and connection on the path must be closed before
// it goes: declare it before them.
class TempDb {
 public:
  explicit TempDb(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              (name + "-" + std::to_string(::getpid()) + "-" + std::to_string(++made_) + ".db")) {
    for (const char* suffix : {"", "-wal", "-shm"})
      std::filesystem::remove(path_.string() + suffix);
  }
  ~TempDb() {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"})
      std::filesystem::remove(path_.string() + suffix, ec);
  }
  TempDb(const TempDb&) = delete;
  TempDb& operator=(const TempDb&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string string() const { return path_.string(); }

 private:
  static inline std::atomic<int> made_{0};
  std::filesystem::path path_;
};

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
  SqliteFileStore() { take(open_sqlite_store(db_.string(), SqliteOptions{.full_sync = false})); }
  // The store (in the base, which outlives db_) closes before its file goes.
  ~SqliteFileStore() { store_.reset(); }

 private:
  TempDb db_{"inarow-store"};
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
