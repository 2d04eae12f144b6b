// The Flowcut engine on its own, at the NIC site (the source is the owner: a drain pauses the flow in
// place): table bookkeeping, the drain trigger and the early-resume rule (release a draining entry when
// what is still in flight is at most k x the largest payload per packet).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tlm/model/fabric.h"
#include "tlm/model/flowcut_engine.h"

namespace netasic {
namespace {

struct SourceOwner : FlowcutOwner {
  Ps ack_transmission_term(std::uint16_t, std::uint32_t, unsigned) const override { return 0; }
  void pause_source(const FlowcutSource& s) override {
    ++pauses;
    last_flow = s.flow;
  }
  void resume_source(const FlowcutSource& s) override {
    ++resumes;
    last_flow = s.flow;
  }
  int pauses = 0, resumes = 0;
  std::uint32_t last_flow = 0;
};

FlowcutParams nic_params(std::uint32_t k) {
  FlowcutParams p;
  p.variant = FlowcutVariant::nic_only;
  p.table.variant = FlowcutVariant::nic_only;
  p.table.entries = 16;
  p.rtt_ratio_threshold = 0;  // every RTT sample asks for a drain: the first sampled ACK starts one
  p.early_resume_packets = k;
  p.max_payload_bytes = 4096;
  return p;
}

Fabric& fabric() {
  static Fabric f("engine_fabric", 0);
  return f;
}

class EngineAtNic : public ::testing::Test {
 protected:
  void make(std::uint32_t k) {
    params_ = nic_params(k);
    engine_ = std::make_unique<FlowcutEngine>(params_, FlowcutSite::nic, "nic", owner_, fabric(), nullptr, 1000);
  }
  FlowcutEngine::Sent send(std::uint32_t payload) {
    return engine_->send_at_source(WideKey::from_id(kFlow), kFlow, payload, [&](bool) {
      ++new_flowcuts_;
      return std::uint16_t{0};
    });
  }
  void ack(std::uint32_t bytes, std::uint32_t epoch, std::uint64_t packets_left = 100, bool more_to_send = true) {
    FlowcutEngine::Ack a;
    a.key = WideKey::from_id(kFlow);
    a.shadow_slot = kFlow;
    a.bytes = bytes;
    a.epoch = epoch;
    a.tracked = true;
    a.at_source = true;
    a.hops = 2;
    a.packets_left = packets_left;
    a.more_to_send = more_to_send;
    a.source = FlowcutSource{0, 0xabcd, kFlow};
    engine_->on_ack(a);
  }
  bool has_entry() { return engine_->table().lookup(WideKey::from_id(kFlow)).has_value(); }

