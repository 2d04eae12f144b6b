// The report every mechanism writes its statistics into (report.h).
#include "tlm/model/report.h"

#include <algorithm>

namespace netasic {

void ReportSection::sum(const std::string& key, std::uint64_t value) {
  nlohmann::json& v = at(key);
  v = v.is_null() ? value : v.get<std::uint64_t>() + value;
}

void ReportSection::sum(const std::string& key, const std::vector<std::uint64_t>& buckets) {
  nlohmann::json& v = at(key);
  if (v.is_null()) {
    v = buckets;
    return;
  }
  auto total = v.get<std::vector<std::uint64_t>>();
  total.resize(std::max(total.size(), buckets.size()), 0);
  for (std::size_t b = 0; b < buckets.size(); ++b) total[b] += buckets[b];
  v = total;
}

void ReportSection::max(const std::string& key, std::uint64_t value) {
  nlohmann::json& v = at(key);
  if (v.is_null() || v.get<std::uint64_t>() < value) v = value;
}

void ReportSection::max(const std::string& key, double value) {
  nlohmann::json& v = at(key);
  if (v.is_null() || v.get<double>() < value) v = value;
}

void ReportSection::min(const std::string& key, std::uint64_t value) {
  nlohmann::json& v = at(key);
  if (v.is_null() || v.get<std::uint64_t>() > value) v = value;
}

std::uint64_t ReportSection::tally(const std::string& name) const {
  const auto it = tallies_.find(name);
  return it == tallies_.end() ? 0 : it->second;
}

double ReportSection::flow_sum(const std::string& name) const {
  const auto it = flow_values_.find(name);
  if (it == flow_values_.end()) return 0.0;
  auto values = it->second;
  std::stable_sort(values.begin(), values.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double sum = 0;
  for (const auto& [flow, value] : values) sum += value;
  return sum;
}

std::size_t ReportSection::flow_count(const std::string& name) const {
  const auto it = flow_values_.find(name);
  return it == flow_values_.end() ? 0 : it->second.size();
}

nlohmann::json ReportSection::finish() {
  if (finish_) finish_(*this);
  return values_;
}

nlohmann::json& Report::table(const std::string& kind) {
  nlohmann::json& t = tables_[kind];
  if (t.is_null()) t = nlohmann::json::array();
  return t;
}

void Report::write_sections(nlohmann::json& summary) {
  for (auto& [name, section] : sections_)
    if (section.is_open()) summary[name] = section.finish();
}

nlohmann::json occupancy_json(const LogHistogram& h) {
  nlohmann::json j{{"mean", h.mean()}};
  for (const auto& [name, q] : kOccupancyQuantiles) j[name] = h.quantile(q);
  nlohmann::json levels = nlohmann::json::array();
  const auto& c = h.counts();
  for (std::uint32_t b = 0; b < c.size(); ++b)
    if (c[b]) levels.push_back({LogHistogram::upper(b), c[b]});
  j["levels"] = std::move(levels);
  return j;
}

}  // namespace netasic
