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

std::string number_text(float value) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

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

std::vector<ParamDoc> parse_param_table(const std::string& text) {
  std::vector<ParamDoc> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(' ') == std::string::npos) continue;
    const auto bad = [&] { return Error("parameter table: not a \"  key = value  (doc)\" line: '" + line + "'"); };
    // describe(): two spaces, the key, " = ", the value's JSON, two spaces, "(doc)".
    const std::size_t eq = line.find(" = ");
    if (line.rfind("  ", 0) != 0 || eq == std::string::npos || line.back() != ')') throw bad();
    std::size_t value_end = eq + 3;
    if (value_end < line.size() && line[value_end] == '"') {
      // A string value: up to its closing quote (a backslash escapes the next character).
      for (++value_end; value_end < line.size() && line[value_end] != '"'; ++value_end)
        if (line[value_end] == '\\') ++value_end;
      ++value_end;
    } else {
      value_end = line.find("  (", value_end);
    }
    if (value_end == std::string::npos || value_end > line.size() || line.compare(value_end, 3, "  (") != 0) throw bad();
    ParamDoc row;
    row.key = line.substr(2, eq - 2);
    row.value = nlohmann::json::parse(line.substr(eq + 3, value_end - eq - 3), nullptr, false);
    if (row.key.empty() || row.value.is_discarded()) throw bad();
    row.doc = line.substr(value_end + 3, line.size() - value_end - 4);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string ParamBinder::describe() const {
  std::ostringstream out;
  for (const Entry& e : entries_) out << "  " << e.key << " = " << e.get().dump() << "  (" << e.doc << ")\n";
  return out.str();
}

}  // namespace stereo
