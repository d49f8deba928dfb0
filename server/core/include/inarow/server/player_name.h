// A person's name as the server keeps and shows it: normalised, and refused
// when it cannot be shown safely or would pass for a bot.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "inarow/server/protocol_error.h"

namespace inarow::server {

inline constexpr std::size_t kMaxNameBytes = 32;

// The name to keep for `raw`: white space (Unicode's Zs) trimmed from both
// ends and each inner run of it turned into one ASCII space. Refused with
// ERROR_BAD_REQUEST when `raw` is not UTF-8, holds a control or format
// character (utf8::hidden: C0, DEL, C1, zero-width characters, bidi marks,
// embeddings, overrides and isolates, line and paragraph separators…), is
// empty once trimmed, is over kMaxNameBytes once normalised, or would pass
// for a bot: the word "bot" alone or last ("medium bot", "Random-Bot"),
// which is how the server names its bots. Names are not NFC-normalised:
// that needs Unicode's composition tables; they are kept as sent.
Expected<std::string> check_player_name(std::string_view raw);

// The same normalising and checks but the last: a name to look a player up
// by, the server's bots' names among them.
Expected<std::string> normalise_player_name(std::string_view raw);

// The key two names collide on (an account's name is unique by it): a
// checked name with its letters case-folded. Folds ASCII, Latin-1, Greek
// and Cyrillic capitals to small letters (one code point to one; no full
// Unicode folding such as "ß" to "ss", which needs Unicode's tables).
std::string name_key(std::string_view name);

}  // namespace inarow::server
