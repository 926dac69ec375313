#include <fstream>
#include <string>
#include <thread>

#include "core/matcher.h"

namespace stereo {

std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(colon + 2);
      break;
    }
  }
  return "CPU: " + model + " (" + std::to_string(std::thread::hardware_concurrency()) + " threads)";
}

}  // namespace stereo
