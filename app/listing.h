#pragma once
/// \file app/listing.h
/// What `stereo list` and `stereo params` print, as text and as JSON, from any registry (the
/// CLI passes builtin_registry(); tests pass one of their own). Scripts read the JSON forms
/// instead of naming methods or backends themselves.

#include <nlohmann/json.hpp>

#include <string>

#include "core/registry.h"

namespace stereo::cli {

/// One backend as `list --json` gives it: "method", "backend", "summary", "available" and
/// "reason" (why it cannot run here; null when it can).
nlohmann::json backend_json(const BackendEntry& e);

/// `list --json`: "methods", each method_json() with its "backends" (backend_json() rows), and
/// "backends", every backend of every method in registration order, so a script picks, say,
/// every method with an available cuda backend from one flat list.
nlohmann::json list_json(const Registry& registry);

/// `list`: per method its title, citation and paper sources, then its backends in fixed
/// columns (method 10, backend 11, available 11, notes) that scripts/demo.sh reads with awk.
std::string list_text(const Registry& registry);

/// A preset as `params --json` lists it and a result on it records it: {"name", "note",
/// "overrides"}, the overrides as "key=value" strings in the preset's order (--set's form).
nlohmann::json preset_json(const ParamPreset& preset);

/// `params -m METHOD --json`: "method", "title", "citation", "params" (the paper's parameters,
/// one "key = default  (doc)" line each, bound by every backend), "presets" (preset_json() of
/// each of the method's presets, `--set preset=NAME`) and "backends", one object per
/// backend with "backend", "available" and "options" (its own knobs, BackendEntry::
/// describe_options, as lines; empty where it has none). Throws stereo::Error naming the known
/// methods for an unknown one.
nlohmann::json params_json(const Registry& registry, const std::string& method);

/// `params -m METHOD`: the paper's parameters once, the presets (name, overrides, note) where the
/// method has any, then under a heading per backend
/// ("salap/gl options") that backend's own options, or "(no options)".
std::string params_text(const Registry& registry, const std::string& method);

}  // namespace stereo::cli
