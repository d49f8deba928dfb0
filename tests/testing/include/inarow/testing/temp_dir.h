// A fresh directory under the system's temp dir for a test's files.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace inarow::testing {

namespace fs = std::filesystem;

// Removed, with everything in it, with the object.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  // Writes `text` to the file `name` in the directory; returns its path.
  // Throws std::runtime_error, naming the file, if the write fails.
  fs::path write(std::string_view name, std::string_view text) const;

 private:
  fs::path path_;
};

// The whole of a file's bytes; empty if it cannot be opened.
std::string read_file(const fs::path& file);

}  // namespace inarow::testing
