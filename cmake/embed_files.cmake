# Writes files into a C++ source as byte arrays, so a library carries them
# (the server its browser client, the bots their measured ladders). Run as
#   cmake -DDIR=<folder> -DPATTERN=<glob> [-DRECURSE=ON] -DOUT=<file.cpp>
#         -DNAMESPACE=<ns> -DTYPE=<struct> -DFUNCTION=<name>
#         [-DHEADER=<header declaring TYPE>] [-DALLOW_EMPTY=ON]
#         -P embed_files.cmake
# The source defines `std::span<const TYPE> FUNCTION()` in NAMESPACE, one
# entry a file in name order: {name relative to DIR, its bytes}. TYPE is any
# struct of two std::string_views (name, bytes); without HEADER the source
# defines it itself.
foreach(arg DIR PATTERN OUT NAMESPACE TYPE FUNCTION)
  if(NOT DEFINED ${arg})
    message(FATAL_ERROR "embed_files.cmake: -D${arg}= is needed")
  endif()
endforeach()
if(RECURSE)
  file(GLOB_RECURSE files RELATIVE "${DIR}" "${DIR}/${PATTERN}")
else()
  file(GLOB files RELATIVE "${DIR}" "${DIR}/${PATTERN}")
endif()
list(SORT files)
set(arrays "")
set(entries "")
set(i 0)
foreach(name IN LISTS files)
  file(READ "${DIR}/${name}" hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR size "${hex_length} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  # A trailing 0 keeps empty files legal arrays; the size leaves it out.
  string(APPEND arrays "const unsigned char f${i}[] = {${bytes}0};\n")
  string(APPEND entries "    {\"${name}\", {reinterpret_cast<const char*>(f${i}), ${size}}},\n")
  math(EXPR i "${i} + 1")
endforeach()
if(i EQUAL 0)
  if(NOT ALLOW_EMPTY)
    message(FATAL_ERROR "embed_files.cmake: no ${PATTERN} in ${DIR}")
  endif()
  # A zero-length array is not legal: one unused entry, cut off below.
  set(entries "    {{}, {}},\n")
endif()
if(HEADER)
  set(declaration "#include \"${HEADER}\"\n")
  set(definition "")
else()
  set(declaration "")
  set(definition "struct ${TYPE} {\n  std::string_view name;\n  std::string_view bytes;\n};\n\n")
endif()
get_filename_component(folder "${DIR}" NAME)
file(WRITE "${OUT}" "// Generated from ${folder}/${PATTERN} by cmake/embed_files.cmake. Do not edit.
#include <span>
#include <string_view>
${declaration}
namespace ${NAMESPACE} {

${definition}namespace {
${arrays}
const ${TYPE} files[] = {
${entries}};
}  // namespace

std::span<const ${TYPE}> ${FUNCTION}() { return std::span(files, ${i}); }

}  // namespace ${NAMESPACE}
")
