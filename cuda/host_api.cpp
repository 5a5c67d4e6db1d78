// Implementation of the host-pointer conveniences (starzk_cuda_host.hpp):
// RAII device buffers and streams, and copy-in / launch / copy-out wrappers
// around each launcher. Plain C++ on the CUDA runtime API; no device code.
#include "cuda/starzk_cuda_host.hpp"

#include <cuda_runtime_api.h>

namespace starzk::gpu {

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("starzk_cuda: ") + what + ": " + cudaGetErrorName(e) + " (" +
                             cudaGetErrorString(e) + ")");
}

bool device_available() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return n > 0;
}

device_buffer_t::device_buffer_t(size_t bytes) : bytes_(bytes) {
  if (bytes) check_cuda(cudaMalloc(&ptr_, bytes), "cudaMalloc");
}
device_buffer_t::~device_buffer_t() {
  if (ptr_) (void)cudaFree(ptr_);
}
device_buffer_t::device_buffer_t(device_buffer_t&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) {
  o.ptr_ = nullptr;
  o.bytes_ = 0;
}
device_buffer_t& device_buffer_t::operator=(device_buffer_t&& o) noexcept {
  if (this != &o) {
    if (ptr_) (void)cudaFree(ptr_);
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}
void device_buffer_t::upload(const void* h, size_t bytes, size_t offset) {
  if (offset + bytes > bytes_) throw std::runtime_error("starzk_cuda: upload past the end of a device buffer");
  if (!bytes) return;
  check_cuda(cudaMemcpy(static_cast<char*>(ptr_) + offset, h, bytes, cudaMemcpyHostToDevice), "upload");
  // From pageable memory cudaMemcpy may return once the data are staged,
  // before the DMA into device memory is done; the launchers then run on a
  // non-blocking stream that does not wait for the legacy stream. Wait here
  // (seen on the H200: the tail of an input still zero when a kernel read it).
  check_cuda(cudaStreamSynchronize(cudaStreamLegacy), "upload sync");
}
void device_buffer_t::download(void* h, size_t bytes, size_t offset) const {
  if (offset + bytes > bytes_) throw std::runtime_error("starzk_cuda: download past the end of a device buffer");
  if (bytes)
    check_cuda(cudaMemcpy(h, static_cast<const char*>(ptr_) + offset, bytes, cudaMemcpyDeviceToHost), "download");
}

stream_t::stream_t() { check_cuda(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate"); }
stream_t::~stream_t() {
  if (s_) (void)cudaStreamDestroy(s_);
}
void stream_t::sync() const { check_cuda(cudaStreamSynchronize(s_), "cudaStreamSynchronize"); }

namespace {

template <class T, class Launch>
std::vector<T> elementwise(std::span<const T> a, std::span<const T> b, Launch launch, const char* what) {
  if (!b.empty() && b.size() != a.size())
    throw std::runtime_error(std::string("starzk_cuda: ") + what + ": operand sizes differ");
  const size_t bytes = a.size() * sizeof(T);
  device_buffer_t da(bytes), db(b.empty() ? 0 : bytes), dout(bytes);
  da.upload(a.data(), bytes);
  if (!b.empty()) db.upload(b.data(), bytes);
  stream_t s;
  check_cuda(launch(dout.as<T>(), da.as<const T>(), b.empty() ? nullptr : db.as<const T>(), a.size(), s.get()), what);
  s.sync();
  std::vector<T> out(a.size());
  dout.download(out.data(), bytes);
  return out;
}

unsigned log2_exact(size_t n, const char* what) {
  unsigned L = 0;
  while ((size_t(1) << L) < n) ++L;
  if (n == 0 || (size_t(1) << L) != n || L < 1 || L > ntt_max_log)
    throw std::runtime_error(std::string("starzk_cuda: ") + what + ": length " + std::to_string(n) +
                             " is not 2^k with 1 <= k <= 27");
  return L;
}

}  // namespace

std::vector<fp_t> fp_elementwise_host(field_op_t op, std::span<const fp_t> a, std::span<const fp_t> b) {
  return elementwise<fp_t>(a, b, [op](auto... x) { return fp_elementwise(op, x...); }, "fp_elementwise");
}
std::vector<fr_t> fr_elementwise_host(field_op_t op, std::span<const fr_t> a, std::span<const fr_t> b) {
  return elementwise<fr_t>(a, b, [op](auto... x) { return fr_elementwise(op, x...); }, "fr_elementwise");
}
std::vector<fp2_t> fp2_elementwise_host(field_op_t op, std::span<const fp2_t> a, std::span<const fp2_t> b) {
  return elementwise<fp2_t>(a, b, [op](auto... x) { return fp2_elementwise(op, x...); }, "fp2_elementwise");
}

void ntt_host(std::span<fr_t> data, ntt_dir_t dir, ntt_order_t order, ntt_coset_t coset, root_convention_t conv) {
  const unsigned L = log2_exact(data.size(), "ntt");
  stream_t s;
  device_buffer_t dom(ntt_domain_bytes(L)), d(data.size_bytes());
  check_cuda(ntt_domain_init(dom.get(), L, conv, s.get()), "ntt_domain_init");
  d.upload(data.data(), data.size_bytes());
  check_cuda(ntt(d.as<fr_t>(), L, dir, order, coset, dom.get(), s.get()), "ntt");
  s.sync();
  d.download(data.data(), data.size_bytes());
}

std::vector<fr_t> ntt_h_host(std::span<const fr_t> a, std::span<const fr_t> b, std::span<const fr_t> c,
                             root_convention_t conv) {
  if (a.size() != b.size() || a.size() != c.size())
    throw std::runtime_error("starzk_cuda: ntt_h: a, b, c differ in length");
  const unsigned L = log2_exact(a.size(), "ntt_h");
  stream_t s;
  device_buffer_t dom(ntt_domain_bytes(L)), da(a.size_bytes()), db(b.size_bytes()), dc(c.size_bytes());
  check_cuda(ntt_domain_init(dom.get(), L, conv, s.get()), "ntt_domain_init");
  da.upload(a.data(), a.size_bytes());
  db.upload(b.data(), b.size_bytes());
  dc.upload(c.data(), c.size_bytes());
  check_cuda(ntt_h(da.as<fr_t>(), db.as<fr_t>(), dc.as<fr_t>(), L, conv, dom.get(), s.get()), "ntt_h");
  s.sync();
  std::vector<fr_t> h(a.size());
  da.download(h.data(), a.size_bytes());
  return h;
}

g1_xyzz_t msm_g1_host(std::span<const g1_affine_t> bases, std::span<const fr_t> scalars, const msm_tuning_t& tune) {
  if (bases.size() != scalars.size()) throw std::runtime_error("starzk_cuda: msm_g1: bases and scalars differ in length");
  const size_t n = bases.size();
  stream_t s;
  device_buffer_t db(n * sizeof(g1_affine_t)), ds(n * sizeof(fr_t)), dr(sizeof(g1_xyzz_t));
  const size_t scratch = msm_g1_scratch_bytes(n, tune);
  device_buffer_t dscr(scratch);
  db.upload(bases.data(), bases.size_bytes());
  ds.upload(scalars.data(), scalars.size_bytes());
  check_cuda(msm_g1(dr.as<g1_xyzz_t>(), db.as<g1_affine_t>(), ds.as<fr_t>(), n, dscr.get(), scratch, s.get(), tune),
             "msm_g1");
  s.sync();
  g1_xyzz_t r;
  dr.download(&r, sizeof r);
  return r;
}

g1_xyzz_t batch_add_g1_host(std::span<const g1_affine_t> bases, std::span<const uint32_t> bitmap) {
  const size_t n = bases.size();
  if (bitmap.size() < (n + 31) / 32) throw std::runtime_error("starzk_cuda: batch_add_g1: bitmap too short");
  stream_t s;
  device_buffer_t db(n * sizeof(g1_affine_t)), dm(bitmap.size_bytes()), dr(sizeof(g1_xyzz_t));
  const size_t scratch = batch_add_g1_scratch_bytes(n);
  device_buffer_t dscr(scratch);
  db.upload(bases.data(), bases.size_bytes());
  dm.upload(bitmap.data(), bitmap.size_bytes());
  check_cuda(batch_add_g1(dr.as<g1_xyzz_t>(), db.as<g1_affine_t>(), dm.as<uint32_t>(), n, dscr.get(), scratch, s.get()),
             "batch_add_g1");
  s.sync();
  g1_xyzz_t r;
  dr.download(&r, sizeof r);
  return r;
}

std::pair<g1_xyzz_t, g1_xyzz_t> msm_g1_split_host(std::span<const g1_affine_t> bases, std::span<const fr_t> scalars,
                                                  std::span<const uint32_t> ones_bitmap, const msm_tuning_t& tune) {
  const size_t n = bases.size();
  if (scalars.size() != n || ones_bitmap.size() < (n + 31) / 32)
    throw std::runtime_error("starzk_cuda: msm_g1_split: sizes of bases, scalars and bitmap disagree");
  stream_t s;
  device_buffer_t db(n * sizeof(g1_affine_t)), ds(n * sizeof(fr_t)), dm(ones_bitmap.size_bytes()),
      dr(2 * sizeof(g1_xyzz_t));
  const size_t scratch = msm_g1_split_scratch_bytes(n, tune);
  device_buffer_t dscr(scratch);
  db.upload(bases.data(), bases.size_bytes());
  ds.upload(scalars.data(), scalars.size_bytes());
  dm.upload(ones_bitmap.data(), ones_bitmap.size_bytes());
  check_cuda(msm_g1_split(dr.as<g1_xyzz_t>(), dr.as<g1_xyzz_t>() + 1, db.as<g1_affine_t>(), ds.as<fr_t>(),
                          dm.as<uint32_t>(), n, dscr.get(), scratch, s.get(), tune),
             "msm_g1_split");
  s.sync();
  g1_xyzz_t r[2];
  dr.download(r, sizeof r);
  return {r[0], r[1]};
}

g1_jacobian_t g1_xyzz_to_jacobian_host(const g1_xyzz_t& p) {
  stream_t s;
  device_buffer_t din(sizeof p), dout(sizeof(g1_jacobian_t));
  din.upload(&p, sizeof p);
  check_cuda(g1_xyzz_to_jacobian(dout.as<g1_jacobian_t>(), din.as<g1_xyzz_t>(), 1, s.get()), "g1_xyzz_to_jacobian");
  s.sync();
  g1_jacobian_t r;
  dout.download(&r, sizeof r);
  return r;
}

}  // namespace starzk::gpu
