#pragma once
/// \file app/report/repeat_section.h
/// report.md's Repeatability section: this run against its "repeat_of" run
/// (app/report/repeatability.h), with the noise rule stated, the cells that differ named, and
/// every speed cell's two medians in a GPU and a host-CPU table.

#include <nlohmann/json.hpp>

#include <ostream>

namespace stereo::report {

/// "## Repeatability" where the document has a "repeat_of" run; nothing otherwise.
void repeat_section(std::ostream& md, const nlohmann::json& doc);

}  // namespace stereo::report
