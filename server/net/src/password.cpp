#include "inarow/server/password.h"

#include <sodium.h>

#include <cstdlib>

namespace inarow::server {
namespace {

// sodium_init is safe to call from several threads and more than once; it
// picks the fastest implementations for this CPU.
void init_once() {
  static const bool ready = [] {
    if (sodium_init() < 0) std::abort();  // no usable random source: nothing is safe
    return true;
  }();
  (void)ready;
}

}  // namespace

std::optional<std::string> hash_password(std::string_view password, PasswordCost cost) {
  init_once();
  char out[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str_alg(out, password.data(), password.size(), cost.ops, cost.memory,
                            crypto_pwhash_ALG_ARGON2ID13) != 0) {
    return std::nullopt;
  }
  return std::string(out);
}

bool verify_password(const std::string& stored, std::string_view password) {
  init_once();
  if (stored.empty() || stored.size() >= crypto_pwhash_STRBYTES) return false;
  return crypto_pwhash_str_verify(stored.c_str(), password.data(), password.size()) == 0;
}

bool password_needs_rehash(const std::string& stored, PasswordCost cost) {
  init_once();
  if (stored.size() >= crypto_pwhash_STRBYTES) return true;
  return crypto_pwhash_str_needs_rehash(stored.c_str(), cost.ops, cost.memory) != 0;
}

}  // namespace inarow::server
