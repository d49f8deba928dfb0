// The Store interface's typed suite (conformance_test.cpp and
// conformance_matches_test.cpp, two files so that the build compiles them on
// both cores): every store made for a test, the fixture and the records the
// tests share. Outside an anonymous namespace: both files' tests must see
// one fixture type per store.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "inarow/server/postgres_store.h"
#include "inarow/server/store_writer.h"
#include "postgres_cluster.h"
#include "records.h"
#include "stores.h"

namespace inarow::server::conformance {

using testing::bot;
using testing::ids_of;
using testing::person;

// The PostgreSQL store on a fresh database of the process's cluster.
class PostgresStoreMade : public testing::OpenedStore {
 public:
  static constexpr bool kTransactional = true;
  static constexpr const char* kName = "Postgres";
  PostgresStoreMade() {
    auto* cluster = inarow::testing::PostgresCluster::shared();
    if (!cluster) {
      ADD_FAILURE() << "no PostgreSQL cluster: "
                    << inarow::testing::PostgresCluster::shared_error();
      return;
    }
    auto db = cluster->create_database();
    if (!db) {
      ADD_FAILURE() << "no database: " << db.error();
      return;
    }
    take(open_postgres_store(*db));
  }
};

template <class Made>
class Conformance : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(made_.ok()) << "the store did not open"; }
  Store& store() { return made_.store(); }
  void write(std::vector<StoreOp> ops) {
    auto ok = store().write(ops);
    ASSERT_TRUE(ok) << ok.error().message;
  }
  // The matches a batch was refused for (StoreError::fenced): the test
  // fails if it committed, or failed for another reason.
  std::vector<std::string> fenced(std::vector<StoreOp> ops) {
    auto written = store().write(ops);
    EXPECT_FALSE(written) << "committed";
    if (written) return {};
    EXPECT_FALSE(written.error().fenced.empty()) << written.error().message;
    return written.error().fenced;
  }
  static constexpr bool kTransactional = Made::kTransactional;

 private:
  Made made_;
};

using Stores = ::testing::Types<testing::SqliteFileStore, testing::SqliteMemoryStore,
                                testing::InMemoryStore, PostgresStoreMade>;
TYPED_TEST_SUITE(Conformance, Stores, testing::StoreNames);

inline MatchRecord match(const std::string& id, const std::string& first, const std::string& second,
                         std::int64_t created_ms) {
  MatchRecord m;
  m.id = id;
  m.variant = "gomoku";
  m.kind = 1;
  m.rated = true;
  m.initial_ms = 300000;
  m.increment_ms = 2000;
  m.first_id = first;
  m.second_id = second;
  m.created_ms = created_ms;
  return m;
}

inline store_op::FinishMatch finish(const std::string& id, std::int64_t ended_ms, int plies,
                                    int result = 1) {
  store_op::FinishMatch f{id, result, 2, ended_ms, {}};
  for (int p = 1; p <= plies; ++p)
    f.moves.push_back(MoveRecord{p, "h" + std::to_string(p), 300000 - 10 * p, 299000 - 7 * p});
  return f;
}

// Blobs are bytes: NULs, high bytes, nothing at all.
inline const std::string kBinaryEvent("\x00\x01\xff\xfe\x80 event\x00", 12);

}  // namespace inarow::server::conformance
