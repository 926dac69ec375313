# Build-time script (cmake -DSRC=<source dir> -DOUT=<header> -P source_revision.cmake): writes
# the source tree's git revision into OUT as STEREO_SOURCE_REVISION ("unknown" outside a git
# checkout or without git), and rewrites OUT only when it changed, so a build after a commit
# recompiles app/revision.cpp alone. "-dirty" marks uncommitted changes to tracked files.
execute_process(COMMAND git -C "${SRC}" describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE status)
if(NOT status STREQUAL "0" OR revision STREQUAL "")
  set(revision "unknown")
endif()
set(text "// Written by cmake/source_revision.cmake at build time; not in the repository.\n#define STEREO_SOURCE_REVISION \"${revision}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
