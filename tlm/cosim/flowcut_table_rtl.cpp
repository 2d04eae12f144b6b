#include "tlm/cosim/flowcut_table_rtl.h"

#include <verilated.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "flowcut_rtl_points.h"  // generated: the Verilated models and NETASIC_COSIM_FLOWCUT_POINTS
#include "tlm/common/error.h"

namespace netasic {
namespace {

// Operation and status codes of rtl/flowcut_defs.svh.
enum Op : unsigned { kLookup = 0, kInsert, kAdd, kAck, kDelete, kRead, kWrite };
enum St : unsigned { kOk = 0, kMiss, kFull, kSetFull, kExists, kSaturated, kInvalid, kUnderflow };
const char* const kOpName[] = {"lookup", "insert", "add_bytes", "ack_subtract", "delete", "read", "write"};
const char* const kStName[] = {"OK", "MISS", "FULL", "SET_FULL", "EXISTS", "SATURATED", "INVALID", "UNDERFLOW"};

constexpr unsigned kPortBits = 8, kInflightBits = 24;

struct PointInfo {
  const char* name;
  bool hashed;
  std::uint32_t entries;
  unsigned ways;
  unsigned key_bits;
  bool full_switch;
};

const char* variant_name(FlowcutVariant v) {
  return v == FlowcutVariant::full_switch ? "full_switch" : v == FlowcutVariant::ingress_only ? "ingress_only" : "nic_only";
}

std::string describe(const PointInfo& p) {
  std::ostringstream s;
  s << p.name << " (" << (p.hashed ? "hashed" : "cam") << ", " << p.entries << " entries";
  if (p.hashed) s << ", " << p.ways << " ways";
  s << ", key " << p.key_bits << " bits, " << (p.full_switch ? "full_switch" : "ingress_only/nic_only") << ")";
  return s.str();
}

// The latency trace shared by every table of the process: one CSV line per operation.
class LatencyTrace {
 public:
  static LatencyTrace& instance() {
    static LatencyTrace t;
    return t;
  }
  const std::string& path() const { return path_; }
  void record(const std::string& owner, const char* point, const char* op, std::uint64_t accept,
              std::uint64_t response, unsigned model) {
    if (!out_.is_open()) return;
    out_ << owner << ',' << point << ',' << op << ',' << accept << ',' << response << ',' << (response - accept)
         << ',' << model << '\n';
  }
  void flush() {
    if (out_.is_open()) out_.flush();
  }

 private:
  LatencyTrace() {
    const char* env = std::getenv("NETASIC_COSIM_TRACE");
    path_ = env && *env ? env : "flowcut_table_rtl_latency.csv";
    if (path_ == "off") return;
    out_.open(path_);
    if (!out_) throw InputError("NETASIC_COSIM_TRACE: cannot write the co-simulation latency trace " + path_);
    out_ << "owner,point,op,accept_cycle,response_cycle,measured,model\n";
  }
  std::string path_;
  std::ofstream out_;
};

struct Request {
  Op op = kLookup;
  WideKey key{};
  std::uint32_t index = 0, bytes = 0;
  std::uint16_t out_port = 0, in_port = 0, rtt_avg = 0, last_rtt = 0, rtt_diff = 0;
  bool drain = false;
};

struct Response {
  unsigned status = 0;
  std::uint32_t index = 0, inflight = 0;
  bool deleted = false;
  std::uint16_t out_port = 0, in_port = 0, rtt_avg = 0, last_rtt = 0, rtt_diff = 0;
  bool drain = false;
};

// The key port: a scalar up to 64 bits, else a VlWide of 32-bit words, least significant first. Bits
// above the key width are zero (checked by the caller).
template <class P>
void put_key(P& port, const WideKey& k, unsigned bits) {
  if constexpr (sizeof(P) <= 8) {
    port = static_cast<P>(k.lo);
  } else {
    for (unsigned i = 0; i < (bits + 31) / 32; ++i) {
      const unsigned at = i * 32;
      port[i] = at < 64 ? static_cast<std::uint32_t>(k.lo >> at) : static_cast<std::uint32_t>(k.hi >> (at - 64));
    }
  }
}

template <class V>
class RtlFlowcutTable final : public FlowcutTableIf {
 public:
  RtlFlowcutTable(const FlowcutTableConfig& config, const std::string& owner, const PointInfo& point)
      : config_(config), owner_(owner), point_(point), storage_(FlowcutTable(config).storage()) {
    ctx_ = std::make_unique<VerilatedContext>();
    dut_ = std::make_unique<V>(ctx_.get(), owner.c_str());
    keys_.resize(config.entries);
    const std::uint32_t buckets = std::min<std::uint32_t>(config.histogram_buckets, config.entries + 1);
    bucket_width_ = (config.entries + 1 + buckets - 1) / buckets;
    histogram_.assign((config.entries + bucket_width_) / bucket_width_, 0);
    LatencyTrace::instance();  // open the trace (and report a bad path) before the run starts
    V& d = *dut_;
    d.req_valid_i = 0;
    d.rsp_ready_i = 0;
    d.rst_ni = 0;
    for (int i = 0; i < 4; ++i) {
      settle();
      edge();
    }
    d.rst_ni = 1;
  }
  ~RtlFlowcutTable() override {
    LatencyTrace::instance().flush();
    dut_->final();
  }

