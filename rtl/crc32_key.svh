// CRC-32 of a key (reflected, polynomial 0xEDB88320, init and final XOR all ones) over its bytes, most
// significant byte first: the function rtl/crc32_key.sv computes, for a block that hashes a key in a
// clocked process (the value registered as a request is taken) rather than through a combinational
// instance. Included inside a module body that has a KeyWidth parameter (a multiple of 8).
function automatic [31:0] crc32_key_f(input [KeyWidth-1:0] key);
  reg [31:0] c;
  integer i, b;
  begin
    c = 32'hFFFF_FFFF;
    for (i = KeyWidth / 8 - 1; i >= 0; i = i - 1) begin
      c = c ^ {24'd0, key[i*8 +: 8]};
      for (b = 0; b < 8; b = b + 1) c = (c >> 1) ^ (32'hEDB8_8320 & {32{c[0]}});
    end
    crc32_key_f = ~c;
  end
endfunction
