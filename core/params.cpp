#include "core/params.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/error.h"

namespace stereo {
namespace {

template <class T>
T parse_number(const std::string& component, const std::string& key, const std::string& text) {
  T value{};
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr != last || text.empty())
    throw Error(component + ": parameter " + key + " expects a number, got '" + text + "'", ErrorKind::invalid_argument);
  return value;
}

}  // namespace

std::pair<std::string, std::string> parse_override(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error("--set expects key=value, got '" + text + "'", ErrorKind::invalid_argument);
  return {text.substr(0, eq), text.substr(eq + 1)};
}

ParamBinder::Entry* ParamBinder::find(const std::string& key) {
  for (Entry& e : entries_)
    if (e.key == key) return &e;
  return nullptr;
}

void ParamBinder::field(const std::string& key, float& value, const std::string& doc) {
  // Entries capture the component by value, never `this`: an entry stays valid on its own.
  entries_.push_back({key, doc,
                      [component = component_, key, &value](const std::string& s) {
                        value = parse_number<float>(component, key, s);
                      },
                      [&value] {
                        // 7 significant digits: the float's own precision, so 0.02f prints as 0.02.
                        char text[32];
                        std::snprintf(text, sizeof text, "%.7g", double(value));
                        return nlohmann::json(std::strtod(text, nullptr));
                      }});
}

void ParamBinder::field(const std::string& key, int& value, const std::string& doc) {
  entries_.push_back({key, doc,
                      [component = component_, key, &value](const std::string& s) {
                        value = parse_number<int>(component, key, s);
                      },
                      [&value] { return nlohmann::json(value); }});
}

void ParamBinder::field(const std::string& key, bool& value, const std::string& doc) {
  entries_.push_back({key, doc,
                      [component = component_, key, &value](const std::string& s) {
                        if (s == "1" || s == "true" || s == "on") value = true;
                        else if (s == "0" || s == "false" || s == "off") value = false;
                        else throw Error(component + ": parameter " + key + " expects true/false, got '" + s + "'",
                                         ErrorKind::invalid_argument);
                      },
                      [&value] { return nlohmann::json(value); }});
}

void ParamBinder::choice(const std::string& key, std::string& value, std::vector<std::string> allowed,
                         const std::string& doc) {
  std::string all;
  for (const auto& a : allowed) all += (all.empty() ? "" : "|") + a;
  entries_.push_back({key, doc + " (" + all + ")",
                      [component = component_, key, &value, allowed, all](const std::string& s) {
                        if (std::find(allowed.begin(), allowed.end(), s) == allowed.end())
                          throw Error(component + ": parameter " + key + " must be one of " + all + ", got '" + s + "'",
                                      ErrorKind::invalid_argument);
                        value = s;
                      },
                      [&value] { return nlohmann::json(value); }});
}

void ParamBinder::apply(const Overrides& overrides) {
  for (const auto& [key, text] : overrides) {
    Entry* e = find(key);
    if (!e) {
      std::string known;
      for (const Entry& k : entries_) known += (known.empty() ? "" : ", ") + k.key;
      throw Error(component_ + ": unknown parameter '" + key + "' (known: " + known + ")", ErrorKind::invalid_argument);
    }
    e->set(text);
  }
}

nlohmann::json ParamBinder::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const Entry& e : entries_) j[e.key] = e.get();
  return j;
}

std::string ParamBinder::describe() const {
  std::ostringstream out;
  for (const Entry& e : entries_) out << "  " << e.key << " = " << e.get().dump() << "  (" << e.doc << ")\n";
  return out.str();
}

}  // namespace stereo
