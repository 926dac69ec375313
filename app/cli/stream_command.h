#pragma once
/// \file app/cli/stream_command.h
/// `stereo stream LEFT_DIR RIGHT_DIR -m METHOD -b BACKEND -d LEVELS --out DIR`: a method
/// over an image sequence through Matcher::match_sequence (docs/streaming.md; docs/commands.md "stream").

#include <CLI/CLI.hpp>

namespace stereo::cli {

void add_stream_command(CLI::App& app);

}  // namespace stereo::cli
