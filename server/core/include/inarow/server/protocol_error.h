// Protocol errors: what the server answers when a request cannot be carried
// out. One enumerator per wire ErrorCode, in the same order, so converting is
// a cast that a static_assert keeps honest.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "inarow/common/expected.h"

namespace inarow::server {

enum class ProtocolError : std::uint8_t {
  none = 0,
  malformed,
  unknown_message,
  hello_required,
  already_greeted,
  bad_version,
  bad_token,
  bad_request,
  unknown_variant,
  unknown_level,
  unknown_match,
  unknown_code,
  not_seated,
  not_your_turn,
  illegal_move,
  match_over,
  no_offer,
  already_seeking,
  rate_limited,
  too_many_connections,
  shutting_down,
  internal,
  too_many_matches,
  match_not_over,
  rematch_made,
  opponent_gone,
  bad_cursor,
  unknown_player,
  wrong_password,
  name_taken,
  weak_password,
  // 31-35 are unused or spoken for by other wire codes.
  unknown_seek = 36,
  own_seek,
};
// One past the largest code (codes without a name in between are unused).
inline constexpr int kProtocolErrorCount = static_cast<int>(ProtocolError::own_seek) + 1;

std::string_view to_string(ProtocolError e);

// An error with the sentence a person reads.
struct Failure {
  ProtocolError code = ProtocolError::internal;
  std::string message;
};

template <class T>
using Expected = inarow::expected<T, Failure>;

inline inarow::unexpected<Failure> fail_with(ProtocolError code, std::string message) {
  return inarow::unexpected<Failure>(Failure{code, std::move(message)});
}

}  // namespace inarow::server
