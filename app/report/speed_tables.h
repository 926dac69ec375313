#pragma once
/// \file app/report/speed_tables.h
/// report.md's speed sections: per method the timed cells with their spread and the ratio to
/// the paper; shaders against CUDA on one GPU; every paper setting against the paper's Mde/s.

#include <nlohmann/json.hpp>

#include <ostream>

namespace stereo::report {

/// "## Speed": a table per method with speed rows.
void speed_section(std::ostream& md, const nlohmann::json& doc);

/// "## Shaders against CUDA": for every method with a `cuda` backend and at least one `gl*`
/// backend, their Mde/s side by side per timed input; nothing where no method has both.
void shader_section(std::ostream& md, const nlohmann::json& doc);

/// "## Against the papers' speed figures": every ok speed row the paper gives an Mde/s for.
void paper_speed_section(std::ostream& md, const nlohmann::json& doc);

}  // namespace stereo::report
