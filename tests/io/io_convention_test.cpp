// The key convention (root_convention_t, ntt/convention.hpp) through every
// format that holds a key. The mapped formats store it as a code of their
// own, a u32 at metadata byte 0, i.e. file byte 40 (0 = bellman,
// 1 = snarkjs; docs/formats.md), which must not follow the enum's numeric
// values: each writer puts the code there, each reader maps it back to the
// same convention, and any other code is refused. The fixed formats imply
// theirs (.params bellman, .zkey snarkjs): they read back as that
// convention and refuse to write a key of the other one.
#include <gtest/gtest.h>

#include "groth16/setup.hpp"
#include "io/key_cache.hpp"
#include "io/packed_key.hpp"
#include "io/params.hpp"
#include "io/zkey.hpp"
#include "mapped_test_util.hpp"

namespace starzk::test {
namespace {

constexpr size_t convention_at = 40;  // the container's fixed header, then the metadata

uint32_t code_of(root_convention_t c) { return c == root_convention_t::bellman ? 0 : 1; }

proving_key_t key_in(root_convention_t c) {
  const toxic_waste_t tw{fr_t::from_u64(12345), fr_t::from_u64(7), fr_t::from_u64(11), fr_t::from_u64(13),
                         fr_t::from_u64(17)};
  return setup(holey_circuit(), c, tw, 1u);
}

class convention_in_formats : public ::testing::TestWithParam<root_convention_t> {
 protected:
  scratch_t tmp;
};

TEST_P(convention_in_formats, key_cache_stores_its_code_and_reads_it_back) {
  const proving_key_t k = key_in(GetParam());
  const fs::path file = tmp / "k.szkc";
  write_key_cache(file, k, 1);
  EXPECT_EQ(get_u32(read_bytes(file), convention_at), code_of(GetParam()));
  EXPECT_EQ(key_cache_view_t(file).convention, GetParam());
  EXPECT_EQ(read_key_cache(file).convention, GetParam());
}

TEST_P(convention_in_formats, packed_key_stores_its_code_and_reads_it_back) {
  const proving_key_t k = key_in(GetParam());
  const fs::path file = tmp / "k.szpk";
  write_packed_key(file, k, 1);
  EXPECT_EQ(get_u32(read_bytes(file), convention_at), code_of(GetParam()));
  const packed_key_view_t v(file);
  EXPECT_EQ(v.shape().convention, GetParam());
  auto dec = cpu_point_decoder(1);
  EXPECT_EQ(unpack_packed_key(v, true, *dec, 1).convention, GetParam());
}

TEST_P(convention_in_formats, fixed_formats_imply_theirs) {
  const proving_key_t k = key_in(GetParam());
  const fs::path params = tmp / "k.params", zkey = tmp / "k.zkey";
  if (GetParam() == root_convention_t::bellman) {
    write_params(params, k);
    EXPECT_EQ(read_params(params, holey_circuit()).convention, root_convention_t::bellman);
    expect_io_error([&] { write_zkey(zkey, k); }, zkey, "a .zkey holds snarkjs-convention keys only");
  } else {
    write_zkey(zkey, k);
    EXPECT_EQ(read_zkey(zkey).convention, root_convention_t::snarkjs);
    expect_io_error([&] { write_params(params, k); }, params, ".params needs a bellman-convention key");
  }
}

INSTANTIATE_TEST_SUITE_P(both, convention_in_formats,
                         ::testing::Values(root_convention_t::bellman, root_convention_t::snarkjs),
                         [](const auto& info) {
                           return std::string(info.param == root_convention_t::bellman ? "bellman" : "snarkjs");
                         });

// A code that names no convention: refused by both mapped readers, naming it.
TEST(convention_in_formats_code, other_codes_are_refused) {
  scratch_t tmp;
  const proving_key_t k = key_in(root_convention_t::bellman);
  const fs::path cache = tmp / "k.szkc", packed = tmp / "k.szpk";
  write_key_cache(cache, k, 1);
  write_packed_key(packed, k, 1);
  for (const fs::path& file : {cache, packed}) {
    std::vector<uint8_t> b = read_bytes(file);
    store_u32_le(b.data() + convention_at, 2);
    reseal(b);  // only the code is wrong, not the header checksum
    const fs::path bad = tmp / ("bad" + file.extension().string());
    write_bytes(bad, b);
    if (file == cache)
      expect_io_error([&] { key_cache_view_t v(bad); }, bad, "unknown H convention 2 (0 = bellman, 1 = snarkjs)");
    else
      expect_io_error([&] { packed_key_view_t v(bad); }, bad, "unknown H convention 2 (0 = bellman, 1 = snarkjs)");
  }
}

}  // namespace
}  // namespace starzk::test
