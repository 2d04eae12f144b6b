#include "tb/scenario.h"
#include "tb/yaml_text.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tlm/common/error.h"

namespace netasic {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::string fmt_num(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

KeyValue parse_value(const KeyDef& def, const std::string& raw, const std::string& where) {
  const std::string text = trim(raw);
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_length(text, i);
    if (n == 0 || static_cast<unsigned char>(text[i]) < 0x20)
      throw InputError(fmt::format("{}: {}: the value is not UTF-8 text without control characters", where, def.name));
    i += n;
  }
  auto fail = [&](const std::string& what) -> InputError {
    return InputError(fmt::format("{}: {} = '{}': {}; accepted: {} {}", where, def.name, text, what,
                                  key_type_name(def.type), def.range_text()));
  };
  switch (def.type) {
    case KeyType::integer: {
      if (text.empty()) throw fail("empty value");
      if (!is_plain_decimal(text, false)) throw fail("not an integer (plain decimal digits)");
      errno = 0;
      char* end = nullptr;
      const long long v = std::strtoll(text.c_str(), &end, 10);
      if (errno || *end) throw fail("not an integer");
      // Compared as integers: every integer key's bounds are whole and within 1e18, while a double
      // comparison would let 1e18+1 pass as 1e18.
      if (def.has_range && (v < static_cast<long long>(def.min) || v > static_cast<long long>(def.max)))
        throw fail("out of range");
      return static_cast<std::int64_t>(v);
    }
    case KeyType::number: {
      if (text.empty()) throw fail("empty value");
      if (!is_plain_decimal(text, true)) throw fail("not a number (plain decimal, e.g. 2.5 or 1e-3)");
      errno = 0;
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (errno || *end || !std::isfinite(v)) throw fail("not a number");
      if (def.has_range && (v < def.min || v > def.max)) throw fail("out of range");
      return v;
    }
    case KeyType::boolean:
      if (text == "true") return true;
      if (text == "false") return false;
      throw fail("not a boolean");
    case KeyType::string: return text;
    case KeyType::choice:
      for (const auto& c : def.choices)
        if (c.name == text) return text;
      throw fail("not an accepted value");
    case KeyType::list: {
      // Comma-separated on the command line; brackets optional.
      std::string body = text;
      if (!body.empty() && body.front() == '[' && body.back() == ']') body = body.substr(1, body.size() - 2);
      std::vector<std::string> items;
      std::stringstream ss(body);
      std::string item;
      while (std::getline(ss, item, ','))
        if (!trim(item).empty()) items.push_back(trim(item));
      return items;
    }
  }
  throw fail("unsupported type");
}

}  // namespace

// Plain decimal only: strtoll/strtod would also take hex ("0x10", "0x1p4"), "inf" and "nan", which no
// documented key means. Integers are [+-]digits; numbers may add a fraction and a decimal exponent.
bool is_plain_decimal(const std::string& t, bool number) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t from = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    return i - from;
  };
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  std::size_t mantissa = digits();
  if (!number) return mantissa > 0 && i == t.size();
  if (i < t.size() && t[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == t.size();
}

const char* key_type_name(KeyType t) {
  switch (t) {
    case KeyType::integer: return "integer";
    case KeyType::number: return "number";
    case KeyType::boolean: return "boolean";
    case KeyType::string: return "string";
    case KeyType::choice: return "choice";
    case KeyType::list: return "list";
  }
  return "?";
}

std::string KeyDef::range_text() const {
  switch (type) {
    case KeyType::integer:
    case KeyType::number: return has_range ? fmt::format("{}..{}", fmt_num(min), fmt_num(max)) : "any";
    case KeyType::boolean: return "true, false";
    case KeyType::choice: return fmt::format("one of: {}", fmt::join(choice_names(), ", "));
    case KeyType::list: return "list of strings";
    case KeyType::string: return "text";
  }
  return "";
}

std::vector<std::string> KeyDef::choice_names() const {
  std::vector<std::string> names;
  for (const auto& c : choices) names.push_back(c.name);
  return names;
}

const std::string& KeyDef::choice_name(int value) const {
  for (const auto& c : choices)
    if (c.value == value) return c.name;
  throw ModelError(fmt::format("scenario key {} has no name for enumerator {}", name, value));
}

const KeyDef* find_key(const std::string& name) {
  for (const auto& k : scenario_keys())
    if (k.name == name) return &k;
  return nullptr;
}

std::string suggest_key(const std::string& unknown) {
  // Closest key by edit distance, if reasonably close.
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      cur[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j)
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      std::swap(prev, cur);
    }
    return prev[b.size()];
  };
  std::string best;
  std::size_t best_d = 1000;
  for (const auto& k : scenario_keys()) {
    const std::size_t d = distance(unknown, k.name);
    if (d < best_d) {
      best_d = d;
      best = k.name;
    }
  }
  return best_d <= std::max<std::size_t>(3, unknown.size() / 4) ? best : "";
}

