#include "inarow/server/protocol_error.h"

#include "inarow/v1/inarow.pb.h"

namespace inarow::server {

// The enum mirrors the wire's ErrorCode value for value.
static_assert(static_cast<int>(ProtocolError::internal) == inarow::v1::ERROR_INTERNAL);
static_assert(static_cast<int>(ProtocolError::illegal_move) == inarow::v1::ERROR_ILLEGAL_MOVE);
static_assert(static_cast<int>(ProtocolError::too_many_matches) ==
              inarow::v1::ERROR_TOO_MANY_MATCHES);
static_assert(static_cast<int>(ProtocolError::opponent_gone) == inarow::v1::ERROR_OPPONENT_GONE);
static_assert(static_cast<int>(ProtocolError::unknown_player) == inarow::v1::ERROR_UNKNOWN_PLAYER);
static_assert(static_cast<int>(ProtocolError::unknown_seek) == inarow::v1::ERROR_UNKNOWN_SEEK);
static_assert(static_cast<int>(ProtocolError::own_seek) == inarow::v1::ERROR_OWN_SEEK);
static_assert(static_cast<int>(ProtocolError::rate_limited) == inarow::v1::ERROR_RATE_LIMITED);
static_assert(static_cast<int>(ProtocolError::wrong_password) == inarow::v1::ERROR_WRONG_PASSWORD);
static_assert(inarow::v1::ErrorCode_ARRAYSIZE == kProtocolErrorCount);

std::string_view to_string(ProtocolError e) {
  switch (e) {
    case ProtocolError::none:
      return "none";
    case ProtocolError::malformed:
      return "malformed";
    case ProtocolError::unknown_message:
      return "unknown_message";
    case ProtocolError::hello_required:
      return "hello_required";
    case ProtocolError::already_greeted:
      return "already_greeted";
    case ProtocolError::bad_version:
      return "bad_version";
    case ProtocolError::bad_token:
      return "bad_token";
    case ProtocolError::bad_request:
      return "bad_request";
    case ProtocolError::unknown_variant:
      return "unknown_variant";
    case ProtocolError::unknown_level:
      return "unknown_level";
    case ProtocolError::unknown_match:
      return "unknown_match";
    case ProtocolError::unknown_code:
      return "unknown_code";
    case ProtocolError::not_seated:
      return "not_seated";
    case ProtocolError::not_your_turn:
      return "not_your_turn";
    case ProtocolError::illegal_move:
      return "illegal_move";
    case ProtocolError::match_over:
      return "match_over";
    case ProtocolError::no_offer:
      return "no_offer";
    case ProtocolError::already_seeking:
      return "already_seeking";
    case ProtocolError::rate_limited:
      return "rate_limited";
    case ProtocolError::too_many_connections:
      return "too_many_connections";
    case ProtocolError::shutting_down:
      return "shutting_down";
    case ProtocolError::internal:
      return "internal";
    case ProtocolError::too_many_matches:
      return "too_many_matches";
    case ProtocolError::match_not_over:
      return "match_not_over";
    case ProtocolError::rematch_made:
      return "rematch_made";
    case ProtocolError::opponent_gone:
      return "opponent_gone";
    case ProtocolError::bad_cursor:
      return "bad_cursor";
    case ProtocolError::unknown_player:
      return "unknown_player";
    case ProtocolError::wrong_password:
      return "wrong_password";
    case ProtocolError::name_taken:
      return "name_taken";
    case ProtocolError::weak_password:
      return "weak_password";
    case ProtocolError::unknown_seek:
      return "unknown_seek";
    case ProtocolError::own_seek:
      return "own_seek";
  }
  return "unknown";
}

}  // namespace inarow::server
