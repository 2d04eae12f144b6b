#include "tb/sizing/sweep.h"

#include <fmt/format.h>
#include <sqlite3.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "tb/scenario.h"
#include "tlm/common/error.h"

namespace fs = std::filesystem;

namespace netasic::sizing {

namespace {

using Clock = std::chrono::steady_clock;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
  if (!out) throw InputError(fmt::format("sweep: cannot write {}", p.string()));
}

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
    out.emplace_back(key, kv.second.as<std::string>());
  }
}

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

const char* const kSizeKeys[] = {"flowcut.table.entries", "letflow.entries", "flowcut.shadow_counters",
                                 "flowcut.nic_cache_entries"};

}  // namespace

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
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open sweep file", path));
  YAML::Node root;
  try {
    root = YAML::Load(slurp(path));
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}:{}: not valid YAML: {}", path, e.mark.line + 1, e.msg));
  }
  if (!root.IsMap()) throw InputError(fmt::format("{}: a sweep file is a map (base, set, grid, zip, seeds, report, slurm)", path));
  static const std::set<std::string> sections = {"base", "set", "grid", "zip", "seeds", "report", "slurm"};
  for (const auto& kv : root) {
    const std::string k = kv.first.as<std::string>();
    if (!sections.count(k))
      throw InputError(fmt::format("{}:{}: unknown section '{}' (allowed: base, set, grid, zip, seeds, report, slurm)",
                                   path, kv.first.Mark().line + 1, k));
  }

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

  std::vector<std::pair<std::string, std::vector<std::string>>> grid;
  if (root["grid"] && !root["grid"].IsNull()) flatten_lists(root["grid"], "", path + ":grid", grid);
  std::vector<std::vector<std::pair<std::string, std::vector<std::string>>>> zips;
  if (root["zip"] && !root["zip"].IsNull()) {
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
  }
  std::vector<std::string> seeds;
  if (root["seeds"]) {
    const YAML::Node& s = root["seeds"];
    if (s.IsScalar()) {
      long long n = 0;
      try {
        n = s.as<long long>();
      } catch (const YAML::Exception&) {
        throw InputError(fmt::format("{}: key 'seeds': '{}' is not an integer (a count N for seeds 1..N, or a list)", path,
                                     s.as<std::string>()));
      }
      if (n < 1 || n > 100000) throw InputError(fmt::format("{}: key 'seeds': {} is outside 1..100000", path, n));
      for (long long i = 1; i <= n; ++i) seeds.push_back(std::to_string(i));
    } else {
      seeds = scalar_list(s, path, "seeds");
    }
    for (const auto& v : seeds) {  // validated as sim.seed values below, named 'seeds' here
      Scenario probe;
      try {
        probe.set("sim.seed", v, "seeds");
      } catch (const InputError& e) {
        throw InputError(fmt::format("{}: key 'seeds': {}", path, e.what()));
      }
    }
  }
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

  // Every value of every key is checked on its own first, so the message names the key and value.
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

  // Axes: each grid key, each zip group, seeds; the cartesian product of the axes, last axis fastest.
  struct Axis {
    std::vector<std::string> keys;
    std::vector<std::vector<std::string>> rows;  // rows[i][j]: value of keys[j] at position i
  };
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

  if (root["report"]) {
    const YAML::Node& r = root["report"];
    if (!r.IsMap()) throw InputError(fmt::format("{}: 'report' is a map (size_key)", path));
    if (r["size_key"]) spec.size_key = r["size_key"].as<std::string>();
  }
  if (spec.size_key.empty())
    for (const char* k : kSizeKeys)
      if (std::find(spec.swept_keys.begin(), spec.swept_keys.end(), k) != spec.swept_keys.end()) {
        spec.size_key = k;
        break;
      }
  if (root["slurm"]) {
    const YAML::Node& r = root["slurm"];
    if (!r.IsMap()) throw InputError(fmt::format("{}: 'slurm' is a map (partition, account, time, array_throttle, sbatch_args)", path));
    for (const auto& kv : r) {
      const std::string k = kv.first.as<std::string>();
      if (k == "partition") spec.slurm.partition = kv.second.as<std::string>();
      else if (k == "account") spec.slurm.account = kv.second.as<std::string>();
      else if (k == "time") spec.slurm.time_limit = kv.second.as<std::string>();
      else if (k == "array_throttle") {
        try {
          spec.slurm.array_throttle = kv.second.as<int>();
        } catch (const YAML::Exception&) {
          throw InputError(fmt::format("{}: key 'slurm.array_throttle': '{}' is not an integer", path, kv.second.as<std::string>()));
        }
        if (spec.slurm.array_throttle < 0)
          throw InputError(fmt::format("{}: key 'slurm.array_throttle': must be >= 0", path));
      } else if (k == "sbatch_args") {
        spec.slurm.sbatch_args = scalar_list(kv.second, path, "slurm.sbatch_args");
      } else {
        throw InputError(fmt::format("{}: unknown key 'slurm.{}' (allowed: partition, account, time, array_throttle, sbatch_args)", path, k));
      }
    }
  }
  return spec;
}