Scenario::Scenario() {
  for (const auto& k : scenario_keys()) {
    values_[k.name] = k.type == KeyType::list ? KeyValue(std::vector<std::string>{}) : parse_value(k, k.default_value, kDefaultOrigin);
    origin_[k.name] = kDefaultOrigin;
  }
}

static InputError unknown_key(const std::string& where, const std::string& key) {
  const std::string hint = suggest_key(key);
  return InputError(fmt::format("{}: unknown key '{}'{}; `netasic keys` lists every key", where, key,
                                hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
}

void Scenario::set(const std::string& key, const std::string& text, const std::string& origin) {
  const KeyDef* def = find_key(key);
  if (!def) throw unknown_key(origin, key);
  values_[key] = parse_value(*def, text, origin);
  origin_[key] = origin;
}

void Scenario::set_list(const std::string& key, const std::vector<std::string>& items, const std::string& origin) {
  const KeyDef* def = find_key(key);
  if (!def) throw unknown_key(origin, key);
  if (def->type != KeyType::list)
    throw InputError(fmt::format("{}: {} takes a single {} ({}), not a list", origin, key, key_type_name(def->type),
                                 def->range_text()));
  values_[key] = items;
  origin_[key] = origin;
}

void Scenario::set_assignment(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError(fmt::format("--set '{}': expected KEY=VALUE", assignment));
  set(trim(assignment.substr(0, eq)), assignment.substr(eq + 1), fmt::format("--set {}", trim(assignment.substr(0, eq))));
}

namespace {
// Every key one file sets, with the line that set it: a YAML map may not repeat a key, and a nested and a
// dotted spelling of one key (`link: {rate_gbps: 100}` and `link.rate_gbps: 200`) must not both be taken
// with the later silently winning.
using SeenKeys = std::map<std::string, int>;

// The line that first set `key`, or 0 (and `key` is recorded at `line`).
int first_line(SeenKeys& seen, const std::string& key, int line) {
  const auto [it, fresh] = seen.emplace(key, line);
  return fresh ? 0 : it->second;
}

void flatten(const YAML::Node& node, const std::string& prefix, const std::string& file, Scenario& s, SeenKeys& seen) {
  SeenKeys in_this_map;  // the map's own key texts (YAML forbids duplicates)
  for (const auto& kv : node) {
    const std::string part = kv.first.as<std::string>();
    const std::string key = prefix.empty() ? part : prefix + "." + part;
    const YAML::Node& v = kv.second;
    const int line = kv.first.Mark().line + 1;
    const std::string where = fmt::format("{}:{}", file, line);
    if (const int first = first_line(in_this_map, part, line))
      throw InputError(fmt::format("{}: duplicate key '{}' ({}) in one map, first on line {}; YAML allows each key "
                                   "once per map",
                                   where, part, key, first));
    if (v.IsMap()) {
      if (find_key(key)) throw InputError(fmt::format("{}: {} takes a value, not a map", where, key));
      flatten(v, key, file, s, seen);
      continue;
    }
    if (const int first = first_line(seen, key, line))
      throw InputError(fmt::format("{}: key '{}' is already set on line {} of this file (nested and dotted "
                                   "spellings are one key); each key takes one value",
                                   where, key, first));
    if (v.IsSequence()) {
      std::vector<std::string> items;
      for (const auto& item : v) {
        if (!item.IsScalar()) throw InputError(fmt::format("{}: {}: list items must be scalars", where, key));
        items.push_back(item.as<std::string>());
      }
      s.set_list(key, items, where);
    } else if (v.IsNull()) {
      throw InputError(fmt::format("{}: {} has no value", where, key));
    } else {
      if (const KeyDef* def = find_key(key); def && def->type == KeyType::list) {
        s.set_list(key, {v.as<std::string>()}, where);
      } else {
        s.set(key, v.as<std::string>(), where);
      }
    }
  }
}
}  // namespace

void Scenario::load_yaml_text(const std::string& text, const std::string& name) {
  const YAML::Node root = load_one_yaml_document(text, name, "a scenario file holds one map of keys");
  if (root.IsNull()) return;
  if (!root.IsMap()) throw InputError(fmt::format("{}: a scenario is a map of keys", name));
  SeenKeys seen;
  try {
    flatten(root, "", name, *this, seen);
  } catch (const YAML::Exception& e) {
    // A node of a shape the flattening does not expect (a map as a key, say) that yaml-cpp cannot convert.
    throw InputError(fmt::format("{}:{}: not a scenario key and value: {}", name, e.mark.line + 1, e.msg));
  }
}

void Scenario::load_yaml_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("{}: is a directory, not a scenario file", path));
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open scenario file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("{}: cannot read scenario file", path));
  load_yaml_text(ss.str(), path);
}

