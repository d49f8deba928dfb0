#include "inarow/common/error.h"

namespace inarow {

std::string_view to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::unknown_variant:
      return "unknown_variant";
    case ErrorCode::bad_variant:
      return "bad_variant";
    case ErrorCode::bad_syntax:
      return "bad_syntax";
    case ErrorCode::off_board:
      return "off_board";
    case ErrorCode::occupied:
      return "occupied";
    case ErrorCode::column_full:
      return "column_full";
    case ErrorCode::bad_choice:
      return "bad_choice";
    case ErrorCode::game_over:
      return "game_over";
    case ErrorCode::bad_weights:
      return "bad_weights";
    case ErrorCode::cannot_read:
      return "cannot_read";
    case ErrorCode::cannot_write:
      return "cannot_write";
  }
  return "unknown";
}

std::string Error::describe() const {
  return "at offset " + std::to_string(offset) + ": " + message;
}

}  // namespace inarow
