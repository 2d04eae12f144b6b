// Scenario keys: defaults, YAML, --set, and every kind of bad input naming the key or line.
#include <gtest/gtest.h>

#include "tb/choices.h"
#include "tb/config/builders.h"
#include "tb/scenario.h"
#include "tlm/common/error.h"
#include "tlm/model/egress_fc.h"
#include "tlm/model/nic.h"
#include "tlm/model/routing.h"

namespace netasic {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Scenario, DefaultsParseForEveryKey) {
  Scenario s;
  EXPECT_EQ(s.string("topology.type"), "fat_tree");
  EXPECT_EQ(s.integer("topology.fat_tree.k"), 8);
  EXPECT_DOUBLE_EQ(s.number("switch.latency_ns"), 350);
  EXPECT_EQ(s.integer("switch.egress_queues"), 8);
  EXPECT_TRUE(s.list("topology.leaf_spine.remove_links").empty());
  for (const auto& k : scenario_keys()) {
    EXPECT_FALSE(k.description.empty()) << k.name;
    EXPECT_TRUE(s.is_default(k.name));
  }
}

TEST(Scenario, YamlNestedMapsAndLists) {
  Scenario s;
  s.load_yaml_text("topology:\n  type: leaf_spine\n  leaf_spine:\n    leaves: 4\n    remove_links: [0-1, 2-0]\n"
                   "link:\n  rate_gbps: 100\n",
                   "t.yaml");
  EXPECT_EQ(s.string("topology.type"), "leaf_spine");
  EXPECT_EQ(s.integer("topology.leaf_spine.leaves"), 4);
  EXPECT_EQ(s.list("topology.leaf_spine.remove_links").size(), 2u);
  EXPECT_DOUBLE_EQ(s.number("link.rate_gbps"), 100);
  EXPECT_EQ(s.origin("link.rate_gbps"), "t.yaml:7");
}

