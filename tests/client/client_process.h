// The console client as a process for tests: `inarow` with its standard
// input and output on pipes (inarow::testing::ChildProcess), and the
// key=value fields of the lines it prints.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "inarow/testing/process.h"
#include "inarow/testing/temp_dir.h"

namespace inarow::client::testing {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using inarow::testing::ServerProcess;
using inarow::testing::TempDir;

class ClientProcess : public inarow::testing::ChildProcess {
 public:
  ClientProcess(const std::string& url, const std::string& name, const fs::path& config_dir,
                std::vector<std::string> extra_args = {});
};

// key=value fields of a client line; values unquoted.
std::optional<std::string> field(const std::string& line, const std::string& key);

// The next line the client prints that starts with `prefix`; empty, and a
// failure that shows the transcript, if none comes.
inline std::string expect_line(ClientProcess& c, const std::string& prefix) {
  auto line = c.expect(prefix);
  EXPECT_TRUE(line) << "no '" << prefix << "' line; transcript:\n" << c.transcript();
  return line.value_or("");
}

// A test's own folder of client configurations: config("ada") is ada's.
class ClientConfigs : public ::testing::Test {
 protected:
  TempDir dir_;
  fs::path config(const std::string& who) { return dir_.path() / who; }
};

}  // namespace inarow::client::testing