  static constexpr std::uint32_t kFlow = 7;
  FlowcutParams params_;
  SourceOwner owner_;
  std::unique_ptr<FlowcutEngine> engine_;
  int new_flowcuts_ = 0;
};

TEST_F(EngineAtNic, OneFullAndOneShortPacketInFlightAreMoreThanOneWithKOne) {
  make(1);
  const auto a = send(4096);
  send(4096);
  send(64);  // the flow's short last packet
  ASSERT_TRUE(a.tracked);
  EXPECT_EQ(new_flowcuts_, 1);
  EXPECT_EQ(engine_->packets_in_flight(*engine_->table().lookup(WideKey::from_id(kFlow))), 3u);
  // The first ACK starts the drain; 4096 + 64 bytes (two packets) stay in flight: 4160 fits in one
  // packet of MTU + header, but two packets are more than k = 1, so the entry stays.
  ack(4096, a.epoch);
  EXPECT_EQ(owner_.pauses, 1);
  EXPECT_EQ(engine_->counters().drains, 1u);
  EXPECT_EQ(engine_->counters().early_resumes, 0u);
  EXPECT_EQ(owner_.resumes, 0);
  EXPECT_TRUE(has_entry());
  // The next ACK leaves one packet (k) in flight: released early, the source resumes.
  ack(4096, a.epoch);
  EXPECT_EQ(engine_->counters().early_resumes, 1u);
  EXPECT_EQ(engine_->counters().max_packets_at_early_resume, 1u);
  EXPECT_EQ(engine_->counters().drains_completed, 1u);
  EXPECT_EQ(owner_.resumes, 1);
  EXPECT_EQ(owner_.last_flow, kFlow);
  EXPECT_FALSE(has_entry());
  // The last packet's ACK belongs to the released flowcut: not counted against a new entry.
  const auto next = send(4096);
  EXPECT_TRUE(next.new_flowcut);
  EXPECT_NE(next.epoch, a.epoch);
  ack(64, a.epoch);
  EXPECT_EQ(engine_->counters().acks_unmatched, 1u);
  EXPECT_EQ(engine_->packets_in_flight(*engine_->table().lookup(WideKey::from_id(kFlow))), 1u);
}

TEST_F(EngineAtNic, ExactlyKPacketsInFlightAreReleasedEarly) {
  make(1);
  const auto a = send(4096);
  send(4096);
  ack(4096, a.epoch);  // drain starts, one full packet left in flight
  EXPECT_EQ(engine_->counters().early_resumes, 1u);
  EXPECT_EQ(engine_->counters().max_packets_at_early_resume, 1u);
  EXPECT_EQ(owner_.pauses, 1);
  EXPECT_EQ(owner_.resumes, 1);
  EXPECT_FALSE(has_entry());
}

TEST_F(EngineAtNic, StrictDrainResumesOnlyWhenEmpty) {
  make(0);
  const auto a = send(4096);
  send(4096);
  ack(4096, a.epoch);
  EXPECT_EQ(owner_.pauses, 1);
  EXPECT_EQ(owner_.resumes, 0);
  EXPECT_TRUE(has_entry());
  ack(4096, a.epoch);
  EXPECT_EQ(owner_.resumes, 1);
  EXPECT_EQ(engine_->counters().early_resumes, 0u);
  EXPECT_EQ(engine_->counters().drains_completed, 1u);
  EXPECT_FALSE(has_entry());
}

TEST_F(EngineAtNic, FullTableCountsUntrackedBytesAndHolds) {
  make(0);
  params_.table.entries = 4;
  params_.overflow = FlowcutOverflow::hold;
  engine_ = std::make_unique<FlowcutEngine>(params_, FlowcutSite::nic, "nic_small", owner_, fabric(), nullptr, 1000);
  for (std::uint32_t id = 100; id < 104; ++id)
    EXPECT_TRUE(engine_->send_at_source(WideKey::from_id(id), id, 4096, [](bool) { return std::uint16_t{0}; }).tracked);
  EXPECT_TRUE(engine_->must_hold(WideKey::from_id(kFlow)));
  EXPECT_FALSE(engine_->must_hold(WideKey::from_id(100)));
  bool saw_shadow = true;
  const auto s = engine_->send_at_source(WideKey::from_id(kFlow), kFlow, 512, [&](bool shadowed) {
    saw_shadow = shadowed;
    return std::uint16_t{0};
  });
  EXPECT_FALSE(saw_shadow);
  EXPECT_FALSE(s.tracked);
  EXPECT_EQ(engine_->counters().overflows, 1u);
  EXPECT_EQ(engine_->counters().untracked_packets, 1u);
  EXPECT_TRUE(engine_->shadowed(kFlow));
  // The untracked packet's ACK clears its shadow counter: a new flowcut may then change path.
  FlowcutEngine::Ack a;
  a.key = WideKey::from_id(kFlow);
  a.shadow_slot = kFlow;
  a.bytes = 512;
  a.tracked = false;
  engine_->on_ack(a);
  EXPECT_FALSE(engine_->shadowed(kFlow));
}

// The NIC passes what its flow still has to send (Nic::nic_flowcut_ack): a flow with nothing more to send,
// or fewer packets left than flowcut.min_packets_left, is not drained (a pause could not help it).
TEST_F(EngineAtNic, NoDrainWithNothingMoreToSendOrTooFewPacketsLeft) {
  params_ = nic_params(0);
  params_.min_packets_left = 4;
  engine_ = std::make_unique<FlowcutEngine>(params_, FlowcutSite::nic, "nic_left", owner_, fabric(), nullptr, 1000);
  const auto a = send(4096);
  send(4096);
  send(4096);
  ack(4096, a.epoch, 100, false);  // everything sent
  ack(4096, a.epoch, 3, true);     // below min_packets_left
  EXPECT_EQ(owner_.pauses, 0);
  EXPECT_EQ(engine_->counters().drains, 0u);
  ack(4096, a.epoch, 4, true);     // the last ACK empties the entry: no RTT sample, no drain
  EXPECT_EQ(owner_.pauses, 0);
  EXPECT_FALSE(has_entry());
  const auto b = send(4096);
  send(4096);
  ack(4096, b.epoch, 4, true);
  EXPECT_EQ(owner_.pauses, 1);
}

// A new flowcut of a flow with untracked bytes still in flight is told so (the NIC then keeps the flow's
// ECMP entropy: those bytes' path must stay the one its next packets take); once their ACK arrives it is not.
TEST_F(EngineAtNic, NewFlowcutSeesTheShadowOfUntrackedBytes) {
  params_ = nic_params(0);
  params_.table.entries = 4;
  engine_ = std::make_unique<FlowcutEngine>(params_, FlowcutSite::nic, "nic_shadow", owner_, fabric(), nullptr, 1000);
  std::vector<FlowcutEngine::Sent> others;
  for (std::uint32_t id = 100; id < 104; ++id)
    others.push_back(engine_->send_at_source(WideKey::from_id(id), id, 4096, [](bool) { return std::uint16_t{0}; }));
  EXPECT_FALSE(send(1024).tracked);  // the table is full: untracked, shadowed
  EXPECT_TRUE(engine_->shadowed(kFlow));
  // Flow 100's entry frees (strict drain not involved: its only packet is acknowledged).
  FlowcutEngine::Ack a;
  a.key = WideKey::from_id(100);
  a.shadow_slot = 100;
  a.bytes = 4096;
  a.epoch = others[0].epoch;
  a.tracked = true;
  a.at_source = true;
  a.source = FlowcutSource{0, 0, 100};
  engine_->on_ack(a);
  bool shadowed = false;
  const auto s = engine_->send_at_source(WideKey::from_id(kFlow), kFlow, 4096, [&](bool sh) {
    shadowed = sh;
    return std::uint16_t{0x2a};
  });
  EXPECT_TRUE(shadowed);
  EXPECT_TRUE(s.tracked);
  EXPECT_TRUE(s.new_flowcut);
  EXPECT_EQ(engine_->table().read(*engine_->table().lookup(WideKey::from_id(kFlow))).out_port, 0x2a);
  // The untracked packet's ACK clears the shadow; the tracked one's is matched by its epoch.
  a.key = WideKey::from_id(kFlow);
  a.shadow_slot = kFlow;
  a.bytes = 1024;
  a.tracked = false;
  engine_->on_ack(a);
  EXPECT_FALSE(engine_->shadowed(kFlow));
  EXPECT_EQ(engine_->counters().acks_unmatched, 0u);
}

}  // namespace
}  // namespace netasic
