#include "inarow/testing/temp_dir.h"

#include <unistd.h>

#include <fstream>
#include <random>
#include <string>

namespace inarow::testing {

TempDir::TempDir() {
  std::random_device rd;
  path_ = fs::temp_directory_path() /
          ("inarow-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
  fs::create_directories(path_);
}

fs::path TempDir::write(std::string_view name, std::string_view text) const {
  const fs::path file = path_ / name;
  std::ofstream(file, std::ios::binary) << text;
  return file;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace inarow::testing
