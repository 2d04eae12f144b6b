// The virtual platform with approximately-timed hosts: the CPU's register accesses and the memory's
// answers to the NIC's DMA use non-blocking transport with the base protocol's phases.
#include "platform.h"

int sc_main(int, char**) { return vp::run_platform<vp::AtCpu, vp::AtMemory>("at"); }
