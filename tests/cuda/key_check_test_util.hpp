// Test inputs and host oracles of key_check_test.cpp: the device calls of
// one group (g1_ops / g2_ops), random subgroup and non-subgroup points,
// points and compressed encodings with planted faults, the host's verdict on
// each point (host_fact_t), and the walk that holds a device scan against it.
#pragma once

#include <cstring>
#include <functional>
#include <vector>

#include "cuda/key_check.hpp"
#include "ec/encoding.hpp"
#include "ec/subgroup.hpp"
#include "gpu_test_util.hpp"

namespace starzk::gpu::test {

struct g1_ops {
  using aff = g1_affine_t;
  using jac = g1_jacobian_t;
  using field = fp_t;
  static constexpr size_t compressed = g1_compressed_size;
  static constexpr size_t n_test = 1000;
  static cudaError_t check(const aff* p, size_t n, const key_check_options_t& o, point_scan_t* s,
                           key_check_context_t* ctx = nullptr) {
    return check_g1(p, n, o, s, ctx);
  }
  static cudaError_t decompress(const uint8_t* in, size_t n, aff* out, const key_check_options_t& o, point_scan_t* s,
                                key_check_context_t* ctx = nullptr) {
    return decompress_g1(in, n, out, o, s, ctx);
  }
  static void encode(const aff& p, uint8_t* out) { encode_g1_compressed(p, out); }
  static decode_status decode(const uint8_t* in, aff& out) {
    return decode_g1_compressed(in, out, decode_check::on_curve);
  }
};
struct g2_ops {
  using aff = g2_affine_t;
  using jac = g2_jacobian_t;
  using field = fp2_t;
  static constexpr size_t compressed = g2_compressed_size;
  static constexpr size_t n_test = 500;
  static cudaError_t check(const aff* p, size_t n, const key_check_options_t& o, point_scan_t* s,
                           key_check_context_t* ctx = nullptr) {
    return check_g2(p, n, o, s, ctx);
  }
  static cudaError_t decompress(const uint8_t* in, size_t n, aff* out, const key_check_options_t& o, point_scan_t* s,
                                key_check_context_t* ctx = nullptr) {
    return decompress_g2(in, n, out, o, s, ctx);
  }
  static void encode(const aff& p, uint8_t* out) { encode_g2_compressed(p, out); }
  static decode_status decode(const uint8_t* in, aff& out) {
    return decode_g2_compressed(in, out, decode_check::on_curve);
  }
};

// Pieces of `piece` points (key_check.hpp: two pieces in flight, each
// point taking its input and output bytes).
template <class Ops>
key_check_options_t small_pieces(key_check_options_t o, size_t piece, bool decompress) {
  o.device_bytes = 2 * piece * (sizeof(typename Ops::aff) + (decompress ? Ops::compressed : 0));
  return o;
}

template <class Ops>
point_scan_t run_check(const std::vector<typename Ops::aff>& pts, const key_check_options_t& o) {
  point_scan_t s;
  check_cuda(Ops::check(pts.data(), pts.size(), o, &s), "check");
  return s;
}
template <class Ops>
point_scan_t run_decompress(const uint8_t* in, size_t n, typename Ops::aff* out, const key_check_options_t& o) {
  point_scan_t s;
  check_cuda(Ops::decompress(in, n, out, o, &s), "decompress");
  return s;
}

// A random point of the curve (random x until x^3 + b is a square); of
// order r only by a chance of 1/cofactor.
template <class Ops>
typename Ops::aff random_curve_point(std::mt19937_64& rng) {
  using F = typename Ops::field;
  for (;;) {
    const F x = F::random(rng);
    F y;
    if ((x.sqr() * x + Ops::aff::params_t::b()).sqrt(y)) return {x, y};
  }
}
template <class Ops>
typename Ops::aff non_subgroup_point(std::mt19937_64& rng) {
  for (;;) {
    const auto p = random_curve_point<Ops>(rng);
    if (!p.is_in_subgroup()) return p;
  }
}
// x with x^3 + b not a square (no point has it).
template <class Ops>
typename Ops::field x_without_root(std::mt19937_64& rng) {
  using F = typename Ops::field;
  for (;;) {
    const F x = F::random(rng);
    F y;
    if (!(x.sqr() * x + Ops::aff::params_t::b()).sqrt(y)) return x;
  }
}

// n points Q + i·R of the subgroup (Q, R: random curve points with the
// cofactor cleared, ec/subgroup.hpp).
template <class Ops>
std::vector<typename Ops::aff> subgroup_points(std::mt19937_64& rng, size_t n) {
  using jac = typename Ops::jac;
  const jac q = clear_cofactor(jac::from_affine(random_curve_point<Ops>(rng)));
  const auto r = clear_cofactor(jac::from_affine(random_curve_point<Ops>(rng))).to_affine();
  std::vector<jac> j(n);
  jac acc = q;
  for (size_t i = 0; i < n; ++i, acc = acc.add_mixed(r)) j[i] = acc;
  std::vector<typename Ops::aff> out(n);
  jac::batch_to_affine(j, out);
  return out;
}

// One Fp coordinate of a (c0 or c1 of an Fp2), picked at random.
inline fp_t& some_fp(fp_t& a, std::mt19937_64&) { return a; }
inline fp_t& some_fp(fp2_t& a, std::mt19937_64& rng) { return rng() & 1 ? a.c1 : a.c0; }
inline bool canonical(const fp_t& a) { return limbs::less(a.mont_limbs(), fp_t::modulus); }
inline bool canonical(const fp2_t& a) { return canonical(a.c0) && canonical(a.c1); }

// base with a fault of kind k (0..6): outside the subgroup, off the curve,
// x limbs = p, y limbs = 2^384 - 1, O, x limbs + p (a non-canonical alias),
// (0, sqrt(b)) (G1: (0, 2), of order 3; G2 has no such point: outside the
// subgroup instead).
template <class Ops>
typename Ops::aff faulty_point(std::mt19937_64& rng, typename Ops::aff p, int kind) {
  using F = typename Ops::field;
  fp_t::limbs_t l{};
  switch (kind) {
    case 0:
      return non_subgroup_point<Ops>(rng);
    case 1:
      p.y += F::one();
      return p;
    case 2:
      some_fp(p.x, rng) = fp_t::from_mont_limbs(fp_t::modulus);
      return p;
    case 3:
      l.fill(~uint64_t(0));
      some_fp(p.y, rng) = fp_t::from_mont_limbs(l);
      return p;
    case 4:
      return Ops::aff::infinity();
    case 6: {
      typename Ops::aff q{F::zero(), F::zero()};
      return Ops::aff::params_t::b().sqrt(q.y) ? q : non_subgroup_point<Ops>(rng);
    }
    default: {
      fp_t& c = some_fp(p.x, rng);
      limbs::add(l, c.mont_limbs(), fp_t::modulus);
      c = fp_t::from_mont_limbs(l);
      return p;
    }
  }
}

template <class Ops>
std::vector<uint8_t> encode_all(const std::vector<typename Ops::aff>& pts) {
  std::vector<uint8_t> e(pts.size() * Ops::compressed);
  for (size_t i = 0; i < pts.size(); ++i) Ops::encode(pts[i], &e[i * Ops::compressed]);
  return e;
}

// Overwrites one compressed encoding e with a corruption of kind k.
constexpr int corruption_kinds = 9;
template <class Ops>
void corrupt_encoding(std::mt19937_64& rng, uint8_t* e, int kind) {
  using F = typename Ops::field;
  constexpr size_t c = Ops::compressed;
  switch (kind) {
    case 0:
      e[0] &= 0x7f;
      return;  // compression bit cleared
    case 1:
      std::memset(e, 0, c);
      e[0] = 0xe0;
      return;  // infinity + sort
    case 2:
      std::memset(e, 0, c);
      e[0] = 0xc0;
      e[1 + rng() % (c - 1)] = uint8_t(1u << (rng() % 8));
      return;
    case 3: {  // one Fp of x >= p: p itself, or a top bit set
      const size_t at = (c == 96 && (rng() & 1)) ? 48 : 0;
      for (size_t i = 0; i < 48; ++i) e[at + i] = uint8_t(fp_t::modulus[(47 - i) / 8] >> (8 * ((47 - i) % 8)));
      if (rng() & 1) e[at] |= at ? 0x80 : 0x1f;
      e[0] |= 0x80;
      return;
    }
    case 4:
      Ops::encode({x_without_root<Ops>(rng), F::zero()}, e);
      e[0] |= uint8_t(rng() & 0x20);
      return;
    case 5:
      Ops::encode(non_subgroup_point<Ops>(rng), e);
      return;
    case 6:
      e[0] ^= 0x20;
      return;  // the other root (or the sort bit on O)
    case 7:
      std::memset(e, 0, c);
      e[0] = uint8_t(0x80 | (rng() & 0x20));
      return;  // x = 0: G1 (0, +-2)
    default:   // random x, compression bit set
      for (size_t i = 0; i < c; ++i) e[i] = uint8_t(rng());
      e[0] = uint8_t((e[0] & 0x1f) | 0x80 | (rng() & 0x20));
  }
}

// The host's verdict on one point, apart from the options: a fault of the
// point itself (non-canonical, bad flags, not on the curve), O, subgroup.
struct host_fact_t {
  point_fault_t own = point_fault_t::none;
  bool infinity = false, in_subgroup = true;
  point_fault_t fault(const key_check_options_t& o) const {
    if (own != point_fault_t::none) return own;
    if (infinity) return o.allow_infinity ? point_fault_t::none : point_fault_t::infinity;
    return o.subgroup && !in_subgroup ? point_fault_t::not_in_subgroup : point_fault_t::none;
  }
};
using host_facts_t = std::vector<host_fact_t>;

template <class Ops>
host_facts_t host_facts(const std::vector<typename Ops::aff>& pts) {
  host_facts_t f(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) {
    const auto& p = pts[i];
    if (!canonical(p.x) || !canonical(p.y))
      f[i].own = point_fault_t::non_canonical;
    else if (p.is_infinity())
      f[i].infinity = true;
    else if (!p.is_on_curve())
      f[i].own = point_fault_t::not_on_curve;
    else
      f[i].in_subgroup = p.is_in_subgroup();
  }
  return f;
}

template <class Ops>
struct host_decoded_t {
  host_facts_t facts;
  std::vector<typename Ops::aff> points;
};
template <class Ops>
host_decoded_t<Ops> host_decode_all(const std::vector<uint8_t>& enc) {
  const size_t n = enc.size() / Ops::compressed;
  host_decoded_t<Ops> d{host_facts_t(n), std::vector<typename Ops::aff>(n)};
  for (size_t i = 0; i < n; ++i) {
    host_fact_t& f = d.facts[i];
    switch (Ops::decode(&enc[i * Ops::compressed], d.points[i])) {
      case decode_status::ok:
        f.infinity = d.points[i].is_infinity();
        f.in_subgroup = f.infinity || d.points[i].is_in_subgroup();
        break;
      case decode_status::non_canonical_coordinate:
        f.own = point_fault_t::non_canonical;
        break;
      case decode_status::no_square_root:
        f.own = point_fault_t::not_on_curve;
        break;
      default:
        f.own = point_fault_t::bad_flags;  // the three flag rules
    }
  }
  return d;
}

// Walks every fault of n points under options o: scan_from(i) scans points
// [i, n) and returns the device's answer (indices relative to i).
inline void walk_faults(size_t n, const host_facts_t& facts, const key_check_options_t& o,
                        const std::function<point_scan_t(size_t)>& scan_from) {
  const std::string opts =
      std::string("subgroup=") + (o.subgroup ? "1" : "0") + " allow_infinity=" + (o.allow_infinity ? "1" : "0");
  for (size_t from = 0;;) {
    size_t want = from;
    while (want < n && facts[want].fault(o) == point_fault_t::none) ++want;
    const point_scan_t s = scan_from(from);
    const size_t got = s.ok() ? n : from + s.first_bad;
    EXPECT_EQ(got, want) << opts << " from=" << from;
    if (want == n || got != want) return;
    EXPECT_EQ(s.fault, facts[want].fault(o)) << opts << " i=" << want << ": " << describe(s.fault);
    from = want + 1;
  }
}

}  // namespace starzk::gpu::test
