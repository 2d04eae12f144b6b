// libsystemc's main() calls sc_main; test binaries use GoogleTest's main and start the kernel themselves.
#include <systemc>

int sc_main(int, char**) { return 0; }
