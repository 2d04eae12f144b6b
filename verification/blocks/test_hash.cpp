#include <gtest/gtest.h>

#include <cstring>

#include "tlm/blocks/hash.h"

namespace netasic {
namespace {

TEST(Hash, Crc32CheckValue) {
  const char* s = "123456789";  // the standard CRC-32 check string
  EXPECT_EQ(crc32(reinterpret_cast<const std::uint8_t*>(s), std::strlen(s)), 0xCBF43926u);
}

TEST(Hash, WideKeyFromFlowIsBigEndianWireOrder) {
  FlowKey k;
  k.src_addr = 0x0a000001;
  k.dst_addr = 0x0a000002;
  k.src_port = 0x1234;
  k.dst_port = 4791;
  k.protocol = 17;
  const WideKey w = WideKey::from_flow(k);
  const auto b = k.bytes();
  EXPECT_EQ(crc32_key(w, 104), crc32(b.data(), b.size()));
  EXPECT_EQ(w.byte_lsb(0), 17);
  EXPECT_EQ(w.byte_lsb(12), 0x0a);
  EXPECT_TRUE(w.fits(104));
  EXPECT_FALSE(w.fits(96));
}

TEST(Hash, U32KeyHashesItsFourBytes) {
  const std::uint8_t b[4] = {0xde, 0xad, 0xbe, 0xef};
  EXPECT_EQ(crc32_u32(0xdeadbeefu), crc32(b, 4));
  EXPECT_EQ(crc32_key(WideKey::from_id(0xdeadbeefu), 32), crc32(b, 4));
}

}  // namespace
}  // namespace netasic