namespace {

// ---- running points ------------------------------------------------------------------------------

struct PointRun {
  const SweepPoint* point;
  fs::path dir;
  int attempts = 0;
  int exit_code = -1;
  bool done = false;
};

// Done: the sweep recorded it (done.json with the same inputs hash), or a task run outside the sweep (another
// scheduler, or a Slurm job the sweep stopped watching) left exit 0, a summary and the same scenario.yaml.
bool point_completed(const fs::path& dir, const SweepPoint& p) {
  if (!fs::exists(dir / "summary.json")) return false;
  try {
    if (fs::exists(dir / "done.json")) {
      const auto j = nlohmann::json::parse(slurp(dir / "done.json"));
      return j.value("hash", "") == p.hash && j.value("exit", -1) == 0;
    }
    if (!fs::exists(dir / "exit") || std::atoi(slurp(dir / "exit").c_str()) != 0) return false;
    std::string scen = slurp(dir / "scenario.yaml");
    if (!scen.empty() && scen[0] == '#') scen.erase(0, scen.find('\n') + 1);
    return scen == p.scenario_yaml;
  } catch (const std::exception&) {
    return false;
  }
}

void mark_done(const PointRun& r) {
  write_file(r.dir / "done.json",
             nlohmann::json{{"hash", r.point->hash}, {"exit", 0}, {"attempts", r.attempts}}.dump(2) + "\n");
}

class Progress {
 public:
  Progress(std::size_t total, std::size_t skipped, int parallel)
      : total_(total), skipped_(skipped), parallel_(std::max(1, parallel)), tty_(isatty(fileno(stderr)) != 0),
        start_(Clock::now()) {}
  void update(std::size_t done, std::size_t failed, std::size_t running, bool force = false) {
    const auto now = Clock::now();
    // A terminal gets the line rewritten every second; a log gets a line per finished point, or every 30 s.
    const bool finished_more = done + failed != last_finished_;
    if (!force && !finished_more) {
      if (tty_ && now - last_ < std::chrono::seconds(1) && running == last_running_) return;
      if (!tty_ && now - last_ < std::chrono::seconds(30)) return;
    }
    last_running_ = running;
    last_ = now;
    last_finished_ = done + failed;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const std::size_t finished_here = done + failed - skipped_;
    const std::size_t left = total_ - done - failed;
    std::string eta = "?";
    if (left == 0) {
      eta = "0 s";
    } else if (finished_here > 0) {
      eta = fmt::format("{:.0f} s", elapsed / finished_here * left);
    }
    const std::string line = fmt::format("sweep: {}/{} done, {} failed, {} running | elapsed {:.0f} s, ETA {}", done,
                                         total_, failed, running, elapsed, eta);
    if (tty_) {
      std::cerr << "\r" << line << "\033[K" << std::flush;
    } else {
      std::cerr << line << "\n";
    }
  }
  void finish() {
    if (tty_) std::cerr << "\n";
  }

