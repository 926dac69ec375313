#include "core/gpu_select.h"

#include <cerrno>
#include <cstdlib>

#include "core/error.h"

namespace stereo {

std::optional<int> parse_gpu_ordinal(const std::string& text) {
  if (text.empty()) return std::nullopt;
  // Digits only: strtol alone would accept " 1", "+1", "1x" and "-0".
  bool digits = text.size() <= 9;
  for (const char c : text) digits = digits && c >= '0' && c <= '9';
  if (!digits)
    throw Error(std::string(GPU_ENV) + "=" + text +
                " is not a GPU ordinal (a non-negative integer such as 0; --device N sets it)");
  return static_cast<int>(std::strtol(text.c_str(), nullptr, 10));
}

std::optional<int> requested_gpu() {
  const char* value = std::getenv(GPU_ENV);
  return value ? parse_gpu_ordinal(value) : std::nullopt;
}

std::string format_gpu_uuid(const std::array<std::uint8_t, 16>& bytes) {
  static const char* const HEX = "0123456789abcdef";
  std::string text = "GPU-";
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    text += HEX[bytes[i] >> 4];
    text += HEX[bytes[i] & 0xFu];
  }
  return text;
}

void request_gpu(int ordinal) {
  require(ordinal >= 0, "--device: the GPU ordinal must be >= 0, got " + std::to_string(ordinal),
          ErrorKind::invalid_argument);
  // POSIX setenv: the CLI calls this while parsing, before any thread or matcher exists.
  if (setenv(GPU_ENV, std::to_string(ordinal).c_str(), 1) != 0)
    throw Error(std::string("--device: cannot set ") + GPU_ENV + " (errno " + std::to_string(errno) + ")");
}

}  // namespace stereo
