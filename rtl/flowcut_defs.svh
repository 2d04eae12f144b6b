// Operation and status codes of the Flowcut table request/response interface (the values
// verification/rtl and the co-simulation adapter use). Included inside a module body.
localparam [2:0] FC_OP_LOOKUP = 3'd0;  // key -> index, out/in port, in-flight bytes
localparam [2:0] FC_OP_INSERT = 3'd1;  // key, out/in port -> index
localparam [2:0] FC_OP_ADD    = 3'd2;  // index, bytes -> in-flight bytes (saturating)
localparam [2:0] FC_OP_ACK    = 3'd3;  // key, bytes -> remaining, deleted
localparam [2:0] FC_OP_DELETE = 3'd4;  // key
localparam [2:0] FC_OP_READ   = 3'd5;  // index -> every field
localparam [2:0] FC_OP_WRITE  = 3'd6;  // index, RTT fields, drain

localparam [2:0] FC_ST_OK        = 3'd0;
localparam [2:0] FC_ST_MISS      = 3'd1;  // key not in the table
localparam [2:0] FC_ST_FULL      = 3'd2;  // insert: table full
localparam [2:0] FC_ST_SET_FULL  = 3'd3;  // insert: the key's set is full, the table is not
localparam [2:0] FC_ST_EXISTS    = 3'd4;  // insert: key already present (its index returned)
localparam [2:0] FC_ST_SATURATED = 3'd5;  // add: in-flight bytes clamped at 2^InflightWidth - 1
localparam [2:0] FC_ST_INVALID   = 3'd6;  // index op on a free or out-of-range entry
localparam [2:0] FC_ST_UNDERFLOW = 3'd7;  // ack: more bytes than in flight (remaining clamps to 0)