  const FlowcutTableConfig& config() const override { return config_; }

  std::optional<std::uint32_t> lookup(const WideKey& key) override {
    Request r;
    r.op = kLookup;
    r.key = checked(key);
    const Response a = transact(r, config_.latency.lookup);
    expect(a, r, {kOk, kMiss});
    sample();
    if (a.status == kMiss) return std::nullopt;
    return a.index;
  }

  InsertResult insert(const WideKey& key, std::uint16_t out_port, std::uint16_t in_port) override {
    Request r;
    r.op = kInsert;
    r.key = checked(key);
    r.out_port = out_port;
    r.in_port = in_port;
    const Response a = transact(r, config_.latency.insert);
    expect(a, r, {kOk, kExists, kFull, kSetFull});
    InsertResult res{InsertStatus::ok, a.index};
    switch (a.status) {
      case kOk:
        keys_[a.index] = key;
        ++occupancy_;
        high_water_ = std::max(high_water_, occupancy_);
        break;
      case kExists: res.status = InsertStatus::exists; break;
      case kFull: res = {InsertStatus::full, 0}; break;
      default: res = {InsertStatus::set_full, 0}; break;
    }
    if (res.status == InsertStatus::full || res.status == InsertStatus::set_full) ++insert_failures_;
    sample();
    return res;
  }

  AddResult add_bytes(std::uint32_t index, std::uint32_t bytes) override {
    sample();
    // The RTL's index port is log2(entries) bits wide: an index beyond the table cannot be presented.
    if (index >= config_.entries) return {AddStatus::invalid_index, 0};
    Request r;
    r.op = kAdd;
    r.index = index;
    r.bytes = bytes;
    const Response a = transact(r, config_.latency.add_bytes);
    expect(a, r, {kOk, kSaturated, kInvalid});
    if (a.status == kInvalid) return {AddStatus::invalid_index, 0};
    return {a.status == kSaturated ? AddStatus::saturated : AddStatus::ok, a.inflight};
  }

  AckResult ack_subtract(const WideKey& key, std::uint32_t bytes) override {
    Request r;
    r.op = kAck;
    r.key = checked(key);
    r.bytes = bytes;
    const Response a = transact(r, config_.latency.ack_subtract);
    expect(a, r, {kOk, kUnderflow, kMiss});
    AckResult res{false, 0, false, false};
    if (a.status != kMiss) {
      res = {true, a.inflight, a.deleted, a.status == kUnderflow};
      if (a.deleted) --occupancy_;
    }
    sample();
    return res;
  }

  bool erase(const WideKey& key) override {
    Request r;
    r.op = kDelete;
    r.key = checked(key);
    const Response a = transact(r, config_.latency.erase);
    expect(a, r, {kOk, kMiss});
    if (a.status == kOk) --occupancy_;
    sample();
    return a.status == kOk;
  }

  FlowcutEntry read(std::uint32_t index) const override {
    if (index >= config_.entries) return FlowcutEntry{};
    Request r;
    r.op = kRead;
    r.index = index;
    const Response a = transact(r, config_.latency.access);
    expect(a, r, {kOk, kInvalid});
    if (a.status != kOk) return FlowcutEntry{};
    FlowcutEntry e;
    e.valid = true;
    e.key = keys_[index];  // the RTL's READ does not return the key: the one its INSERT answer placed here
    e.out_port = a.out_port;
    e.in_port = a.in_port;
    e.inflight = a.inflight;
    e.rtt_avg = a.rtt_avg;
    e.last_rtt = a.last_rtt;
    e.rtt_diff_avg = a.rtt_diff;
    e.draining = a.drain;
    return e;
  }

