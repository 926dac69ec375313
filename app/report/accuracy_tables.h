#pragma once
/// \file app/report/accuracy_tables.h
/// report.md's accuracy section: per method, each scene's bad pixels beside the paper's
/// figures, and the averages per dataset and backend with ours against the paper's over the
/// scenes where both give a figure.

#include <nlohmann/json.hpp>

#include <ostream>

namespace stereo::report {

/// "## Accuracy" and a table pair per method with accuracy rows.
void accuracy_section(std::ostream& md, const nlohmann::json& doc);

}  // namespace stereo::report
