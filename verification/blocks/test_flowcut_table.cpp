#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tlm/blocks/flowcut_table.h"
#include "tlm/common/error.h"
#include "tlm/common/rng.h"

namespace netasic {
namespace {

FlowcutTableConfig small(FlowcutOrganization org, std::uint32_t entries = 4, unsigned ways = 2) {
  FlowcutTableConfig c;
  c.entries = entries;
  c.organization = org;
  c.ways = ways;
  c.key_bits = 32;
  c.histogram_buckets = 1;
  return c;
}

TEST(FlowcutTable, StorageMatchesPaperTableIII) {
  FlowcutTableConfig c;
  c.variant = FlowcutVariant::full_switch;
  EXPECT_EQ(FlowcutTable(c).storage().state_bytes(), 11u);
  EXPECT_EQ(FlowcutTable(c).storage().state_bits, 88u);
  c.variant = FlowcutVariant::ingress_only;
  EXPECT_EQ(FlowcutTable(c).storage().state_bytes(), 10u);
  c.variant = FlowcutVariant::nic_only;
  c.key_bits = 32;
  const auto s = FlowcutTable(c).storage();
  EXPECT_EQ(s.state_bytes(), 10u);
  EXPECT_EQ(s.entry_bits, 32u + 1 + 8 + 24 + 16 * 3 + 1);
  EXPECT_EQ(s.total_bits, std::uint64_t{s.entry_bits} * c.entries);
}

TEST(FlowcutTable, RejectsBadParametersNamingThem) {
  auto expect_msg = [](FlowcutTableConfig c, const char* name) {
    try {
      FlowcutTable t(c);
      ADD_FAILURE() << "no InputError for " << name;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  };
  FlowcutTableConfig c;
  c.entries = 3;
  expect_msg(c, "entries");
  c = FlowcutTableConfig{};
  c.entries = (1u << 20) + 1;
  expect_msg(c, "entries");
  c = FlowcutTableConfig{};
  c.key_bits = 12;
  expect_msg(c, "key_bits");
  c = FlowcutTableConfig{};
  c.organization = FlowcutOrganization::set_associative;
  c.entries = 24;
  c.ways = 2;
  expect_msg(c, "entries / ways");
  c.ways = 17;
  c.entries = 17 * 4;
  expect_msg(c, "ways");
  c = FlowcutTableConfig{};
  c.inflight_bits = 3;
  expect_msg(c, "inflight_bits");
}

TEST(FlowcutTable, FullyAssociativeFillsThenReportsFull) {
  FlowcutTable t(small(FlowcutOrganization::fully_associative));
  for (std::uint32_t k = 0; k < 4; ++k) {
    auto r = t.insert(WideKey::from_id(100 + k), static_cast<std::uint16_t>(k), 7);
    EXPECT_EQ(r.status, InsertStatus::ok);
    EXPECT_EQ(r.index, k);  // lowest free entry first
  }
  EXPECT_EQ(t.insert(WideKey::from_id(200), 1).status, InsertStatus::full);
  EXPECT_EQ(t.insert(WideKey::from_id(101), 1).status, InsertStatus::exists);
  EXPECT_EQ(t.insert(WideKey::from_id(101), 1).index, 1u);
  EXPECT_EQ(t.read(1).in_port, 7);
  EXPECT_EQ(t.insert_failures(), 1u);
  EXPECT_EQ(t.high_water(), 4u);
  // ACK drains entry 2 to zero: deleted, its slot is reused by the next insert.
  EXPECT_EQ(t.add_bytes(2, 1500).inflight, 1500u);
  auto a = t.ack_subtract(WideKey::from_id(102), 1000);
  EXPECT_TRUE(a.found);
  EXPECT_EQ(a.remaining, 500u);
  EXPECT_FALSE(a.deleted);
  a = t.ack_subtract(WideKey::from_id(102), 500);
  EXPECT_TRUE(a.deleted);
  EXPECT_EQ(t.occupancy(), 3u);
  EXPECT_FALSE(t.lookup(WideKey::from_id(102)).has_value());
  EXPECT_EQ(t.insert(WideKey::from_id(300), 2).index, 2u);
}

TEST(FlowcutTable, SetFullWhileTableHasRoom) {
  FlowcutTable t(small(FlowcutOrganization::set_associative, 4, 2));
  ASSERT_EQ(t.sets(), 2u);
  // Three keys of one set: the third finds its set full while the other set is empty.
  std::vector<std::uint32_t> same;
  for (std::uint32_t k = 0; same.size() < 3; ++k)
    if (t.set_of(WideKey::from_id(k)) == 0) same.push_back(k);
  EXPECT_EQ(t.insert(WideKey::from_id(same[0]), 1).index, 0u);
  EXPECT_EQ(t.insert(WideKey::from_id(same[1]), 1).index, 1u);
  EXPECT_EQ(t.insert(WideKey::from_id(same[2]), 1).status, InsertStatus::set_full);
  EXPECT_EQ(t.occupancy(), 2u);
  EXPECT_EQ(t.set_of(WideKey::from_id(same[0])), crc32_u32(same[0]) & 1u);
}

TEST(FlowcutTable, InflightSaturatesAndReports) {
  auto c = small(FlowcutOrganization::fully_associative);
  c.inflight_bits = 4;
  FlowcutTable t(c);
  const auto i = t.insert(WideKey::from_id(1), 0).index;
  EXPECT_EQ(t.add_bytes(i, 10).status, AddStatus::ok);
  const auto r = t.add_bytes(i, 10);
  EXPECT_EQ(r.status, AddStatus::saturated);
  EXPECT_EQ(r.inflight, 15u);
  EXPECT_EQ(t.saturations(), 1u);
  EXPECT_EQ(t.add_bytes(3, 1).status, AddStatus::invalid_index);
  const auto a = t.ack_subtract(WideKey::from_id(1), 20);
  EXPECT_TRUE(a.underflow);
  EXPECT_TRUE(a.deleted);
}

TEST(FlowcutTable, RttAndDrainFields) {
  FlowcutTable t(small(FlowcutOrganization::fully_associative));
  const auto i = t.insert(WideKey::from_id(9), 3, 4).index;
  EXPECT_TRUE(t.set_rtt(i, 100, 200, 300));
  EXPECT_TRUE(t.set_drain(i, true));
  const auto e = t.read(i);
  EXPECT_EQ(e.rtt_avg, 100);
  EXPECT_EQ(e.last_rtt, 200);
  EXPECT_EQ(e.rtt_diff_avg, 300);
  EXPECT_TRUE(e.draining);
  EXPECT_FALSE(t.set_drain(i + 1, true));
  EXPECT_TRUE(t.erase(WideKey::from_id(9)));
  EXPECT_FALSE(t.read(i).valid);
  EXPECT_FALSE(t.erase(WideKey::from_id(9)));
}

// Random operations against a std::map reference that knows only capacity rules, not the layout.
void random_against_map(FlowcutTableConfig c, std::uint64_t seed) {
  FlowcutTable t(c);
  struct Ref {
    std::uint32_t inflight;
    std::uint32_t index;
  };
  std::map<WideKey, Ref> ref;
  Rng rng(seed, 1);
  const std::uint32_t max = (1u << c.inflight_bits) - 1;
  std::uint64_t ops = 0;
  for (int step = 0; step < 20000; ++step) {
    const WideKey k = WideKey::from_id(static_cast<std::uint32_t>(rng.below(c.entries * 3)));
    const auto op = rng.below(4);
    ++ops;
    auto it = ref.find(k);
    if (op == 0) {
      auto r = t.insert(k, 1);
      if (it != ref.end()) {
        ASSERT_EQ(r.status, InsertStatus::exists);
        ASSERT_EQ(r.index, it->second.index);
      } else {
        std::uint32_t in_set = 0;
        for (auto& [kk, v] : ref) in_set += t.set_of(kk) == t.set_of(k);
        const bool table_full = ref.size() == c.entries;
        const bool set_full = c.organization == FlowcutOrganization::set_associative && in_set == c.ways;
        if (table_full) {
          ASSERT_EQ(r.status, InsertStatus::full);
        } else if (set_full) {
          ASSERT_EQ(r.status, InsertStatus::set_full);
        } else {
          ASSERT_EQ(r.status, InsertStatus::ok);
          for (auto& [kk, v] : ref) ASSERT_NE(v.index, r.index) << "index reused while live";
          if (c.organization == FlowcutOrganization::set_associative) {
            ASSERT_EQ(r.index / c.ways, t.set_of(k));
          }
          ref[k] = {0, r.index};
        }
      }
    } else if (op == 1) {
      if (it == ref.end()) {
        --ops;
        continue;
      }
      const std::uint32_t n = static_cast<std::uint32_t>(rng.below(max / 2 + 2));
      auto r = t.add_bytes(it->second.index, n);
      const std::uint64_t sum = std::uint64_t{it->second.inflight} + n;
      ASSERT_EQ(r.status, sum > max ? AddStatus::saturated : AddStatus::ok);
      it->second.inflight = static_cast<std::uint32_t>(std::min<std::uint64_t>(sum, max));
      ASSERT_EQ(r.inflight, it->second.inflight);
    } else if (op == 2) {
      const std::uint32_t n = static_cast<std::uint32_t>(rng.below(max / 2 + 2));
      auto r = t.ack_subtract(k, n);
      ASSERT_EQ(r.found, it != ref.end());
      if (it != ref.end()) {
        const std::uint32_t rem = n >= it->second.inflight ? 0 : it->second.inflight - n;
        ASSERT_EQ(r.remaining, rem);
        ASSERT_EQ(r.deleted, rem == 0);
        if (rem == 0) ref.erase(it);
        else it->second.inflight = rem;
      }
    } else {
      auto r = t.lookup(k);
      ASSERT_EQ(r.has_value(), it != ref.end());
      if (r) {
        ASSERT_EQ(*r, it->second.index);
      }
    }
    ASSERT_EQ(t.occupancy(), ref.size());
  }
  std::uint64_t samples = 0;
  for (auto h : t.occupancy_histogram()) samples += h;
  EXPECT_EQ(samples, ops);  // every operation that reached the table is sampled once
  EXPECT_EQ(t.high_water(), c.entries);
}

TEST(FlowcutTable, RandomFullyAssociativeAgainstMap) {
  auto c = small(FlowcutOrganization::fully_associative);
  c.inflight_bits = 6;
  random_against_map(c, 1);
}
TEST(FlowcutTable, RandomSetAssociativeAgainstMap) {
  auto c = small(FlowcutOrganization::set_associative, 8, 2);
  c.inflight_bits = 6;
  random_against_map(c, 2);
}
TEST(FlowcutTable, RandomDirectMappedAgainstMap) {
  auto c = small(FlowcutOrganization::set_associative, 8, 1);
  c.inflight_bits = 6;
  random_against_map(c, 3);
}

TEST(FlowcutTable, FiveTupleKeys) {
  FlowcutTableConfig c;
  c.entries = 64;
  c.organization = FlowcutOrganization::set_associative;
  c.ways = 4;
  FlowcutTable t(c);
  FlowKey k;
  k.src_addr = 1;
  k.dst_addr = 2;
  const WideKey w = WideKey::from_flow(k);
  const auto r = t.insert(w, 5, 6);
  ASSERT_EQ(r.status, InsertStatus::ok);
  EXPECT_EQ(r.index / 4, crc32_key(w, 104) & 15u);
  EXPECT_EQ(t.lookup(w), r.index);
  k.src_port = 1;
  EXPECT_FALSE(t.lookup(WideKey::from_flow(k)).has_value());
}

}  // namespace
}  // namespace netasic
