// `netasic sweep` results: results.csv, results.sqlite and the knee report (tb/sizing/sweep_internal.h).
#include <sqlite3.h>

#include <cstdlib>
#include <set>

#include <nlohmann/json.hpp>

#include "tb/sizing/sweep_internal.h"
#include "tlm/common/error.h"

namespace fs = std::filesystem;

namespace netasic::sizing {

namespace {

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

// Every number of summary.json (its sections' scalars, dotted: "flows.slowdown.p99"), so a user can filter
// on any metric the run reports. Lists (per size bucket, per table) and the resolved scenario stay out.
constexpr const char* kMetricPrefix = "summary.";

void add_summary_metrics(const nlohmann::json& j, const std::string& path, std::map<std::string, std::string>& row) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string key = path.empty() ? it.key() : path + "." + it.key();
    if (path.empty() && it.key() == "scenario") continue;
    if (it->is_object()) add_summary_metrics(*it, key, row);
    else if (it->is_number()) row[kMetricPrefix + key] = it->dump();
  }
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
  row["slowdown_avg"] = json_at(j, {"flows", "slowdown", "avg"});
  row["slowdown_p50"] = json_at(j, {"flows", "slowdown", "p50"});
  row["slowdown_p99"] = json_at(j, {"flows", "slowdown", "p99"});
  add_summary_metrics(j, "", row);
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

}  // namespace

std::vector<std::map<std::string, std::string>> write_results(const fs::path& out, const SweepSpec& spec,
                                                              const std::vector<PointRun>& runs,
                                                              const std::string& sweep_file) {
  std::vector<std::string> cols = {"point", "hash"};
  for (const auto& k : spec.swept_keys) cols.push_back(k);
  cols.push_back("status");
  for (const auto& c : figure_columns()) cols.push_back(c);
  for (const char* c : {"slowdown_avg", "slowdown_p50", "slowdown_p99"}) cols.push_back(c);
  std::vector<std::map<std::string, std::string>> rows;
  for (const auto& r : runs) rows.push_back(gather_row(r));
  // Then every summary metric any point reported, in name order (a point that lacks one leaves it empty).
  std::set<std::string> metrics;
  for (const auto& row : rows)
    for (const auto& [k, v] : row)
      if (k.rfind(kMetricPrefix, 0) == 0) metrics.insert(k);
  cols.insert(cols.end(), metrics.begin(), metrics.end());
  std::string csv;
  for (std::size_t i = 0; i < cols.size(); ++i) csv += (i ? "," : "") + csv_field(cols[i]);
  csv += "\n";
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < cols.size(); ++i) {
      auto it = row.find(cols[i]);
      csv += (i ? "," : "") + csv_field(it == row.end() ? "" : it->second);
    }
    csv += "\n";
  }
  write_file(out / "results.csv", csv);
  write_sqlite(out / "results.sqlite", cols, rows, sweep_file);

  return rows;
}

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
    // From the largest size down, while the mean p99 stays within the tolerance: a size that passes by
    // chance below one that does not is no knee.
    for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {
      const double p = it->second.second.first / it->second.second.second;
      if (p > k.reference_p99 * (1 + tolerance)) break;
      k.knee = it->second.first;
      k.knee_p99 = p;
    }
    out.push_back(k);
  }
  return out;
}

void write_knee_report(const fs::path& out, const SweepSpec& spec, const std::string& size_key,
                       const std::vector<std::map<std::string, std::string>>& rows) {
  const auto knees = knee_report(spec.swept_keys, size_key, rows);
  std::string kcsv = "group," + size_key + ",largest,knee_p99_ns,reference_p99_ns\n";
  std::cout << fmt::format("knee: smallest {} from which every larger size's p99 FCT is within 5% of the largest "
                           "(unbounded) size's (mean over seeds)\n", size_key);
  for (const auto& k : knees) {
    std::cout << fmt::format("  {:<40} knee {:>8}  (p99 {:.3f} us vs {:.3f} us at {})\n",
                             k.group.empty() ? "(all points)" : k.group, k.knee.empty() ? "none" : k.knee,
                             k.knee_p99 / 1000, k.reference_p99 / 1000, k.largest);
    kcsv += fmt::format("{},{},{},{},{}\n", csv_field(k.group), k.knee, k.largest, k.knee_p99, k.reference_p99);
  }
  write_file(out / "knee.csv", kcsv);
}

}  // namespace netasic::sizing