TEST(Scenario, UnknownKeyNamesFileLineAndSuggestion) {
  Scenario s;
  const std::string e = error_of([&] { s.load_yaml_text("link:\n  rate_gpbs: 100\n", "bad.yaml"); });
  EXPECT_NE(e.find("bad.yaml:2"), std::string::npos) << e;
  EXPECT_NE(e.find("link.rate_gpbs"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'link.rate_gbps'"), std::string::npos) << e;
}

TEST(Scenario, WrongTypeOutOfRangeAndBadChoice) {
  Scenario s;
  std::string e = error_of([&] { s.set_assignment("topology.fat_tree.k=eight"); });
  EXPECT_NE(e.find("not an integer"), std::string::npos) << e;
  EXPECT_NE(e.find("2..64"), std::string::npos) << e;
  e = error_of([&] { s.set_assignment("link.rate_gbps=-5"); });
  EXPECT_NE(e.find("out of range"), std::string::npos) << e;
  e = error_of([&] { s.set_assignment("link.rate_gbps=0"); });
  EXPECT_NE(e.find("out of range"), std::string::npos) << e;
  e = error_of([&] { s.set_assignment("routing.policy=random"); });
  EXPECT_NE(e.find("one of: ecmp, spray, adaptive, minimal, valiant, ugal"), std::string::npos) << e;
  e = error_of([&] { s.set_assignment("topology.fat_tree.k=4.5"); });
  EXPECT_NE(e.find("not an integer"), std::string::npos) << e;
  e = error_of([&] { s.set_assignment("no_equals_sign"); });
  EXPECT_NE(e.find("expected KEY=VALUE"), std::string::npos) << e;
  e = error_of([&] { s.load_yaml_text("link: [1, 2]\n", "x.yaml"); });
  EXPECT_NE(e.find("x.yaml:1"), std::string::npos) << e;
  e = error_of([&] { s.load_yaml_text("link:\n  rate_gbps:\n", "y.yaml"); });
  EXPECT_NE(e.find("has no value"), std::string::npos) << e;
  e = error_of([&] { s.load_yaml_text("a: [\n", "z.yaml"); });
  EXPECT_NE(e.find("not valid YAML"), std::string::npos) << e;
}

TEST(Scenario, NumbersArePlainDecimalAndIntegerRangesExact) {
  Scenario s;
  // Hex, hex floats, inf and nan are not decimal, in a number or an integer key, from --set or YAML.
  for (const char* bad : {"link.rate_gbps=0x10", "link.rate_gbps=0x1p4", "link.rate_gbps=inf", "link.rate_gbps=1e",
                          "link.rate_gbps=.", "link.rate_gbps=1.5.2"}) {
    const std::string e = error_of([&] { s.set_assignment(bad); });
    EXPECT_NE(e.find("not a number"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("accepted: number 0.001..100000"), std::string::npos) << e;
  }
  std::string e = error_of([&] { s.load_yaml_text("nic:\n  mtu_bytes: 0x400\n", "hex.yaml"); });
  EXPECT_NE(e.find("hex.yaml:2: nic.mtu_bytes = '0x400': not an integer"), std::string::npos) << e;
  e = error_of([&] { s.set_assignment("nic.mtu_bytes=+0x400"); });
  EXPECT_NE(e.find("not an integer"), std::string::npos) << e;
  // Decimal forms the registry documents still parse.
  s.set_assignment("link.rate_gbps=1e2");
  EXPECT_DOUBLE_EQ(s.number("link.rate_gbps"), 100);
  s.set_assignment("link.rate_gbps=.5");
  EXPECT_DOUBLE_EQ(s.number("link.rate_gbps"), 0.5);
  s.set_assignment("failures.degraded_factor=1E-6");
  EXPECT_DOUBLE_EQ(s.number("failures.degraded_factor"), 1e-6);
  s.set_assignment("nic.mtu_bytes=+1024");
  EXPECT_EQ(s.integer("nic.mtu_bytes"), 1024);
  // sim.seed's maximum is 1e18 exactly: one above it is out of range (a double comparison let it pass).
  s.set_assignment("sim.seed=1000000000000000000");
  EXPECT_EQ(s.integer("sim.seed"), 1000000000000000000LL);
  e = error_of([&] { s.set_assignment("sim.seed=1000000000000000001"); });
  EXPECT_NE(e.find("sim.seed = '1000000000000000001': out of range; accepted: integer 0..1e+18"),
            std::string::npos) << e;
  e = error_of([&] { s.set("sim.seed", "-1", "--seed"); });
  EXPECT_NE(e.find("--seed: sim.seed = '-1': out of range"), std::string::npos) << e;
}

TEST(Scenario, YamlKeySetTwiceOrSecondDocumentNamesFileLineAndKey) {
  Scenario s;
  std::string e = error_of([&] { s.load_yaml_text("link:\n  rate_gbps: 100\n  rate_gbps: 200\n", "dup.yaml"); });
  EXPECT_NE(e.find("dup.yaml:3: duplicate key 'rate_gbps' (link.rate_gbps) in one map, first on line 2"),
            std::string::npos) << e;
  e = error_of([&] { s.load_yaml_text("link:\n  rate_gbps: 100\nnic:\n  mtu_bytes: 1024\nlink:\n  prop_delay_ns: 5\n",
                                      "dupmap.yaml"); });
  EXPECT_NE(e.find("dupmap.yaml:5: duplicate key 'link'"), std::string::npos) << e;
  e = error_of([&] { s.load_yaml_text("link:\n  rate_gbps: 100\nlink.rate_gbps: 200\n", "dotted.yaml"); });
  EXPECT_NE(e.find("dotted.yaml:3: key 'link.rate_gbps' is already set on line 2"), std::string::npos) << e;
  e = error_of([&] { s.load_yaml_text("link.rate_gbps: 200\nlink:\n  rate_gbps: 100\n", "dotted2.yaml"); });
  EXPECT_NE(e.find("dotted2.yaml:3: key 'link.rate_gbps' is already set on line 1"), std::string::npos) << e;
  e = error_of([&] { s.load_yaml_text("link:\n  rate_gbps: 100\n---\nlink:\n  rate_gbps: 200\n", "docs.yaml"); });
  EXPECT_NE(e.find("docs.yaml:4: a second YAML document"), std::string::npos) << e;
  // One document, with or without its markers, and distinct keys in both spellings, are fine.
  Scenario ok;
  ok.load_yaml_text("---\nlink:\n  rate_gbps: 100\nlink.prop_delay_ns: 5\n...\n", "ok.yaml");
  EXPECT_DOUBLE_EQ(ok.number("link.rate_gbps"), 100);
  EXPECT_DOUBLE_EQ(ok.number("link.prop_delay_ns"), 5);
}

TEST(Scenario, DirectoryIsNotAScenarioFile) {
  Scenario s;
  const std::string e = error_of([&] { s.load_yaml_file("/tmp"); });
  EXPECT_NE(e.find("/tmp: is a directory, not a scenario file"), std::string::npos) << e;
}

TEST(Scenario, ChoiceKeysReadAsTheirEnum) {
  Scenario s;
  EXPECT_EQ(s.choice<RoutingPolicy>("routing.policy"), RoutingPolicy::ecmp);
  EXPECT_EQ(s.choice<TopologyType>("topology.type"), TopologyType::fat_tree);
  s.set_assignment("nic.transport=sr");
  EXPECT_EQ(s.choice<TransportKind>("nic.transport"), TransportKind::selective_repeat);
  s.set_assignment("switch.flow_control=flowsail");
  EXPECT_EQ(s.choice<FcMode>("switch.flow_control"), FcMode::flowsail);
  s.set_assignment("routing.up_down=auto");
  EXPECT_EQ(s.choice<UpDownMode>("routing.up_down"), UpDownMode::automatic);
  // Reading a key as another enum, or a non-choice key as an enum, is a program error.
  EXPECT_THROW(s.choice<TransportKind>("routing.policy"), ModelError);
  EXPECT_THROW(s.choice<TransportKind>("nic.mtu_bytes"), ModelError);
}

TEST(Scenario, EveryChoiceMapsToDistinctEnumerators) {
  for (const auto& k : scenario_keys()) {
    if (k.type != KeyType::choice) continue;
    EXPECT_NE(k.choice_type, std::type_index(typeid(void))) << k.name;
    bool default_accepted = false;
    for (std::size_t i = 0; i < k.choices.size(); ++i) {
      default_accepted = default_accepted || k.choices[i].name == k.default_value;
      for (std::size_t j = i + 1; j < k.choices.size(); ++j) {
        EXPECT_NE(k.choices[i].name, k.choices[j].name) << k.name;
        EXPECT_NE(k.choices[i].value, k.choices[j].value) << k.name;
      }
      EXPECT_EQ(k.choice_name(k.choices[i].value), k.choices[i].name) << k.name;
    }
    EXPECT_TRUE(default_accepted) << k.name;
  }
}

// The builders read each choice key as its enum and reject invalid combinations naming existing keys.
TEST(Builders, NicConfigTakesTheTransportAndCongestionControlFromTheirKeys) {
  Scenario s;
  Topology t;  // no links: nothing can be lost, so no retransmission timer
  const std::pair<const char*, TransportKind> transports[] = {{"basic", TransportKind::basic},
                                                              {"reorder", TransportKind::reorder},
                                                              {"gbn", TransportKind::go_back_n},
                                                              {"sr", TransportKind::selective_repeat}};
  for (const auto& [name, kind] : transports) {
    s.set("nic.transport", name, "test");
    EXPECT_EQ(build_nic_config(s, t, nullptr).transport, kind) << name;
  }
  s.set("nic.cc", "dctcp", "test");
  s.set("nic.dctcp.slow_start", "off", "test");
  const NicConfig nic = build_nic_config(s, t, nullptr);
  EXPECT_EQ(nic.cc, CongestionControlKind::dctcp);
  EXPECT_FALSE(nic.dctcp_config.slow_start);
  EXPECT_EQ(nic.rto_ps, 0u);
  s.set("link.flow_control", "lossy", "test");
  EXPECT_GT(build_nic_config(s, t, nullptr).rto_ps, 0u);
}

TEST(Builders, ReorderBufferChecksNameTheKeys) {
  Scenario s;
  Topology t;
  s.set("nic.transport", "reorder", "test");
  s.set("nic.reorder.memory", "dynamic", "test");
  s.set("nic.reorder.connection", "pair", "test");
  s.set("nic.reorder.injection", "unlimited", "test");
  const NicConfig nic = build_nic_config(s, t, nullptr);
  EXPECT_EQ(nic.reorder_buffer.memory, ReorderMemory::dynamic_pool);
  EXPECT_TRUE(nic.pair_connections);
  EXPECT_EQ(nic.injection, NicConfig::Injection::unlimited);
  s.set("nic.reorder.injection", "adap_lw", "test");
  const std::string e = error_of([&] { build_nic_config(s, t, nullptr); });
  EXPECT_NE(e.find("nic.reorder.injection = adap_lw needs nic.reorder.memory = static"), std::string::npos) << e;
}

TEST(Builders, EgressFlowControlNeedsLosslessLinksAndValidQueues) {
  Scenario s;
  s.set("switch.flow_control", "bfc", "test");
  s.set("switch.fc.scheduler", "drr", "test");
  const EgressFcConfig fc = build_egress_fc_config(s, 4160);
  EXPECT_EQ(fc.mode, FcMode::bfc);
  EXPECT_TRUE(fc.drr);
  s.set("link.flow_control", "lossy", "test");
  std::string e = error_of([&] { build_egress_fc_config(s, 4160); });
  EXPECT_NE(e.find("switch.flow_control = bfc needs link.flow_control = lossless"), std::string::npos) << e;
  s.set("link.flow_control", "lossless", "test");
  s.set("switch.fc.nft_entries", "1000", "test");
  e = error_of([&] { build_egress_fc_config(s, 4160); });
  EXPECT_NE(e.find("switch.fc.nft_entries = 1000: must be a power of two"), std::string::npos) << e;
  s.set("switch.fc.nft_entries", "1024", "test");
  s.set("switch.pfc.xoff_bytes", "1000", "test");
  s.set("switch.pfc.xon_bytes", "2000", "test");
  e = error_of([&] { build_egress_fc_config(s, 4160); });
  EXPECT_NE(e.find("switch.pfc.xon_bytes = 2000 is above switch.pfc.xoff_bytes = 1000"), std::string::npos) << e;
  // Without hop-by-hop flow control nothing of it is checked.
  s.set("switch.flow_control", "none", "test");
  s.set("link.flow_control", "lossy", "test");
  EXPECT_EQ(build_egress_fc_config(s, 4160).mode, FcMode::none);
}

TEST(Scenario, ResolvedJsonIsNested) {
  Scenario s;
  s.set_assignment("nic.mtu_bytes=1024");
  const auto j = s.to_json();
  EXPECT_EQ(j["nic"]["mtu_bytes"].get<std::int64_t>(), 1024);
  EXPECT_EQ(j["topology"]["fat_tree"]["k"].get<std::int64_t>(), 8);
}

}  // namespace
}  // namespace netasic
