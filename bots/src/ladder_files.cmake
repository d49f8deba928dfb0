# Writes the level ladders (bots/weights/*_levels.txt) into a C++ source as
# byte arrays, so the bots library carries what the arena measured. Run as:
# cmake -DWEIGHTS_DIR=<bots/weights/> -DOUT=<file.cpp> -P ladder_files.cmake
file(GLOB files RELATIVE "${WEIGHTS_DIR}" "${WEIGHTS_DIR}/*_levels.txt")
list(SORT files)
set(arrays "")
set(entries "")
set(i 0)
foreach(name IN LISTS files)
  file(READ "${WEIGHTS_DIR}/${name}" hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR size "${hex_length} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  # A trailing 0 keeps empty files legal arrays; the size leaves it out.
  string(APPEND arrays "const unsigned char f${i}[] = {${bytes}0};\n")
  string(APPEND entries "    {\"${name}\", {reinterpret_cast<const char*>(f${i}), ${size}}},\n")
  math(EXPR i "${i} + 1")
endforeach()
# No ladder at all is legal (every variant is then "not measured"), but a
# zero-length array is not: an empty list gets one unused entry, cut off below.
if(i EQUAL 0)
  set(entries "    {{}, {}},\n")
endif()
file(WRITE "${OUT}" "// Generated from bots/weights/*_levels.txt by bots/src/ladder_files.cmake. Do not edit.
#include \"inarow/bots/ladder.h\"

namespace inarow::bots {

namespace {
${arrays}
const LadderFile files[] = {
${entries}};
}  // namespace

std::span<const LadderFile> built_in_ladder_files() { return std::span(files, ${i}); }

}  // namespace inarow::bots
")
