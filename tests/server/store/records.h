// Records for the store tests.
#pragma once

#include <string>

#include "inarow/server/store.h"

namespace inarow::server::testing {

// A person (no bot, no ratings, no account) with the given token hash.
inline PlayerRecord person(const std::string& id, const std::string& name,
                           const std::string& token_hash) {
  PlayerRecord p;
  p.id = id;
  p.name = name;
  p.token_hash = token_hash;
  return p;
}

// A bot: no token.
inline PlayerRecord bot(const std::string& id, const std::string& name) {
  PlayerRecord p;
  p.id = id;
  p.name = name;
  p.bot = true;
  return p;
}

}  // namespace inarow::server::testing
