// libFuzzer targets for the input parsers (docs/reliability.md, "Fuzzing"). One source, one target per
// parser (NETASIC_FUZZ_TARGET selects it): the bytes are handed to the same entry point the binary uses.
// InputError is the parser saying "bad input" (exit status 2): a normal outcome. Anything else (a crash, a
// sanitizer report, another exception, a hang) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tb/inputs/cdf.h"
#include "tb/inputs/flow_file.h"
#include "tb/inputs/graphml.h"
#include "tb/inputs/topology_file.h"
#include "tlm/common/error.h"
#if NETASIC_FUZZ_TARGET == 0
#include <systemc>  // declares sc_main with C linkage, defined below

#include "tb/scenario.h"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
#if NETASIC_FUZZ_TARGET == 0
    netasic::Scenario s;
    s.load_yaml_text(text, "fuzz.yaml");
#elif NETASIC_FUZZ_TARGET == 1
    netasic::parse_topology_file_text(text, "fuzz-topology.txt");
#elif NETASIC_FUZZ_TARGET == 2
    netasic::parse_flow_file_text(text, "fuzz-flow.txt");
#elif NETASIC_FUZZ_TARGET == 3
    netasic::FlowSizeCdf::parse(text, "fuzz.cdf");
#elif NETASIC_FUZZ_TARGET == 4
    netasic::parse_graphml_text(text, "fuzz.graphml");
#endif
  } catch (const netasic::InputError&) {
  }
  return 0;
}

#if NETASIC_FUZZ_TARGET == 0
// The scenario target links the testbench library, which brings SystemC; libFuzzer provides main().
int sc_main(int, char**) { return 0; }
#endif
