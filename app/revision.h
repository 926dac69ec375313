#pragma once
/// \file app/revision.h
/// The source revision the binary was built from, for every result a run writes (results.json,
/// `--json`, the bench header), so a number can be traced to its code.

#include <string>

namespace stereo {

/// `git describe --always --dirty` of the source tree at build time (a commit hash, "-dirty"
/// when tracked files differed from it), or "unknown" when the tree was no git checkout.
std::string source_revision();

}  // namespace stereo
