#include "tlm/blocks/reorder_buffer.h"

#include <algorithm>
#include <string>

#include "tlm/common/error.h"

namespace netasic {
namespace {
void require(bool ok, const std::string& what) {
  if (!ok) throw InputError("reorder_buffer: " + what);
}
}  // namespace

ReorderBuffer::ReorderBuffer(const ReorderBufferConfig& c) : config_(c) {
  require(c.connections >= 1 && c.connections <= 65536,
          "connections = " + std::to_string(c.connections) + " is outside 1 .. 65536");
  require(c.seq_bits >= 3 && c.seq_bits <= 32, "seq_bits = " + std::to_string(c.seq_bits) + " is outside 3 .. 32");
  require(c.buffer_units >= 1 && c.buffer_units <= (1u << 20),
          "buffer_units = " + std::to_string(c.buffer_units) + " is outside 1 .. 1048576");
  require(c.max_packet_units >= 1 && c.max_packet_units <= c.buffer_units,
          "max_packet_units = " + std::to_string(c.max_packet_units) + " is outside 1 .. buffer_units");
  if (c.memory == ReorderMemory::dynamic_pool)
    require(c.pool_units >= 1 && c.pool_units <= std::uint64_t{c.connections} * c.buffer_units,
            "pool_units = " + std::to_string(c.pool_units) + " is outside 1 .. connections * buffer_units");
  seq_mask_ = c.seq_bits == 32 ? ~0u : (1u << c.seq_bits) - 1u;
  conns_.resize(c.connections);
}

bool ReorderBuffer::room(const Conn& c, std::uint32_t units, std::uint32_t freed) const {
  if (c.used - freed + units > config_.buffer_units) return false;
  if (config_.memory == ReorderMemory::dynamic_pool && total_ - freed + units > config_.pool_units) return false;
  return true;
}

std::vector<ReorderEvent> ReorderBuffer::arrive(unsigned connection, std::uint32_t sn_in, std::uint32_t units) {
  if (connection >= conns_.size()) throw ModelError("reorder_buffer: connection out of range");
  if (units < 1 || units > config_.max_packet_units) throw ModelError("reorder_buffer: units outside 1 .. max_packet_units");
  Conn& c = conns_[connection];
  const std::uint32_t sn = sn_in & seq_mask_;
  const std::uint32_t off = offset(c, sn);
  const std::uint32_t half = std::uint32_t{1} << (config_.seq_bits - 1);
  std::vector<ReorderEvent> ev;
  if (off >= half || c.stored.count(off)) {  // already delivered, or already stored
    ++duplicates_;
    if (off >= half) {
      ev.push_back({ReorderEventKind::ack, (c.expected - 1) & seq_mask_});
    } else {
      ev.push_back({ReorderEventKind::stored, sn});
    }
    return ev;
  }
  if (off == 0) {
    ev.push_back({ReorderEventKind::deliver, sn});
    ++delivered_;
    std::uint32_t last = sn;
    // Drain the run of stored followers; offsets are relative to the old expected number.
    std::uint32_t next = 1;
    auto it = c.stored.begin();
    while (it != c.stored.end() && it->first == next) {
      last = (c.expected + next) & seq_mask_;
      ev.push_back({ReorderEventKind::deliver, last});
      ++delivered_;
      c.used -= it->second;
      total_ -= it->second;
      it = c.stored.erase(it);
      ++next;
    }
    const std::uint32_t shift = next;
    c.expected = (c.expected + shift) & seq_mask_;
    std::map<std::uint32_t, std::uint32_t> rebased;
    for (const auto& [o, u] : c.stored) rebased.emplace(o - shift, u);
    c.stored.swap(rebased);
    ev.push_back({ReorderEventKind::ack, last});
    return ev;
  }
  // Early packet.
  if (!room(c, units, 0)) {
    std::uint32_t freeable = 0;
    for (auto it = c.stored.upper_bound(off); it != c.stored.end(); ++it) freeable += it->second;
    if (!room(c, units, freeable)) {
      ++rejections_;
      ev.push_back({ReorderEventKind::nack, sn});
      return ev;
    }
    while (!room(c, units, 0)) {
      auto last = std::prev(c.stored.end());
      ev.push_back({ReorderEventKind::nack, (c.expected + last->first) & seq_mask_});
      ++rejections_;
      c.used -= last->second;
      total_ -= last->second;
      c.stored.erase(last);
    }
  }
  c.stored.emplace(off, units);
  c.used += units;
  total_ += units;
  mbs_ = std::max(mbs_, c.used);
  mms_ = std::max(mms_, total_);
  ev.push_back({ReorderEventKind::stored, sn});
  return ev;
}

const char* to_string(ReorderEventKind k) {
  switch (k) {
    case ReorderEventKind::deliver: return "DELIVER";
    case ReorderEventKind::ack: return "ACK";
    case ReorderEventKind::nack: return "NACK";
    case ReorderEventKind::stored: return "STORED";
  }
  return "?";
}

}  // namespace netasic
