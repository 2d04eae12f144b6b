// The virtual platform with loosely-timed hosts: blocking register accesses and a blocking memory.
#include "platform.h"

int sc_main(int, char**) { return vp::run_platform<vp::LtCpu, vp::Memory>("lt"); }
