// The console client as a process for tests: `inarow` with its standard
// input and output on pipes (inarow::testing::ChildProcess), and the
// key=value fields of the lines it prints.
#pragma once

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

}  // namespace inarow::client::testing
