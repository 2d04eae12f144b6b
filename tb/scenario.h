// Scenario keys: one registry of every key (type, unit, default, allowed range, description) and a
// Scenario holding the resolved value of each key with where it came from. The registry is the single
// source for validation, `netasic keys`, docs/scenario-keys.md and the resolved scenario in summary.json.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <variant>
#include <vector>

namespace netasic {

enum class KeyType { integer, number, boolean, string, choice, list };
const char* key_type_name(KeyType t);

// One accepted value of a choice key and the enumerator it stands for (of the key's enum type).
struct ChoiceDef {
  std::string name;
  int value;
};

struct KeyDef {
  std::string name;
  KeyType type;
  std::string unit;           // "" when unitless
  std::string default_value;  // as text, parsed like user input
  double min = 0, max = 0;    // integer/number range (inclusive) when has_range
  bool has_range = false;
  std::vector<ChoiceDef> choices;   // for choice keys: every accepted name and its enumerator
  std::string description;
  std::type_index choice_type = typeid(void);  // the enum a choice key maps to (Scenario::choice<E>)
  std::string range_text() const;    // "1..64", "one of: a, b", ...
  std::vector<std::string> choice_names() const;
  // The name of a choice key's enumerator (for reports); ModelError if the enumerator is not in the table.
  const std::string& choice_name(int value) const;
};

const std::vector<KeyDef>& scenario_keys();
const KeyDef* find_key(const std::string& name);

using KeyValue = std::variant<std::int64_t, double, bool, std::string, std::vector<std::string>>;

// The origin of a key no input has set.
inline constexpr const char* kDefaultOrigin = "default";

class Scenario {
 public:
  // Every key at its default.
  Scenario();

  // Reads a YAML scenario (nested maps, flattened to dotted keys). InputError names the file, line and key.
  void load_yaml_file(const std::string& path);
  void load_yaml_text(const std::string& text, const std::string& name);
  // `key=value` from the command line.
  void set_assignment(const std::string& assignment);
  void set(const std::string& key, const std::string& text, const std::string& origin);
  void set_list(const std::string& key, const std::vector<std::string>& items, const std::string& origin);

  std::int64_t integer(const std::string& key) const;
  double number(const std::string& key) const;
  bool boolean(const std::string& key) const;
  const std::string& string(const std::string& key) const;  // string and choice keys (the name as given)
  // A choice key as its enum: the key's definition maps each accepted name to an enumerator, and parsing
  // already rejected every other name, so there is no default. E must be the key's enum (ModelError if not).
  template <class E>
  E choice(const std::string& key) const {
    return static_cast<E>(choice_value(key, typeid(E)));
  }
  const std::vector<std::string>& list(const std::string& key) const;
  const std::string& origin(const std::string& key) const { return origin_.at(key); }
  bool is_default(const std::string& key) const { return origin_.at(key) == kDefaultOrigin; }

  nlohmann::json to_json() const;  // the fully resolved scenario, nested by dotted key

 private:
  const KeyValue& get(const std::string& key, KeyType expected) const;
  int choice_value(const std::string& key, std::type_index type) const;
  std::map<std::string, KeyValue> values_;
  std::map<std::string, std::string> origin_;
};

// Whether `text` is a plain decimal integer ([+-]digits) or, with `number`, a plain decimal number (a
// fraction and a decimal exponent allowed). strtoll/strtod also take hex, inf and nan, which no input means.
bool is_plain_decimal(const std::string& text, bool number);

// "Did you mean" help for unknown keys.
std::string suggest_key(const std::string& unknown);

}  // namespace netasic
