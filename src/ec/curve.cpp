// BLS12-381 curve constants, built once on first use.
//
// Values are big-endian hex strings of the canonical integers; their meaning
// and derivation are documented in curve.hpp. tests/ec checks each one
// against an independent property (on the curve, order r, eigenvalue), so a
// typo here cannot pass silently.
#include "ec/curve.hpp"

namespace starzk {
namespace {

fp_t hex_fp(const char* h) { return fp_t::from_hex(h); }

fp2_t hex_fp2(const char* c0, const char* c1) { return fp2_t{hex_fp(c0), hex_fp(c1)}; }

}  // namespace

const fp_t& g1_params::b() {
  static const fp_t v = fp_t::from_u64(4);
  return v;
}

const fp_t& g1_params::gen_x() {
  static const fp_t v =
      hex_fp("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
  return v;
}

const fp_t& g1_params::gen_y() {
  static const fp_t v =
      hex_fp("08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
  return v;
}

const fp_t& g1_params::endo_beta() {
  static const fp_t v = hex_fp("5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe");
  return v;
}

const fp2_t& g2_params::b() {
  static const fp2_t v{fp_t::from_u64(4), fp_t::from_u64(4)};
  return v;
}

const fp2_t& g2_params::gen_x() {
  static const fp2_t v =
      hex_fp2("024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8",
              "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e");
  return v;
}

const fp2_t& g2_params::gen_y() {
  static const fp2_t v =
      hex_fp2("0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801",
              "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be");
  return v;
}

const fp2_t& g2_params::psi_cx() {
  static const fp2_t v =
      hex_fp2("0", "1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaad");
  return v;
}

const fp2_t& g2_params::psi_cy() {
  static const fp2_t v =
      hex_fp2("135203e60180a68ee2e9c448d77a2cd91c3dedd930b1cf60ef396489f61eb45e304466cf3e67fa0af1ee7b04121bdea2",
              "06af0e0437ff400b6831e36d6bd17ffe48395dabc2d3435e77f76e17009241c5ee67992f72ec05f4c81084fbede3cc09");
  return v;
}

}  // namespace starzk