  // The RTL's WRITE sets the RTT fields and the drain bit together: read the entry, write it back with
  // the one part changed (two requests, each checked against the `access` latency).
  bool set_rtt(std::uint32_t index, std::uint16_t rtt_avg, std::uint16_t last_rtt, std::uint16_t rtt_diff_avg) override {
    const FlowcutEntry e = read(index);
    if (!e.valid) return false;
    return write(index, rtt_avg, last_rtt, rtt_diff_avg, e.draining);
  }
  bool set_drain(std::uint32_t index, bool draining) override {
    const FlowcutEntry e = read(index);
    if (!e.valid) return false;
    return write(index, e.rtt_avg, e.last_rtt, e.rtt_diff_avg, draining);
  }

  FlowcutStorage storage() const override { return storage_; }
  std::uint32_t occupancy() const override { return occupancy_; }
  std::uint32_t high_water() const override { return high_water_; }
  const std::vector<std::uint64_t>& occupancy_histogram() const override { return histogram_; }
  std::uint32_t histogram_bucket_width() const override { return bucket_width_; }
  std::uint64_t insert_failures() const override { return insert_failures_; }

 private:
  WideKey checked(const WideKey& key) const {
    if (!key.fits(point_.key_bits))
      throw ModelError("flowcut_table (rtl, " + owner_ + "): key wider than " + std::to_string(point_.key_bits) + " bits");
    return key;
  }

  bool write(std::uint32_t index, std::uint16_t ra, std::uint16_t lr, std::uint16_t rd, bool drain) {
    Request r;
    r.op = kWrite;
    r.index = index;
    r.rtt_avg = ra;
    r.last_rtt = lr;
    r.rtt_diff = rd;
    r.drain = drain;
    const Response a = transact(r, config_.latency.access);
    expect(a, r, {kOk, kInvalid});
    return a.status == kOk;
  }

  void sample() { ++histogram_[occupancy_ / bucket_width_]; }

  void settle() const {
    dut_->clk_i = 0;
    dut_->eval();
  }
  void edge() const {
    dut_->clk_i = 1;
    dut_->eval();
    ++cycle_;
  }

  std::string where(const Request& r) const {
    std::ostringstream s;
    s << "flowcut_table (rtl " << point_.name << ", " << owner_ << "): " << kOpName[r.op] << " (key " << std::hex
      << r.key.hi << ':' << r.key.lo << std::dec << " index " << r.index << " bytes " << r.bytes << ")";
    return s.str();
  }

  void expect(const Response& a, const Request& r, std::initializer_list<unsigned> allowed) const {
    if (std::find(allowed.begin(), allowed.end(), a.status) == allowed.end())
      throw ModelError(where(r) + ": the RTL answered status " + kStName[a.status & 7] +
                       ", which this operation does not define");
  }

  // One request: wait for req_ready_o, hand the request over, clock until rsp_valid_o, take the response
  // in that same cycle (rsp_ready_i held high) and check the latency.
  Response transact(const Request& r, unsigned model_latency) const {
    V& d = *dut_;
    d.req_op_i = r.op;
    put_key(d.req_key_i, r.key, point_.key_bits);
    d.req_index_i = r.index;
    d.req_out_port_i = static_cast<std::uint8_t>(r.out_port & ((1u << kPortBits) - 1));
    d.req_in_port_i = static_cast<std::uint8_t>(r.in_port & ((1u << kPortBits) - 1));
    d.req_bytes_i = r.bytes;
    d.req_rtt_avg_i = r.rtt_avg;
    d.req_last_rtt_i = r.last_rtt;
    d.req_rtt_diff_avg_i = r.rtt_diff;
    d.req_drain_i = r.drain;
    d.req_valid_i = 1;
    d.rsp_ready_i = 1;
    // Ready: at once, or after the hashed table's RAM clear that follows reset.
    const std::uint64_t limit = cycle_ + config_.entries + 64;
    for (settle(); !d.req_ready_o; settle()) {
      edge();
      if (cycle_ > limit) throw ModelError(where(r) + ": req_ready_o stayed low");
    }
    if (d.rsp_valid_o) throw ModelError(where(r) + ": rsp_valid_o high with no request in flight");
    const std::uint64_t accept = cycle_;
    edge();
    d.req_valid_i = 0;
    for (settle(); !d.rsp_valid_o; settle()) {
      edge();
      if (cycle_ > accept + 64) throw ModelError(where(r) + ": no response within 64 cycles");
    }
    const std::uint64_t response = cycle_;
    Response a;
    a.status = d.rsp_status_o;
    a.index = d.rsp_index_o;
    a.inflight = d.rsp_inflight_o;
    a.deleted = d.rsp_deleted_o != 0;
    a.out_port = d.rsp_out_port_o;
    a.in_port = d.rsp_in_port_o;
    a.rtt_avg = d.rsp_rtt_avg_o;
    a.last_rtt = d.rsp_last_rtt_o;
    a.rtt_diff = d.rsp_rtt_diff_avg_o;
    a.drain = d.rsp_drain_o != 0;
    edge();  // the response is taken at this edge
    LatencyTrace& trace = LatencyTrace::instance();
    trace.record(owner_, point_.name, kOpName[r.op], accept, response, model_latency);
    if (response - accept != model_latency) {
      trace.flush();
      std::ostringstream s;
      s << where(r) << ": latency " << (response - accept) << " cycles (request accepted at RTL cycle " << accept
        << ", response valid at " << response << ") differs from the " << model_latency
        << " cycles the model declares (FlowcutTableConfig::latency); trace: " << trace.path();
      throw ModelError(s.str());
    }
    return a;
  }

