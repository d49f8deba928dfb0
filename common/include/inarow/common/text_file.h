// A data file's whole text, or a cannot_read error naming it as `what`
// ("weights file", "ladder file", "tactics file").
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "inarow/common/error.h"
#include "inarow/common/expected.h"

namespace inarow {

inline expected<std::string, Error> read_text_file(const std::string& path, const char* what) {
  std::ifstream in(path);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad())
    return unexpected(
        Error{ErrorCode::cannot_read, 0, std::string("cannot read ") + what + " '" + path + "'"});
  return text.str();
}

}  // namespace inarow
