#include "ids.h"

#include <fmt/format.h>

#include <boost/uuid/detail/sha1.hpp>
#include <random>

#include "inarow/server/store.h"

namespace inarow::server {

std::string random_hex(std::size_t bytes) {
  static thread_local std::random_device device;
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes; ++i) {
    const auto b = device() & 0xff;
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

std::string hash_token(const std::string& token) {
  boost::uuids::detail::sha1 sha;
  sha.process_bytes(token.data(), token.size());
  boost::uuids::detail::sha1::digest_type digest;
  sha.get_digest(digest);
  std::string out;
  for (unsigned int word : digest)
    out += fmt::format("{:08x}", word);
  return out;
}

std::string bot_id(std::string_view level) {
  return "bot-" + std::string(level);
}

std::string new_player_id() {
  return "p" + random_hex(8);
}

std::string new_token() {
  return random_hex(16);
}

std::string new_match_id() {
  return fmt::format("m{:011x}{}", unix_ms(), random_hex(5));
}

}  // namespace inarow::server