 private:
  std::size_t total_, skipped_;
  int parallel_;
  bool tty_;
  Clock::time_point start_, last_{};
  std::size_t last_finished_ = static_cast<std::size_t>(-1), last_running_ = 0;
};

pid_t spawn_point(const std::string& binary, const PointRun& r) {
  const std::string scen = (r.dir / "scenario.yaml").string(), out = r.dir.string();
  const std::string so = (r.dir / "stdout.txt").string(), se = (r.dir / "stderr.txt").string();
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = open(so.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(se.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o >= 0) dup2(o, 1);
    if (e >= 0) dup2(e, 2);
    execl(binary.c_str(), binary.c_str(), "run", scen.c_str(), "--quiet", "--out", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  if (pid < 0) throw std::runtime_error("sweep: fork failed");
  return pid;
}

void run_local(const std::string& binary, int jobs, int retries, std::vector<PointRun>& runs, Progress& progress,
               std::size_t& done, std::size_t& failed) {
  std::deque<PointRun*> pending;
  for (auto& r : runs)
    if (!r.done) pending.push_back(&r);
  std::map<pid_t, PointRun*> running;
  while (!pending.empty() || !running.empty()) {
    while (static_cast<int>(running.size()) < jobs && !pending.empty()) {
      PointRun* r = pending.front();
      pending.pop_front();
      ++r->attempts;
      fs::remove(r->dir / "done.json");
      running[spawn_point(binary, *r)] = r;
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0 && running.count(pid)) {
      PointRun* r = running[pid];
      running.erase(pid);
      r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      write_file(r->dir / "exit", std::to_string(r->exit_code) + "\n");
      if (r->exit_code == 0 && fs::exists(r->dir / "summary.json")) {
        r->done = true;
        mark_done(*r);
        ++done;
      } else if (r->attempts <= retries) {
        std::cerr << (isatty(fileno(stderr)) ? "\n" : "")
                  << fmt::format("sweep: point {} ({}) failed with exit {}, retrying; see {}/stderr.txt\n",
                                 r->point->index, r->point->hash, r->exit_code, r->dir.string());
        pending.push_back(r);
      } else {
        ++failed;
      }
      progress.update(done, failed, running.size(), true);
    } else if (pid <= 0) {
      progress.update(done, failed, running.size());
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string run_capture(const std::string& cmd, int* status) {
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) {
    *status = -1;
    return "";
  }
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  const int raw = pclose(pipe);
  *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

void run_slurm(const std::string& binary, const fs::path& out, const SlurmSettings& sl, int retries,
               std::vector<PointRun>& runs, Progress& progress, std::size_t& done, std::size_t& failed) {
  for (int round = 0; round <= retries; ++round) {
    std::vector<PointRun*> batch;
    for (auto& r : runs)
      if (!r.done && r.attempts == round) batch.push_back(&r);
    if (batch.empty()) break;
    const fs::path dir = out / "slurm" / fmt::format("round{}", round);
    fs::create_directories(dir);
    std::string list;
    for (auto* r : batch) {
      list += fs::absolute(r->dir).string() + "\n";
      fs::remove(r->dir / "exit");
      fs::remove(r->dir / "done.json");
      ++r->attempts;
    }
    write_file(dir / "points.txt", list);
    std::string script = "#!/bin/sh\n# netasic sweep: one array task per point (see docs/sizing.md)\n";
    script += fmt::format("#SBATCH --job-name=netasic-sweep\n#SBATCH --array=0-{}{}\n", batch.size() - 1,
                          sl.array_throttle > 0 ? fmt::format("%{}", sl.array_throttle) : "");
    script += fmt::format("#SBATCH --output={}/task-%a.log\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n",
                          fs::absolute(dir).string());
    if (!sl.partition.empty()) script += "#SBATCH --partition=" + sl.partition + "\n";
    if (!sl.account.empty()) script += "#SBATCH --account=" + sl.account + "\n";
    if (!sl.time_limit.empty()) script += "#SBATCH --time=" + sl.time_limit + "\n";
    for (const auto& a : sl.sbatch_args) script += "#SBATCH " + a + "\n";
    script += fmt::format("d=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" {})\n", shell_quote(fs::absolute(dir / "points.txt").string()));
    script += fmt::format("{} run \"$d/scenario.yaml\" --quiet --out \"$d\" >\"$d/stdout.txt\" 2>\"$d/stderr.txt\"\n",
                          shell_quote(binary));
    script += "rc=$?\necho $rc >\"$d/exit.tmp\" && mv \"$d/exit.tmp\" \"$d/exit\"\nexit $rc\n";
    write_file(dir / "job.sh", script);
    int st = 0;
    const std::string sbatch = fmt::format("sbatch --parsable --chdir={} {} 2>&1", shell_quote(fs::current_path().string()),
                                           shell_quote((dir / "job.sh").string()));
    std::string jobid = run_capture(sbatch, &st);
    jobid.erase(std::remove_if(jobid.begin(), jobid.end(), [](char c) { return c == '\n' || c == '\r'; }), jobid.end());
    if (st != 0) throw InputError(fmt::format("sweep: sbatch failed (exit {}): {}", st, jobid));
    if (auto semi = jobid.find(';'); semi != std::string::npos) jobid = jobid.substr(0, semi);
    std::cerr << fmt::format("sweep: submitted job array {} ({} tasks), script {}\n", jobid, batch.size(),
                             (dir / "job.sh").string());
    std::set<PointRun*> open(batch.begin(), batch.end());
    auto last_check = Clock::now() - std::chrono::seconds(10);
    int gone_checks = 0;
    while (!open.empty()) {
      for (auto it = open.begin(); it != open.end();) {
        PointRun* r = *it;
        if (!fs::exists(r->dir / "exit")) {
          ++it;
          continue;
        }
        r->exit_code = std::atoi(slurp(r->dir / "exit").c_str());
        if (r->exit_code == 0 && fs::exists(r->dir / "summary.json")) {
          r->done = true;
          mark_done(*r);
          ++done;
        } else if (round == retries) {
          ++failed;
        }
        it = open.erase(it);
      }
      if (open.empty()) break;
      if (Clock::now() - last_check > std::chrono::seconds(3)) {
        last_check = Clock::now();
        const std::string q = run_capture(fmt::format("squeue -h -j {} -o %i 2>/dev/null", jobid), &st);
        // The job left the queue but tasks wrote no exit file: they died (time limit, node failure).
        if (st == 0 && q.find_first_not_of(" \n") == std::string::npos) {
          if (++gone_checks >= 2) {
            for (PointRun* r : open) {
              std::cerr << fmt::format("\nsweep: point {} ({}) left the queue without an exit status; see {}\n",
                                       r->point->index, r->point->hash, (dir / "task-*.log").string());
              if (round == retries) ++failed;
            }
            open.clear();
          }
        } else {
          gone_checks = 0;
        }
      }
      progress.update(done, failed, open.size());
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    progress.update(done, failed, 0, true);
  }
}

// ---- gathering -----------------------------------------------------------------------------------

const std::vector<std::string>& figure_columns() {
  static const std::vector<std::string> c = {"flows_completed", "flows_count",       "fct_avg_ns",
                                             "fct_p99_ns",      "ooo_fraction",      "flowcut_high_water",
                                             "flowcut_overflows", "letflow_high_water", "drain_fraction",
                                             "sim_time_ns",     "wall_seconds"};
  return c;
}

std::string json_at(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* v = &j;
  for (const char* p : path) {
    if (!v->is_object() || !v->contains(p)) return "";
    v = &v->at(p);
  }
  return v->is_string() ? v->get<std::string>() : v->dump();
}

std::map<std::string, std::string> gather_row(const PointRun& r) {
  std::map<std::string, std::string> row;
  row["point"] = std::to_string(r.point->index);
  row["hash"] = r.point->hash;
  for (const auto& [k, v] : r.point->values) row[k] = v;
  row["status"] = r.done ? "done" : "failed";
  if (!r.done) return row;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(slurp(r.dir / "summary.json"));
  } catch (const std::exception&) {
    row["status"] = "failed";
    return row;
  }
  row["flows_completed"] = json_at(j, {"flows", "completed"});
  row["flows_count"] = json_at(j, {"flows", "count"});
  row["fct_avg_ns"] = json_at(j, {"flows", "fct_ns", "avg"});
  row["fct_p99_ns"] = json_at(j, {"flows", "fct_ns", "p99"});
  row["ooo_fraction"] = json_at(j, {"packets", "ooo_fraction"});
  row["flowcut_high_water"] = json_at(j, {"flowcut", "table", "high_water"});
  row["flowcut_overflows"] = json_at(j, {"flowcut", "table", "overflows"});
  row["letflow_high_water"] = json_at(j, {"letflow", "table_high_water"});
  row["drain_fraction"] = json_at(j, {"flowcut", "drain_fraction_of_fct"});
  row["sim_time_ns"] = json_at(j, {"sim_time_ns"});
  row["wall_seconds"] = json_at(j, {"wall_seconds"});
  return row;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

void sqlite_check(int rc, sqlite3* db, const std::string& what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
    throw std::runtime_error(fmt::format("sweep: sqlite {}: {}", what, sqlite3_errmsg(db)));
}

void write_sqlite(const fs::path& file, const std::vector<std::string>& cols,
                  const std::vector<std::map<std::string, std::string>>& rows, const std::string& sweep_file) {
  sqlite3* db = nullptr;
  if (sqlite3_open(file.string().c_str(), &db) != SQLITE_OK) {
    const std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw InputError(fmt::format("sweep: cannot open {}: {}", file.string(), msg));
  }
  std::string create = "DROP TABLE IF EXISTS results; CREATE TABLE results (";
  std::string insert = "INSERT INTO results VALUES (";
  for (std::size_t i = 0; i < cols.size(); ++i) {
    const bool text = cols[i] == "hash" || cols[i] == "status";
    create += fmt::format("{}\"{}\" {}", i ? ", " : "", cols[i], text ? "TEXT" : "NUMERIC");
    insert += i ? ", ?" : "?";
  }
  create += "); DROP TABLE IF EXISTS sweep; CREATE TABLE sweep (key TEXT, value TEXT);";
  insert += ")";
  try {
    sqlite_check(sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr), db, "begin");
    sqlite_check(sqlite3_exec(db, create.c_str(), nullptr, nullptr, nullptr), db, "create");
    sqlite3_stmt* st = nullptr;
    sqlite_check(sqlite3_prepare_v2(db, insert.c_str(), -1, &st, nullptr), db, "prepare");
    for (const auto& row : rows) {
      for (std::size_t i = 0; i < cols.size(); ++i) {
        auto it = row.find(cols[i]);
        if (it == row.end() || it->second.empty()) {
          sqlite3_bind_null(st, static_cast<int>(i + 1));
        } else {
          sqlite3_bind_text(st, static_cast<int>(i + 1), it->second.c_str(), -1, SQLITE_TRANSIENT);
        }
      }
      sqlite_check(sqlite3_step(st), db, "insert");
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    const std::string meta = fmt::format("INSERT INTO sweep VALUES ('file', '{}')", [&] {
      std::string s;
      for (char c : sweep_file) s += c == '\'' ? std::string("''") : std::string(1, c);
      return s;
    }());
    sqlite_check(sqlite3_exec(db, meta.c_str(), nullptr, nullptr, nullptr), db, "meta");
    sqlite_check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db, "commit");
  } catch (...) {
    sqlite3_close(db);
    throw;
  }
  sqlite3_close(db);
}

std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("/proc/self/exe") : p.string();
}

}  // namespace

std::vector<KneeRow> knee_report(const std::vector<std::string>& swept_keys, const std::string& size_key,
                                 const std::vector<std::map<std::string, std::string>>& rows, double tolerance) {
  // group -> size value -> (sum, count)
  std::map<std::string, std::map<double, std::pair<std::string, std::pair<double, int>>>> groups;
  for (const auto& row : rows) {
    if (row.count("status") && row.at("status") != "done") continue;
    std::string group;
    for (const auto& k : swept_keys)
      if (k != size_key && k != "sim.seed") group += (group.empty() ? "" : " ") + k + "=" + row.at(k);
    const std::string& sv = row.at(size_key);
    const auto p99 = row.find("fct_p99_ns");
    if (p99 == row.end() || p99->second.empty()) continue;
    auto& cell = groups[group][std::strtod(sv.c_str(), nullptr)];
    cell.first = sv;
    cell.second.first += std::strtod(p99->second.c_str(), nullptr);
    cell.second.second += 1;
  }
  std::vector<KneeRow> out;
  for (const auto& [group, sizes] : groups) {
    KneeRow k;
    k.group = group;
    const auto& largest = *sizes.rbegin();
    k.largest = largest.second.first;
    k.reference_p99 = largest.second.second.first / largest.second.second.second;
    for (const auto& [size, cell] : sizes) {
      const double p = cell.second.first / cell.second.second;
      if (p <= k.reference_p99 * (1 + tolerance)) {
        k.knee = cell.first;
        k.knee_p99 = p;
        break;
      }
    }
    out.push_back(k);
  }
  return out;
}

int run_sweep(const SweepOptions& opts) {
  if (opts.backend != "local" && opts.backend != "slurm")
    throw InputError(fmt::format("sweep: --backend '{}': expected local or slurm", opts.backend));
  if (!opts.report.empty() && opts.report != "knee")
    throw InputError(fmt::format("sweep: --report '{}': expected knee", opts.report));
  SweepSpec spec = load_sweep(opts.file);
  std::string size_key = opts.size_key.empty() ? spec.size_key : opts.size_key;
  if (opts.report == "knee") {
    if (size_key.empty())
      throw InputError(fmt::format("{}: --report knee needs a swept table-size key (report: size_key: KEY, or --size-key)", opts.file));
    if (std::find(spec.swept_keys.begin(), spec.swept_keys.end(), size_key) == spec.swept_keys.end())
      throw InputError(fmt::format("{}: report size key '{}' is not a swept key", opts.file, size_key));
    const KeyDef* def = find_key(size_key);
    if (!def || (def->type != KeyType::integer && def->type != KeyType::number))
      throw InputError(fmt::format("{}: report size key '{}' is not numeric", opts.file, size_key));
  }
  SlurmSettings sl = spec.slurm;
  if (!opts.slurm.partition.empty()) sl.partition = opts.slurm.partition;
  if (!opts.slurm.account.empty()) sl.account = opts.slurm.account;
  if (!opts.slurm.time_limit.empty()) sl.time_limit = opts.slurm.time_limit;
  if (opts.slurm.array_throttle > 0) sl.array_throttle = opts.slurm.array_throttle;
  for (const auto& a : opts.slurm.sbatch_args) sl.sbatch_args.push_back(a);

  const fs::path out = opts.out.empty() ? fs::path("out/sweeps") / fs::path(opts.file).stem() : fs::path(opts.out);
  if (opts.dry_run) {
    for (const auto& p : spec.points) {
      std::string vals;
      for (const auto& [k, v] : p.values) vals += " " + k + "=" + v;
      std::cout << fmt::format("{} {}{}\n", p.index, p.hash, vals);
    }
    return 0;
  }
  std::error_code ec;
  fs::create_directories(out / "points", ec);
  if (ec) throw InputError(fmt::format("sweep: cannot create {}: {}", (out / "points").string(), ec.message()));

  std::vector<PointRun> runs;
  std::size_t skipped = 0;
  for (const auto& p : spec.points) {
    PointRun r{&p, out / "points" / p.hash};
    if (point_completed(r.dir, p)) {
      if (!fs::exists(r.dir / "done.json")) mark_done(r);
      r.done = true;
      ++skipped;
    } else {
      fs::create_directories(r.dir);
      write_file(r.dir / "scenario.yaml", "# netasic sweep point " + std::to_string(p.index) + " of " + opts.file + "\n" +
                                              p.scenario_yaml);
    }
    runs.push_back(r);
  }
  const int jobs = opts.jobs > 0 ? opts.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::string binary = opts.binary.empty() ? self_exe() : opts.binary;
  std::cerr << fmt::format("sweep: {} points ({} already done), backend {}, output {}\n", runs.size(), skipped,
                           opts.backend, out.string());
  std::size_t done = skipped, failed = 0;
  Progress progress(runs.size(), skipped, jobs);
  progress.update(done, failed, 0, true);
  if (opts.backend == "local") {
    run_local(binary, jobs, opts.retries, runs, progress, done, failed);
  } else {
    run_slurm(binary, out, sl, opts.retries, runs, progress, done, failed);
  }
  progress.finish();

  std::vector<std::string> cols = {"point", "hash"};
  for (const auto& k : spec.swept_keys) cols.push_back(k);
  cols.push_back("status");
  for (const auto& c : figure_columns()) cols.push_back(c);
  std::vector<std::map<std::string, std::string>> rows;
  std::string csv;
  for (std::size_t i = 0; i < cols.size(); ++i) csv += (i ? "," : "") + csv_field(cols[i]);
  csv += "\n";
  for (const auto& r : runs) {
    rows.push_back(gather_row(r));
    for (std::size_t i = 0; i < cols.size(); ++i) {
      auto it = rows.back().find(cols[i]);
      csv += (i ? "," : "") + csv_field(it == rows.back().end() ? "" : it->second);
    }
    csv += "\n";
  }
  write_file(out / "results.csv", csv);
  write_sqlite(out / "results.sqlite", cols, rows, opts.file);

  std::size_t nfailed = 0;
  for (const auto& row : rows)
    if (row.at("status") != "done") {
      ++nfailed;
      const auto& r = runs[std::stoul(row.at("point"))];
      std::cerr << fmt::format("sweep: point {} ({}) FAILED after {} attempts (exit {}); see {}/stderr.txt\n",
                               row.at("point"), row.at("hash"), r.attempts, r.exit_code, r.dir.string());
    }
  std::cout << fmt::format("sweep: {} points: {} run now, {} skipped (already done), {} failed\n", runs.size(),
                           runs.size() - skipped, skipped, nfailed);
  std::cout << fmt::format("sweep: results {}, {}\n", (out / "results.csv").string(), (out / "results.sqlite").string());

  if (opts.report == "knee") {
    const auto knees = knee_report(spec.swept_keys, size_key, rows);
    std::string kcsv = "group," + size_key + ",largest,knee_p99_ns,reference_p99_ns\n";
    std::cout << fmt::format("knee: smallest {} with p99 FCT within 5% of the largest ({}) value's\n", size_key, "unbounded");
    for (const auto& k : knees) {
      std::cout << fmt::format("  {:<40} knee {:>8}  (p99 {:.3f} us vs {:.3f} us at {})\n",
                               k.group.empty() ? "(all points)" : k.group, k.knee.empty() ? "none" : k.knee,
                               k.knee_p99 / 1000, k.reference_p99 / 1000, k.largest);
      kcsv += fmt::format("{},{},{},{},{}\n", csv_field(k.group), k.knee, k.largest, k.knee_p99, k.reference_p99);
    }
    write_file(out / "knee.csv", kcsv);
  }
  return nfailed == 0 ? 0 : 4;
}

}  // namespace netasic::sizing
