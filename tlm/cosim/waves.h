// Co-simulation waveforms (cosim.trace = fst; docs/cosim.md, "Waveforms"): which blocks' signals are
// written to FST files, where, and for which window of simulated time. Set once by `netasic run` before
// the network is built (tb/run_command.cpp, from cosim.trace*); read by every co-simulated block's
// handshake core (rtl_handshake.h).
#pragma once

#include <functional>
#include <string>

#include "tlm/common/units.h"

namespace netasic::cosim {

struct WaveOptions {
  bool fst = false;
  std::string dir = ".";         // one file per block instance: <dir>/cosim_<owner>_<block>.fst
  Ps start = 0;                  // dump the cycles of operations at network time in [start, end)
  Ps end = kNever;
  std::function<Ps()> now;       // the network's simulated time (unset: 0, i.e. elaboration)
};

inline WaveOptions& wave_options() {
  static WaveOptions w;
  return w;
}

}  // namespace netasic::cosim
