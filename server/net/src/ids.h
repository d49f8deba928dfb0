// Ids and tokens: match ids that begin with their creation time, player
// ids, bots' ids by level, and players' tokens (kept only as hashes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace inarow::server {

// `bytes` random bytes in hex.
std::string random_hex(std::size_t bytes);
// Hex SHA-1 of a token: what the store keeps instead of the token.
std::string hash_token(const std::string& token);
std::string bot_id(std::string_view level);
std::string new_player_id();
std::string new_token();
// Ids begin with the time, so the store files new matches at its tables'
// right edge; the random rest keeps them unguessable.
std::string new_match_id();

}  // namespace inarow::server
