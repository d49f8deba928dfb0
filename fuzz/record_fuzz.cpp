// A finished game's record as the matches row keeps it ("<ply> <move>
// <first_ms> <second_ms>" a line): any text decodes to the moves before its
// first bad line, and those moves encode to text that decodes to the same
// moves.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "record_text.h"

namespace {

bool same(const std::vector<inarow::server::MoveRecord>& a,
          const std::vector<inarow::server::MoveRecord>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].ply != b[i].ply || a[i].move != b[i].move || a[i].first_ms != b[i].first_ms ||
        a[i].second_ms != b[i].second_ms)
      return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace inarow::server;
  std::vector<MoveRecord> moves;
  sqlite::decode_record(std::string_view(reinterpret_cast<const char*>(data), size), moves);
  for (const MoveRecord& m : moves)
    if (m.move.empty() || m.move.find_first_of(" \n") != std::string::npos) std::abort();
  std::string text;
  sqlite::encode_record(moves, text);
  std::vector<MoveRecord> again;
  sqlite::decode_record(text, again);
  if (!same(moves, again)) std::abort();
  return 0;
}
