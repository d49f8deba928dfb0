#include "inarow/testing/temp_dir.h"

#include <unistd.h>

#include <random>
#include <string>

namespace inarow::testing {

TempDir::TempDir() {
  std::random_device rd;
  path_ = fs::temp_directory_path() /
          ("inarow-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace inarow::testing