  FlowcutTableConfig config_;
  std::string owner_;
  PointInfo point_;
  FlowcutStorage storage_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<V> dut_;  // const operations (read) still clock the RTL
  mutable std::uint64_t cycle_ = 0;
  std::vector<WideKey> keys_;
  std::uint32_t occupancy_ = 0;
  std::uint32_t high_water_ = 0;
  std::uint32_t bucket_width_ = 1;
  std::vector<std::uint64_t> histogram_;
  std::uint64_t insert_failures_ = 0;
};

using Factory = std::unique_ptr<FlowcutTableIf> (*)(const FlowcutTableConfig&, const std::string&, const PointInfo&);

template <class V>
std::unique_ptr<FlowcutTableIf> build(const FlowcutTableConfig& c, const std::string& owner, const PointInfo& p) {
  return std::make_unique<RtlFlowcutTable<V>>(c, owner, p);
}

struct Point {
  PointInfo info;
  Factory make;
};

const std::vector<Point>& points() {
#define NETASIC_COSIM_POINT(model, name, hashed, entries, ways, key_bits, full) \
  Point{PointInfo{name, hashed, entries, ways, key_bits, full != 0}, &build<model>},
  static const std::vector<Point> all = {NETASIC_COSIM_FLOWCUT_POINTS(NETASIC_COSIM_POINT)};
#undef NETASIC_COSIM_POINT
  return all;
}

}  // namespace

std::vector<std::string> rtl_flowcut_table_points() {
  std::vector<std::string> out;
  for (const auto& p : points()) out.push_back(describe(p.info));
  return out;
}

std::unique_ptr<FlowcutTableIf> make_rtl_flowcut_table(const FlowcutTableConfig& config, const std::string& owner) {
  const bool hashed = config.organization == FlowcutOrganization::set_associative;
  const bool full = config.variant == FlowcutVariant::full_switch;
  for (const auto& p : points()) {
    const PointInfo& i = p.info;
    if (i.hashed == hashed && i.entries == config.entries && (!hashed || i.ways == config.ways) &&
        i.full_switch == full && i.key_bits == config.key_bits && config.port_bits == kPortBits &&
        config.inflight_bits == kInflightBits)
      return p.make(config, owner, i);
  }
  std::ostringstream s;
  s << "switch.flowcut_table.impl = rtl: no Verilated Flowcut table for flowcut.table.entries = " << config.entries
    << ", flowcut.table.organization = " << (hashed ? "hashed" : "cam") << ", flowcut.table.ways = " << config.ways
    << (hashed ? "" : " (hashed only)") << ", flowcut.variant = " << variant_name(config.variant) << " (key " << config.key_bits << " / port "
    << config.port_bits << " / in-flight " << config.inflight_bits << " bits). Available points (port 8, in-flight 24 bits; add one to "
    << "tlm/cosim/CMakeLists.txt):";
  for (const auto& d : rtl_flowcut_table_points()) s << "\n  " << d;
  throw InputError(s.str());
}

}  // namespace netasic
