// The pbrain protocol, brain side: any bytes, cut into lines, fed to one
// PbrainSession as a Gomocup manager would send them. The brain must answer
// or refuse every line without crashing; it searches to depth 1 so that a
// BEGIN or TURN costs microseconds, not the 30 ms a real manager is given.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "inarow/bots/pbrain_session.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  inarow::bots::PbrainOptions options;
  options.bot.level.depth = 1;
  options.bot.level.time_ms = 0;
  options.bot.level.solve_small = false;
  options.bot.tt_megabytes = 1;
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
