// A fresh directory under the system's temp dir for a test's files.
#pragma once

#include <filesystem>

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

 private:
  fs::path path_;
};

}  // namespace inarow::testing
