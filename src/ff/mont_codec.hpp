// Byte and string codecs of mont_t<P> (included by ff/mont.hpp).
//
// Canonical bytes hold the integer value a (not a·R) in n_bytes bytes,
// little- or big-endian; decoding rejects values >= m instead of reducing, so
// every element has exactly one encoding (what zcash points and snarkjs
// .r1cs/.wtns files expect). Montgomery bytes hold a·R mod m little-endian:
// the .zkey layout for Fq, and our in-memory layout, so they are a plain copy
// plus the range check.
// Decimal is what snarkjs JSON uses; hex (big-endian) is for constants and
// tests. Both throw std::invalid_argument on junk or on values >= m.
#pragma once

#include <bit>
#include <cstring>

namespace starzk {

namespace ff_detail {
// N little-endian 64-bit words: on a little-endian machine the bytes are
// the limbs already (one copy; a byte loop costs ~50 ns per F_p element
// and runs for every point of a key read); elsewhere each word is built
// from its bytes.
template <size_t N>
limbs::big_t<N> load_le(const uint8_t* in) {
  limbs::big_t<N> c{};
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(c.data(), in, 8 * N);
  } else {
    for (size_t i = 0; i < 8 * N; ++i) c[i / 8] |= uint64_t(in[i]) << (8 * (i % 8));
  }
  return c;
}
template <size_t N>
void store_le(const limbs::big_t<N>& c, uint8_t* out) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(out, c.data(), 8 * N);
  } else {
    for (size_t i = 0; i < 8 * N; ++i) out[i] = uint8_t(c[i / 8] >> (8 * (i % 8)));
  }
}
// acc = acc·base + digit over N+1 limbs; false when the value leaves N limbs
// (it is then >= 2^(64N) > m, so the caller rejects it).
template <size_t N>
bool mul_add_small(limbs::big_t<N>& acc, uint64_t base, uint64_t digit) {
  limbs::u128 carry = digit;
  for (size_t i = 0; i < N; ++i) {
    limbs::u128 t = limbs::u128(acc[i]) * base + carry;
    acc[i] = uint64_t(t);
    carry = t >> 64;
  }
  return carry == 0;
}
}  // namespace ff_detail

template <class P>
bool mont_t<P>::from_bytes_le(const uint8_t* in, mont_t& out) {
  const limbs_t c = ff_detail::load_le<n_limbs>(in);
  if (!limbs::less(c, modulus)) return false;
  out = from_reduced(c);
  return true;
}

template <class P>
bool mont_t<P>::from_bytes_be(const uint8_t* in, mont_t& out) {
  uint8_t le[n_bytes];
  for (size_t i = 0; i < n_bytes; ++i) le[i] = in[n_bytes - 1 - i];
  return from_bytes_le(le, out);
}

template <class P>
void mont_t<P>::to_bytes_le(uint8_t* out) const {
  ff_detail::store_le<n_limbs>(to_canonical(), out);
}

template <class P>
void mont_t<P>::to_bytes_be(uint8_t* out) const {
  uint8_t le[n_bytes];
  to_bytes_le(le);
  for (size_t i = 0; i < n_bytes; ++i) out[i] = le[n_bytes - 1 - i];
}

template <class P>
bool mont_t<P>::from_mont_bytes_le(const uint8_t* in, mont_t& out) {
  const limbs_t c = ff_detail::load_le<n_limbs>(in);
  if (!limbs::less(c, modulus)) return false;
  out = from_mont_limbs(c);
  return true;
}

template <class P>
void mont_t<P>::to_mont_bytes_le(uint8_t* out) const {
  ff_detail::store_le<n_limbs>(mont_limbs(), out);
}

template <class P>
mont_t<P> mont_t<P>::from_decimal(std::string_view s) {
  auto fail = [&](const char* why) {
    return std::invalid_argument(std::string(P::name) + "::from_decimal: " + why + " in \"" +
                                 std::string(s.substr(0, 120)) + "\"");
  };
  if (s.empty()) throw fail("empty string");
  limbs_t acc{};
  for (char ch : s) {
    if (ch < '0' || ch > '9') throw fail("not a decimal digit");
    if (!ff_detail::mul_add_small<n_limbs>(acc, 10, uint64_t(ch - '0'))) throw fail("value >= modulus");
  }
  if (!limbs::less(acc, modulus)) throw fail("value >= modulus");
  return from_reduced(acc);
}

// Repeated division by 10^19 (the largest power of ten in 64 bits).
template <class P>
std::string mont_t<P>::to_decimal() const {
  limbs_t c = to_canonical();
  constexpr uint64_t chunk = 10000000000000000000ull;  // 10^19
  std::vector<uint64_t> parts;
  do {
    parts.push_back(limbs::div_small(c, chunk));
  } while (!limbs::is_zero(c));
  std::string s = std::to_string(parts.back());
  for (size_t i = parts.size() - 1; i-- > 0;) {
    std::string d = std::to_string(parts[i]);
    s += std::string(19 - d.size(), '0') + d;
  }
  return s;
}

template <class P>
mont_t<P> mont_t<P>::from_hex(std::string_view s) {
  auto fail = [&](const char* why) {
    return std::invalid_argument(std::string(P::name) + "::from_hex: " + why + " in \"" +
                                 std::string(s.substr(0, 120)) + "\"");
  };
  std::string_view digits = s;
  if (digits.size() >= 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) digits.remove_prefix(2);
  if (digits.empty()) throw fail("no hex digits");
  limbs_t acc{};
  for (char ch : digits) {
    uint64_t d;
    if (ch >= '0' && ch <= '9')
      d = uint64_t(ch - '0');
    else if (ch >= 'a' && ch <= 'f')
      d = uint64_t(ch - 'a' + 10);
    else if (ch >= 'A' && ch <= 'F')
      d = uint64_t(ch - 'A' + 10);
    else
      throw fail("not a hex digit");
    if (!ff_detail::mul_add_small<n_limbs>(acc, 16, d)) throw fail("value >= modulus");
  }
  if (!limbs::less(acc, modulus)) throw fail("value >= modulus");
  return from_reduced(acc);
}

template <class P>
std::string mont_t<P>::to_hex() const {
  static constexpr char digit[] = "0123456789abcdef";
  uint8_t be[n_bytes];
  to_bytes_be(be);
  std::string s = "0x";
  for (uint8_t b : be) {
    s += digit[b >> 4];
    s += digit[b & 15];
  }
  return s;
}

}  // namespace starzk
