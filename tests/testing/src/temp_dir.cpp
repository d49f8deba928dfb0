#include "inarow/testing/temp_dir.h"

#include <unistd.h>

#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
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
  std::ofstream out(file, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + file.string());
  return file;
}

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace inarow::testing
