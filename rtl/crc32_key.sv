// CRC-32 hash unit (reflected, polynomial 0xEDB88320, init and final XOR all ones) over the bytes of a
// key, most significant byte first: the index function of the Flowcut, flowlet and FlowSail tables
// (tlm/blocks/hash.h crc32_key computes the same value, so model and RTL pick the same entry).
// Purely combinational: KeyWidth/8 byte steps of 8 bit steps each (crc32_key.svh), an XOR tree after
// synthesis.
`default_nettype none

module crc32_key #(
  parameter integer KeyWidth = 104
) (
  input  wire [KeyWidth-1:0] key_i,
  output reg  [31:0]         crc_o
);

  // The parameter checks at the end of the module stop elaboration; this prints the offending values too
  // (Yosys while it elaborates, a simulator at time 0). $display, not $error: Yosys 0.23 has no $error
  // here.
  initial begin
    if (KeyWidth < 8 || KeyWidth > 128 || KeyWidth % 8 != 0)
      $display("crc32_key: KeyWidth (%0d) must be a multiple of 8 in 8 .. 128", KeyWidth);
  end

  `include "crc32_key.svh"
  always @* crc_o = crc32_key_f(key_i);

  // Parameter checks at elaboration: an illegal value instantiates a module that does not exist and
  // whose name states the rule, so Verilator and Yosys both stop and name it.
  generate
    if (KeyWidth < 8 || KeyWidth > 128 || KeyWidth % 8 != 0) begin : g_bad_KeyWidth
      ERROR_crc32_key_KeyWidth_must_be_a_multiple_of_8_in_8_to_128 u_param_error ();
    end
  endgenerate
endmodule

`default_nettype wire