const KeyValue& Scenario::get(const std::string& key, KeyType expected) const {
  const KeyDef* def = find_key(key);
  if (!def) throw ModelError("no scenario key " + key);
  const bool ok = def->type == expected || (expected == KeyType::string && def->type == KeyType::choice);
  if (!ok) throw ModelError(fmt::format("scenario key {} is {}, read as {}", key, key_type_name(def->type), key_type_name(expected)));
  return values_.at(key);
}

int Scenario::choice_value(const std::string& key, std::type_index type) const {
  const KeyDef* def = find_key(key);
  if (!def || def->type != KeyType::choice) throw ModelError(fmt::format("scenario key {} is not a choice", key));
  if (def->choice_type != type) throw ModelError(fmt::format("scenario key {} read as another enum", key));
  const std::string& name = std::get<std::string>(values_.at(key));
  for (const auto& c : def->choices)
    if (c.name == name) return c.value;
  throw ModelError(fmt::format("scenario key {} holds '{}', which parsing accepts no more", key, name));
}

std::int64_t Scenario::integer(const std::string& key) const { return std::get<std::int64_t>(get(key, KeyType::integer)); }
double Scenario::number(const std::string& key) const { return std::get<double>(get(key, KeyType::number)); }
bool Scenario::boolean(const std::string& key) const { return std::get<bool>(get(key, KeyType::boolean)); }
const std::string& Scenario::string(const std::string& key) const { return std::get<std::string>(get(key, KeyType::string)); }
const std::vector<std::string>& Scenario::list(const std::string& key) const {
  return std::get<std::vector<std::string>>(get(key, KeyType::list));
}

nlohmann::json Scenario::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : values_) {
    nlohmann::json* node = &out;
    std::stringstream ss(key);
    std::string part;
    std::vector<std::string> parts;
    while (std::getline(ss, part, '.')) parts.push_back(part);
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) node = &(*node)[parts[i]];
    std::visit([&](const auto& v) { (*node)[parts.back()] = v; }, value);
  }
  return out;
}

}  // namespace netasic
