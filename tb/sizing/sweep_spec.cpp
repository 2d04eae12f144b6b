// Sweep files: reading and validating one, and expanding its grid into points (tb/sizing/sweep.h).
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "tb/scenario.h"
#include "tb/sizing/sweep.h"
#include "tb/sizing/sweep_internal.h"
#include "tb/yaml_text.h"
#include "tlm/common/error.h"

namespace fs = std::filesystem;

namespace netasic::sizing {

namespace {

using KeyLists = std::vector<std::pair<std::string, std::vector<std::string>>>;  // key -> values, file order

// A list of scalar values of one swept key.
std::vector<std::string> scalar_list(const YAML::Node& node, const std::string& where, const std::string& key) {
  if (!node.IsSequence())
    throw InputError(fmt::format("{}: key '{}': expected a list of values, e.g. [a, b, c]", where, key));
  std::vector<std::string> items;
  for (const auto& item : node) {
    if (!item.IsScalar()) throw InputError(fmt::format("{}: key '{}': list items must be scalars", where, key));
    items.push_back(item.as<std::string>());
  }
  if (items.empty()) throw InputError(fmt::format("{}: key '{}': empty list (a sweep needs at least one value)", where, key));
  return items;
}

// Flattens a map of key -> list (nested maps allowed) in file order.
void flatten_lists(const YAML::Node& node, const std::string& prefix, const std::string& where,
                   std::vector<std::pair<std::string, std::vector<std::string>>>& out) {
  if (!node.IsMap()) throw InputError(fmt::format("{}: expected a map of key: [values]", where));
  for (const auto& kv : node) {
    const std::string key = prefix.empty() ? kv.first.as<std::string>() : prefix + "." + kv.first.as<std::string>();
    const std::string at = fmt::format("{}:{}", where.substr(0, where.rfind(':')), kv.first.Mark().line + 1);
    if (kv.second.IsMap() && !find_key(key)) {
      flatten_lists(kv.second, key, where, out);
      continue;
    }
    if (!find_key(key)) {
      const std::string hint = suggest_key(key);
      throw InputError(fmt::format("{}: unknown key '{}'{}", at, key, hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
    out.emplace_back(key, scalar_list(kv.second, at, key));
  }
}

void flatten_scalars(const YAML::Node& node, const std::string& prefix, const std::string& where,
                     std::vector<std::pair<std::string, std::string>>& out) {
  if (!node.IsMap()) throw InputError(fmt::format("{}: 'set' is a map of key: value", where));
  for (const auto& kv : node) {
    const std::string key = prefix.empty() ? kv.first.as<std::string>() : prefix + "." + kv.first.as<std::string>();
    if (kv.second.IsMap()) {
      flatten_scalars(kv.second, key, where, out);
      continue;
    }
    if (!find_key(key)) {
      const std::string hint = suggest_key(key);
      throw InputError(fmt::format("{}:{}: unknown key '{}'{}", where, kv.first.Mark().line + 1, key,
                                   hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
    if (!kv.second.IsScalar())
      throw InputError(fmt::format("{}:{}: key '{}': expected one value", where, kv.first.Mark().line + 1, key));
    for (const auto& [k, v] : out)  // a repeated or nested-and-dotted key: the later would silently win
      if (k == key)
        throw InputError(fmt::format("{}:{}: set: key '{}' is set twice; each key takes one value", where,
                                     kv.first.Mark().line + 1, key));
    out.emplace_back(key, kv.second.as<std::string>());
  }
}

const char* const kSizeKeys[] = {"flowcut.table.entries", "letflow.entries", "flowcut.shadow_counters",
                                 "flowcut.nic_cache_entries"};

YAML::Node load_root(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(fmt::format("{}: is a directory, not a sweep file", path));
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open sweep file", path));
  const YAML::Node root = load_one_yaml_document(slurp(path), path, "a sweep file holds one map");
  if (!root.IsMap()) throw InputError(fmt::format("{}: a sweep file is a map (base, set, grid, zip, seeds, report, slurm)", path));
  static const std::set<std::string> sections = {"base", "set", "grid", "zip", "seeds", "report", "slurm"};
  std::map<std::string, int> seen;  // root["grid"] would read the first of two grid sections only
  for (const auto& kv : root) {
    const std::string k = kv.first.as<std::string>();
    const int line = kv.first.Mark().line + 1;
    if (!sections.count(k))
      throw InputError(fmt::format("{}:{}: unknown section '{}' (allowed: base, set, grid, zip, seeds, report, slurm)",
                                   path, line, k));
    if (const auto [it, fresh] = seen.emplace(k, line); !fresh)
      throw InputError(fmt::format("{}:{}: section '{}' appears again (first on line {})", path, line, k, it->second));
  }
  return root;
}

// The scenario every point starts from: the base file, then the `set` section.
Scenario load_base(const YAML::Node& root, const std::string& path) {
  Scenario base;
  if (root["base"]) {
    fs::path b = root["base"].as<std::string>();
    if (b.is_relative()) b = fs::path(path).parent_path() / b;
    base.load_yaml_file(b.string());
  }
  if (root["set"]) {
    std::vector<std::pair<std::string, std::string>> sets;
    flatten_scalars(root["set"], "", path, sets);
    for (const auto& [k, v] : sets) apply(base, k, v, fmt::format("{}: set: {}", path, k));
  }
  return base;
}

std::vector<KeyLists> load_zips(const YAML::Node& root, const std::string& path) {
  std::vector<KeyLists> zips;
  if (!root["zip"] || root["zip"].IsNull()) return zips;
  auto add_group = [&](const YAML::Node& g) {
    zips.emplace_back();
    flatten_lists(g, "", path + ":zip", zips.back());
    const std::size_t n = zips.back().front().second.size();
    for (const auto& [k, v] : zips.back())
      if (v.size() != n)
        throw InputError(fmt::format("{}: zip: key '{}' has {} values, '{}' has {} (zipped lists advance together)",
                                     path, k, v.size(), zips.back().front().first, n));
  };
  if (root["zip"].IsSequence()) {
    for (const auto& g : root["zip"]) add_group(g);
  } else {
    add_group(root["zip"]);
  }
  return zips;
}

// `seeds`: a count N (seeds 1..N) or a list, each a valid sim.seed.
std::vector<std::string> load_seeds(const YAML::Node& root, const std::string& path) {
  std::vector<std::string> seeds;
  if (!root["seeds"]) return seeds;
  const YAML::Node& s = root["seeds"];
  if (s.IsScalar()) {
    long long n = 0;
    bool ok = is_plain_decimal(s.as<std::string>(), false);  // yaml-cpp would also read hex and octal
    try {
      if (ok) n = s.as<long long>();
    } catch (const YAML::Exception&) {
      ok = false;
    }
    if (!ok)
      throw InputError(fmt::format("{}: key 'seeds': '{}' is not an integer (a count N for seeds 1..N, or a list)", path,
                                   s.as<std::string>()));
    if (n < 1 || n > 100000) throw InputError(fmt::format("{}: key 'seeds': {} is outside 1..100000", path, n));
    for (long long i = 1; i <= n; ++i) seeds.push_back(std::to_string(i));
  } else {
    seeds = scalar_list(s, path, "seeds");
  }
  for (const auto& v : seeds) {  // validated as sim.seed values, named 'seeds' here
    Scenario probe;
    try {
      probe.set("sim.seed", v, "seeds");
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: key 'seeds': {}", path, e.what()));
    }
  }
  return seeds;
}

// Every value of every key is checked on its own first, so the message names the key and value.
void check_values(const Scenario& base, const std::string& path, const KeyLists& grid,
                  const std::vector<KeyLists>& zips) {
  auto check = [&](const std::string& section, const std::string& k, const std::vector<std::string>& vs) {
    for (const auto& v : vs) {
      Scenario probe = base;
      try {
        apply(probe, k, v, fmt::format("{}: {}: {}", path, section, k));
      } catch (const InputError& e) {
        throw InputError(fmt::format("{} (sweep key '{}', value '{}')", e.what(), k, v));
      }
    }
  };
  for (const auto& [k, v] : grid) check("grid", k, v);
  for (const auto& g : zips)
    for (const auto& [k, v] : g) check("zip", k, v);
}

// Axes: each grid key, each zip group, seeds; the points are their cartesian product, last axis fastest.
struct Axis {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> rows;  // rows[i][j]: value of keys[j] at position i
};

std::vector<Axis> build_axes(const KeyLists& grid, const std::vector<KeyLists>& zips,
                             const std::vector<std::string>& seeds) {
  std::vector<Axis> axes;
  for (const auto& [k, v] : grid) {
    Axis a{{k}, {}};
    for (const auto& x : v) a.rows.push_back({x});
    axes.push_back(a);
  }
  for (const auto& g : zips) {
    Axis a;
    for (const auto& [k, v] : g) a.keys.push_back(k);
    for (std::size_t i = 0; i < g.front().second.size(); ++i) {
      std::vector<std::string> row;
      for (const auto& [k, v] : g) row.push_back(v[i]);
      a.rows.push_back(row);
    }
    axes.push_back(a);
  }
  if (!seeds.empty()) {
    Axis a{{"sim.seed"}, {}};
    for (const auto& x : seeds) a.rows.push_back({x});
    axes.push_back(a);
  }
  return axes;
}

void expand_points(SweepSpec& spec, const Scenario& base, const std::vector<Axis>& axes) {
  const std::string& path = spec.path;
  std::size_t total = 1;
  for (const auto& a : axes) total *= a.rows.size();
  if (total > 1000000) throw InputError(fmt::format("{}: {} points is more than 1000000", path, total));
  std::set<std::string> hashes;
  for (std::size_t i = 0; i < total; ++i) {
    SweepPoint p;
    p.index = i;
    Scenario s = base;
    std::size_t rest = i;
    std::vector<std::size_t> pos(axes.size());
    for (std::size_t a = axes.size(); a-- > 0;) {
      pos[a] = rest % axes[a].rows.size();
      rest /= axes[a].rows.size();
    }
    std::map<std::string, std::string> vals;
    for (std::size_t a = 0; a < axes.size(); ++a)
      for (std::size_t j = 0; j < axes[a].keys.size(); ++j) {
        const std::string& k = axes[a].keys[j];
        const std::string& v = axes[a].rows[pos[a]][j];
        apply(s, k, v, fmt::format("{}: point {}: {}", path, i, k));
        vals[k] = v;
      }
    for (const auto& k : spec.swept_keys) p.values.emplace_back(k, vals[k]);
    p.scenario_yaml = scenario_text(s);
    p.hash = fnv1a_hex(p.scenario_yaml);
    if (!hashes.insert(p.hash).second)
      throw InputError(fmt::format("{}: point {} repeats an earlier point's inputs (a list holds a value twice?)", path, i));
    spec.points.push_back(std::move(p));
  }
}

// report.size_key, or the first swept table-size key.
std::string load_size_key(const YAML::Node& root, const SweepSpec& spec) {
  if (root["report"]) {
    const YAML::Node& r = root["report"];
    if (!r.IsMap()) throw InputError(fmt::format("{}: 'report' is a map (size_key)", spec.path));
    if (r["size_key"] && !r["size_key"].as<std::string>().empty()) return r["size_key"].as<std::string>();
  }
  for (const char* k : kSizeKeys)
    if (std::find(spec.swept_keys.begin(), spec.swept_keys.end(), k) != spec.swept_keys.end()) return k;
  return "";
}

// The `slurm` section: a fixed set of settings, anything else rejected by name.
SlurmSettings load_slurm(const YAML::Node& root, const std::string& path) {
  SlurmSettings slurm;
  if (!root["slurm"]) return slurm;
  const YAML::Node& r = root["slurm"];
  if (!r.IsMap()) throw InputError(fmt::format("{}: 'slurm' is a map (partition, account, time, array_throttle, sbatch_args)", path));
  for (const auto& kv : r) {
    const std::string k = kv.first.as<std::string>();
    if (k == "partition") slurm.partition = kv.second.as<std::string>();
    else if (k == "account") slurm.account = kv.second.as<std::string>();
    else if (k == "time") slurm.time_limit = kv.second.as<std::string>();
    else if (k == "array_throttle") {
      try {
        slurm.array_throttle = kv.second.as<int>();
      } catch (const YAML::Exception&) {
        throw InputError(fmt::format("{}: key 'slurm.array_throttle': '{}' is not an integer", path, kv.second.as<std::string>()));
      }
      if (slurm.array_throttle < 0)
        throw InputError(fmt::format("{}: key 'slurm.array_throttle': must be >= 0", path));
    } else if (k == "sbatch_args") {
      slurm.sbatch_args = scalar_list(kv.second, path, "slurm.sbatch_args");
    } else {
      throw InputError(fmt::format("{}: unknown key 'slurm.{}' (allowed: partition, account, time, array_throttle, sbatch_args)", path, k));
    }
  }
  return slurm;
}

}  // namespace

void apply(Scenario& s, const std::string& key, const std::string& value, const std::string& origin) {
  const KeyDef* def = find_key(key);
  if (def && def->type == KeyType::list) {
    s.set_list(key, {value}, origin);
  } else {
    s.set(key, value, origin);
  }
}

// The point's scenario: every key not at its default, one `key: value` line each (values as JSON, which
// YAML reads back unchanged), in key order: deterministic, so its hash identifies the point's inputs.
std::string scenario_text(const Scenario& s) {
  const nlohmann::json j = s.to_json();
  std::string text;
  for (const auto& k : scenario_keys()) {
    if (s.is_default(k.name)) continue;
    const nlohmann::json* v = &j;
    std::string rest = k.name;
    while (true) {
      const auto dot = rest.find('.');
      v = &v->at(rest.substr(0, dot));
      if (dot == std::string::npos) break;
      rest = rest.substr(dot + 1);
    }
    text += k.name + ": " + v->dump() + "\n";
  }
  return text;
}

std::string fnv1a_hex(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

SweepSpec load_sweep(const std::string& path) {
  SweepSpec spec;
  spec.path = path;
  const YAML::Node root = load_root(path);
  const Scenario base = load_base(root, path);
  KeyLists grid;
  if (root["grid"] && !root["grid"].IsNull()) flatten_lists(root["grid"], "", path + ":grid", grid);
  const std::vector<KeyLists> zips = load_zips(root, path);
  const std::vector<std::string> seeds = load_seeds(root, path);
  if (grid.empty() && zips.empty() && seeds.empty())
    throw InputError(fmt::format("{}: empty grid: give at least one key under 'grid' or 'zip', or 'seeds'", path));

  std::set<std::string> seen;
  auto note_key = [&](const std::string& k) {
    if (!seen.insert(k).second) throw InputError(fmt::format("{}: key '{}' is swept twice", path, k));
    spec.swept_keys.push_back(k);
  };
  for (const auto& [k, v] : grid) note_key(k);
  for (const auto& g : zips)
    for (const auto& [k, v] : g) note_key(k);
  if (!seeds.empty()) note_key("sim.seed");

  check_values(base, path, grid, zips);
  expand_points(spec, base, build_axes(grid, zips, seeds));
  spec.size_key = load_size_key(root, spec);
  spec.slurm = load_slurm(root, path);
  return spec;
}

}  // namespace netasic::sizing
