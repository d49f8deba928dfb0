// The pbrain protocol, brain side: any bytes, cut into lines, fed to one
// PbrainSession as a Gomocup manager would send them. The brain must answer
// or refuse every line without crashing. The brain plays random moves and
// answers at once: the protocol is under test here, not the search (a
// searching bot, even at depth 1, made it 50 inputs a second).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "inarow/bots/pbrain_session.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  inarow::bots::PbrainOptions options;
  options.bot.random = true;
  options.min_answer = std::chrono::milliseconds(0);
  inarow::bots::PbrainSession session(options);
  std::ostringstream out;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  while (!text.empty()) {
    const auto end = text.find('\n');
    if (!session.handle(text.substr(0, end), out)) break;
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return 0;
}
