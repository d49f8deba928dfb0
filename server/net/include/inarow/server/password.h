// Passwords: Argon2id hashes (libsodium's crypto_pwhash_str), kept as the
// self-describing string "$argon2id$v=19$m=…,t=…,p=1$salt$hash". Hashing is
// slow and takes `memory` bytes on purpose: call these off the network
// threads (the accounts' hashing pool does).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace inarow::server {

inline constexpr std::size_t kMinPasswordBytes = 8;
inline constexpr std::size_t kMaxPasswordBytes = 128;

// Argon2id's cost: passes over memory, and the memory in bytes.
struct PasswordCost {
  unsigned long long ops = 2;
  std::size_t memory = std::size_t{19} << 20;
};

// The hash string to store, or nullopt when the hash could not be made (out
// of memory, or a cost outside Argon2id's bounds).
std::optional<std::string> hash_password(std::string_view password, PasswordCost cost);
// Whether `password` is the one `stored` was made from (false too for a
// string that is not a hash).
bool verify_password(const std::string& stored, std::string_view password);
// Whether `stored` was made with another algorithm or cost than `cost`
// (worth hashing again after a successful sign-in).
bool password_needs_rehash(const std::string& stored, PasswordCost cost);

}  // namespace inarow::server
