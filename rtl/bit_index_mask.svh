// bit_index_mask(b): the positions 0 .. MaskWidth-1 whose number has bit b set. Encoding a one-hot vector
// v is then one OR per index bit, index[b] = |(v & bit_index_mask(b)): a tree, where a loop that keeps the
// last set position elaborates to a chain through every position. Included inside a module body that
// defines the localparam MaskWidth; called with constant arguments only (localparams), so it costs no
// logic.
function automatic [MaskWidth-1:0] bit_index_mask(input integer b);
  integer k;
  begin
    bit_index_mask = {MaskWidth{1'b0}};
    for (k = 0; k < MaskWidth; k = k + 1) bit_index_mask[k] = ((k >> b) & 1) != 0;
  end
endfunction
