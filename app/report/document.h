#pragma once
/// \file app/report/document.h
/// How the report's parts read a results document (app/report/results_schema.h says what it
/// holds): a field as a number or as text whatever its JSON type, a row's lane, size, device
/// and setting as the report names them, the rows and lanes in the document's order, a metric's
/// mean over a lane's scenes; and how they write a report file. Nothing here names a method,
/// backend or scene.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace stereo::report {

/// j[key] where it is a number; nothing where j is no object or the field is absent or another type.
std::optional<double> num(const nlohmann::json& j, const char* key);

/// j[key] as text: a string as it is, any other value as JSON, null or absent as "".
std::string text(const nlohmann::json& j, const char* key);

/// The row's status is "ok".
bool ok(const nlohmann::json& row);

/// "method/backend".
std::string lane_of(const nlohmann::json& row);

/// "WxH".
std::string size_of(const nlohmann::json& row);

/// The driver: CUDA backends give it as "driver", GL ones inside the context's "version"
/// string ("4.5.0 NVIDIA 580.95.05").
std::string driver_of(const nlohmann::json& device_info);

/// The device a row ran on, with the GPU's UUID and driver where the backend gives them.
std::string device_text(const nlohmann::json& row);

/// A speed row's setting with the parameter overrides it ran with: "paper wavelets=30".
std::string setting_text(const nlohmann::json& row);

/// The rows of `kind` ("accuracy", "speed") of `method` (every method where empty), in order.
std::vector<const nlohmann::json*> rows_where(const nlohmann::json& doc, const std::string& kind,
                                              const std::string& method);

/// Lanes ("method/backend") in the order the document lists its backends.
std::vector<std::string> lanes(const nlohmann::json& doc, const std::string& method = "");

/// An accuracy row's metrics of the map as computed.
inline constexpr const char* FLOAT_METRICS = "metrics";
/// An accuracy row's metrics of the map as its scene format's benchmark received it (the
/// papers' protocol, app/protocol.h); documents from before it have none.
inline constexpr const char* SUBMITTED_METRICS = "metrics_submitted";

/// The document scores its maps as submitted too: an ok accuracy row has SUBMITTED_METRICS.
/// Documents written before `stereo compare` scored both hold float figures only.
bool has_submitted(const nlohmann::json& doc);

/// The mean of a metric (`key` of the row's `field`, FLOAT_METRICS or SUBMITTED_METRICS) over a
/// lane's ok accuracy rows of one dataset, if any has it.
std::optional<double> mean_metric(const std::vector<const nlohmann::json*>& rows, const std::string& lane,
                                  const std::string& dataset, const char* field, const char* key);

/// The datasets of `rows`, in the order they first appear.
std::vector<std::string> datasets_of(const std::vector<const nlohmann::json*>& rows);

/// Writes `content` to `path` atomically; throws stereo::Error naming the file.
void write_text(const std::filesystem::path& path, const std::string& content);

}  // namespace stereo::report
