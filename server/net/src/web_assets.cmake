# Writes web/* into a C++ source as byte arrays, so inarow-server carries its
# browser client. Run as: cmake -DWEB_DIR=<web/> -DOUT=<file.cpp> -P web_assets.cmake
file(GLOB_RECURSE files RELATIVE "${WEB_DIR}" "${WEB_DIR}/*")
list(SORT files)
set(arrays "")
set(entries "")
set(i 0)
foreach(name IN LISTS files)
  file(READ "${WEB_DIR}/${name}" hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR size "${hex_length} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  # A trailing 0 keeps empty files legal arrays; the size leaves it out.
  string(APPEND arrays "const unsigned char f${i}[] = {${bytes}0};\n")
  string(APPEND entries "    {\"${name}\", {reinterpret_cast<const char*>(f${i}), ${size}}},\n")
  math(EXPR i "${i} + 1")
endforeach()
if(i EQUAL 0)
  message(FATAL_ERROR "no files in ${WEB_DIR}")
endif()
file(WRITE "${OUT}" "// Generated from web/ by server/net/src/web_assets.cmake. Do not edit.
#include <span>
#include <string_view>

namespace inarow::server {

struct EmbeddedFile {
  std::string_view name;
  std::string_view bytes;
};

namespace {
${arrays}
const EmbeddedFile files[] = {
${entries}};
}  // namespace

std::span<const EmbeddedFile> embedded_web_files() { return files; }

}  // namespace inarow::server
")
