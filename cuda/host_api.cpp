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
  return elementwise<fp_t>(
      a, b, [op](auto... x) { return fp_elementwise(op, x...); }, "fp_elementwise");
}
std::vector<fr_t> fr_elementwise_host(field_op_t op, std::span<const fr_t> a, std::span<const fr_t> b) {
  return elementwise<fr_t>(
      a, b, [op](auto... x) { return fr_elementwise(op, x...); }, "fr_elementwise");
}
std::vector<fp2_t> fp2_elementwise_host(field_op_t op, std::span<const fp2_t> a, std::span<const fp2_t> b) {
  return elementwise<fp2_t>(
      a, b, [op](auto... x) { return fp2_elementwise(op, x...); }, "fp2_elementwise");
}

void ntt_host(std::span<fr_t> data, ntt_dir_t dir, ntt_order_t order, ntt_coset_t coset, root_convention_t conv,
              ntt_tables_t tables) {
  const unsigned L = log2_exact(data.size(), "ntt");
  stream_t s;
  device_buffer_t dom(ntt_domain_bytes(L, tables)), d(data.size_bytes());
  check_cuda(ntt_domain_init(dom.get(), L, conv, s.get(), tables), "ntt_domain_init");
  d.upload(data.data(), data.size_bytes());
  ntt_tuning_t tune;
  tune.tables = tables;
  check_cuda(ntt(d.as<fr_t>(), L, dir, order, coset, dom.get(), s.get(), tune), "ntt");
  s.sync();
  d.download(data.data(), data.size_bytes());
}

std::vector<fr_t> ntt_h_host(std::span<const fr_t> a, std::span<const fr_t> b, std::span<const fr_t> c,
                             root_convention_t conv, ntt_tables_t tables) {
  if (a.size() != b.size() || a.size() != c.size())
    throw std::runtime_error("starzk_cuda: ntt_h: a, b, c differ in length");
  const unsigned L = log2_exact(a.size(), "ntt_h");
  stream_t s;
  device_buffer_t dom(ntt_domain_bytes(L, tables)), da(a.size_bytes()), db(b.size_bytes()), dc(c.size_bytes());
  check_cuda(ntt_domain_init(dom.get(), L, conv, s.get(), tables), "ntt_domain_init");
  da.upload(a.data(), a.size_bytes());
  db.upload(b.data(), b.size_bytes());
  dc.upload(c.data(), c.size_bytes());
  ntt_tuning_t tune;
  tune.tables = tables;
  check_cuda(ntt_h(da.as<fr_t>(), db.as<fr_t>(), dc.as<fr_t>(), L, conv, dom.get(), s.get(), tune), "ntt_h");
  s.sync();
  std::vector<fr_t> h(a.size());
  da.download(h.data(), a.size_bytes());
  return h;
}

namespace {

// Page-locks a host array for the duration of a call (cudaHostRegister),
// as the key's streamed queries and the rows a, b, c of the H phase in
// passes are in a proving run.
class host_lock_t {
 public:
  host_lock_t(const void* p, size_t bytes) {
    if (p && bytes) {
      check_cuda(cudaHostRegister(const_cast<void*>(p), bytes, cudaHostRegisterDefault), "cudaHostRegister");
      p_ = p;
    }
  }
  ~host_lock_t() {
    if (p_) (void)cudaHostUnregister(const_cast<void*>(p_));
  }
  host_lock_t(const host_lock_t&) = delete;
  host_lock_t& operator=(const host_lock_t&) = delete;

 private:
  const void* p_ = nullptr;
};

}  // namespace

std::vector<fr_t> ntt_h_passes_host(std::span<const fr_t> a, std::span<const fr_t> b, std::span<const fr_t> c,
                                    root_convention_t conv, ntt_tables_t tables, size_t chunk, unsigned vectors,
                                    bool a_on_device) {
  if (a.size() != b.size() || a.size() != c.size())
    throw std::runtime_error("starzk_cuda: ntt_h_passes: a, b, c differ in length");
  const unsigned L = log2_exact(a.size(), "ntt_h_passes");
  stream_t s;
  const size_t scratch = a_on_device ? ntt_h_passes_a_on_device_scratch_bytes(L, chunk, vectors)
                                     : ntt_h_passes_scratch_bytes(L, chunk, vectors);
  device_buffer_t dom(ntt_domain_bytes(L, tables)), d(scratch), da(a_on_device ? a.size_bytes() : 0);
  check_cuda(ntt_domain_init(dom.get(), L, conv, s.get(), tables), "ntt_domain_init");
  // Page-locked, as the codelet's rows are: the copies are DMA and run
  // beside the transforms, so the test sees the overlap it must order.
  // With a on the device, ha is the one-vector form's spare array.
  std::vector<fr_t> ha(a.begin(), a.end()), hb(b.begin(), b.end()), hc(c.begin(), c.end());
  const host_lock_t la(ha.data(), a.size_bytes()), lb(hb.data(), b.size_bytes()), lc(hc.data(), c.size_bytes());
  ntt_tuning_t tune;
  tune.tables = tables;
  if (a_on_device) {
    da.upload(a.data(), a.size_bytes());
    std::fill(ha.begin(), ha.end(), fr_t{});  // the spare holds nothing of a
    check_cuda(ntt_h_passes_a_on_device(static_cast<fr_t*>(da.get()), ha.data(), hb.data(), hc.data(), L, conv,
                                        dom.get(), d.get(), scratch, chunk, s.get(), tune, vectors),
               "ntt_h_passes_a_on_device");
    s.sync();
    da.download(ha.data(), a.size_bytes());
    return ha;
  }
  check_cuda(ntt_h_passes(ha.data(), hb.data(), hc.data(), L, conv, dom.get(), d.get(), scratch, chunk, s.get(), tune,
                          vectors),
             "ntt_h_passes");
  s.sync();
  return ha;
}

namespace {

// The MSM conveniences, written once for G1 and G2 (P = g1_params /
// g2_params) over the launcher templates, instantiated for both below.
template <class T>
device_buffer_t to_device(std::span<const T> h) {
  device_buffer_t d(h.size_bytes());
  d.upload(h.data(), h.size_bytes());
  return d;
}
template <class T>
T download_one(const device_buffer_t& d, size_t index = 0) {
  T r;
  d.download(&r, sizeof r, index * sizeof r);
  return r;
}
// The launcher's name for error messages, e.g. msm_split<G2>.
template <class P>
std::string msm_what(const char* launcher) {
  return std::string(launcher) + "<" + P::name + ">";
}

template <class P>
void check_sizes(size_t bases, size_t scalars, const char* launcher) {
  if (bases != scalars)
    throw std::runtime_error("starzk_cuda: " + msm_what<P>(launcher) + ": bases and scalars differ in length");
}
template <class P>
void check_bitmap(size_t n, size_t words, const char* launcher) {
  if (words < (n + 31) / 32) throw std::runtime_error("starzk_cuda: " + msm_what<P>(launcher) + ": bitmap too short");
}

}  // namespace

template <class P>
xyzz_t<P> msm_host(std::span<const affine_t<P>> bases, std::span<const fr_t> scalars, const msm_tuning_t& tune) {
  check_sizes<P>(bases.size(), scalars.size(), "msm");
  const size_t n = bases.size();
  stream_t s;
  device_buffer_t db = to_device(bases), ds = to_device(scalars), dr(sizeof(xyzz_t<P>));
  const size_t scratch = msm_scratch_bytes<P>(n, tune);
  device_buffer_t dscr(scratch);
  check_cuda(msm<P>(dr.as<xyzz_t<P>>(), db.as<affine_t<P>>(), ds.as<fr_t>(), n, dscr.get(), scratch, s.get(), tune),
             msm_what<P>("msm").c_str());
  s.sync();
  return download_one<xyzz_t<P>>(dr);
}

template <class P>
xyzz_t<P> batch_add_host(std::span<const affine_t<P>> bases, std::span<const uint32_t> bitmap) {
  const size_t n = bases.size();
  check_bitmap<P>(n, bitmap.size(), "batch_add");
  stream_t s;
  device_buffer_t db = to_device(bases), dm = to_device(bitmap), dr(sizeof(xyzz_t<P>));
  const size_t scratch = batch_add_scratch_bytes<P>(n);
  device_buffer_t dscr(scratch);
  check_cuda(batch_add<P>(dr.as<xyzz_t<P>>(), db.as<affine_t<P>>(), dm.as<uint32_t>(), n, dscr.get(), scratch, s.get()),
             msm_what<P>("batch_add").c_str());
  s.sync();
  return download_one<xyzz_t<P>>(dr);
}

template <class P>
std::pair<xyzz_t<P>, xyzz_t<P>> msm_split_host(std::span<const affine_t<P>> bases, std::span<const fr_t> scalars,
                                               std::span<const uint32_t> ones_bitmap, const msm_tuning_t& tune) {
  const size_t n = bases.size();
  check_sizes<P>(n, scalars.size(), "msm_split");
  check_bitmap<P>(n, ones_bitmap.size(), "msm_split");
  stream_t s;
  device_buffer_t db = to_device(bases), ds = to_device(scalars), dm = to_device(ones_bitmap),
                  dr(2 * sizeof(xyzz_t<P>));
  const size_t scratch = msm_split_scratch_bytes<P>(n, tune);
  device_buffer_t dscr(scratch);
  check_cuda(msm_split<P>(dr.as<xyzz_t<P>>(), dr.as<xyzz_t<P>>() + 1, db.as<affine_t<P>>(), ds.as<fr_t>(),
                          dm.as<uint32_t>(), n, dscr.get(), scratch, s.get(), tune),
             msm_what<P>("msm_split").c_str());
  s.sync();
  return {download_one<xyzz_t<P>>(dr, 0), download_one<xyzz_t<P>>(dr, 1)};
}

template <class P>
jacobian_t<P> xyzz_to_jacobian_host(const xyzz_t<P>& p) {
  stream_t s;
  device_buffer_t din = to_device(std::span<const xyzz_t<P>>(&p, 1)), dout(sizeof(jacobian_t<P>));
  check_cuda(xyzz_to_jacobian<P>(dout.as<jacobian_t<P>>(), din.as<xyzz_t<P>>(), 1, s.get()),
             msm_what<P>("xyzz_to_jacobian").c_str());
  s.sync();
  return download_one<jacobian_t<P>>(dout);
}

template <class P>
jacobian_t<P> msm_jacobian_host(std::span<const affine_t<P>> bases, std::span<const fr_t> scalars, size_t split_from,
                                const msm_tuning_t& tune) {
  check_sizes<P>(bases.size(), scalars.size(), "msm_jacobian");
  const size_t n = bases.size();
  stream_t s;
  device_buffer_t db = to_device(bases), ds = to_device(scalars), dout(sizeof(jacobian_t<P>));
  const size_t scratch = msm_jacobian_scratch_bytes<P>(n, split_from != msm_no_split, tune);
  device_buffer_t dscr(scratch);
  check_cuda(msm_jacobian<P>(dout.as<jacobian_t<P>>(), db.as<affine_t<P>>(), ds.as<fr_t>(), n, split_from, dscr.get(),
                             scratch, s.get(), tune),
             msm_what<P>("msm_jacobian").c_str());
  s.sync();
  return download_one<jacobian_t<P>>(dout);
}

// Calls of the MSM in pieces over the same bases, call c taking the next
// pieces[c].sets scalar vectors (msm_pieces_sets), enqueued back to back on
// one stream into one scratch with no host wait between them, as a CUDA
// worker runs consecutive MSM tasks; the host bases are page-locked (and
// the device copy made) once when any call wants them.
template <class P>
std::vector<jacobian_t<P>> msm_pieces_sequence_host(std::span<const affine_t<P>> bases,
                                                    std::span<const std::vector<fr_t>> scalars, size_t split_from,
                                                    std::span<const msm_pieces_t> pieces, const msm_tuning_t& tune) {
  const size_t n = bases.size();
  bool on_host = false, on_device = false;
  size_t scratch = 1, vectors = 0;
  for (const msm_pieces_t& pc : pieces) {
    (pc.bases_on_host ? on_host : on_device) = true;
    scratch = std::max(scratch, msm_pieces_scratch_bytes<P>(n, split_from != msm_no_split, pc, tune));
    vectors += pc.sets;
  }
  if (vectors != scalars.size())
    throw std::invalid_argument(msm_what<P>("msm_pieces") + ": the calls' sets do not add up to the scalar vectors");
  for (const std::vector<fr_t>& v : scalars) check_sizes<P>(n, v.size(), "msm_pieces");
  stream_t s;
  const host_lock_t lock(on_host ? bases.data() : nullptr, bases.size_bytes());
  device_buffer_t db = on_device ? to_device(bases) : device_buffer_t(), dscr(scratch);
  device_buffer_t dout(std::max<size_t>(1, scalars.size()) * sizeof(jacobian_t<P>));
  std::vector<device_buffer_t> ds;
  std::vector<const fr_t*> dptr;
  for (const std::vector<fr_t>& v : scalars) {
    ds.push_back(to_device(std::span<const fr_t>(v)));
    dptr.push_back(ds.back().as<fr_t>());
  }
  size_t first = 0;
  for (const msm_pieces_t& pc : pieces) {
    const affine_t<P>* b = pc.bases_on_host ? bases.data() : db.as<affine_t<P>>();
    check_cuda(msm_pieces_sets<P>(dout.as<jacobian_t<P>>() + first, b, dptr.data() + first, n, split_from, pc,
                                  dscr.get(), scratch, s.get(), tune),
               msm_what<P>("msm_pieces_sets").c_str());
    first += pc.sets;
  }
  s.sync();
  std::vector<jacobian_t<P>> out(scalars.size());
  if (!out.empty()) dout.download(out.data(), out.size() * sizeof(jacobian_t<P>));
  return out;
}

template <class P>
jacobian_t<P> msm_pieces_host(std::span<const affine_t<P>> bases, std::span<const fr_t> scalars, size_t split_from,
                              const msm_pieces_t& pieces, const msm_tuning_t& tune) {
  const std::vector<fr_t> one(scalars.begin(), scalars.end());
  return msm_pieces_sequence_host<P>(bases, std::span<const std::vector<fr_t>>(&one, 1), split_from,
                                     std::span<const msm_pieces_t>(&pieces, 1), tune)[0];
}

template g1_xyzz_t msm_host<g1_params>(std::span<const g1_affine_t>, std::span<const fr_t>, const msm_tuning_t&);
template g2_xyzz_t msm_host<g2_params>(std::span<const g2_affine_t>, std::span<const fr_t>, const msm_tuning_t&);
template g1_xyzz_t batch_add_host<g1_params>(std::span<const g1_affine_t>, std::span<const uint32_t>);
template g2_xyzz_t batch_add_host<g2_params>(std::span<const g2_affine_t>, std::span<const uint32_t>);
template std::pair<g1_xyzz_t, g1_xyzz_t> msm_split_host<g1_params>(std::span<const g1_affine_t>, std::span<const fr_t>,
                                                                   std::span<const uint32_t>, const msm_tuning_t&);
template std::pair<g2_xyzz_t, g2_xyzz_t> msm_split_host<g2_params>(std::span<const g2_affine_t>, std::span<const fr_t>,
                                                                   std::span<const uint32_t>, const msm_tuning_t&);
template g1_jacobian_t xyzz_to_jacobian_host<g1_params>(const g1_xyzz_t&);
template g2_jacobian_t xyzz_to_jacobian_host<g2_params>(const g2_xyzz_t&);
template g1_jacobian_t msm_jacobian_host<g1_params>(std::span<const g1_affine_t>, std::span<const fr_t>, size_t,
                                                    const msm_tuning_t&);
template g2_jacobian_t msm_jacobian_host<g2_params>(std::span<const g2_affine_t>, std::span<const fr_t>, size_t,
                                                    const msm_tuning_t&);
template g1_jacobian_t msm_pieces_host<g1_params>(std::span<const g1_affine_t>, std::span<const fr_t>, size_t,
                                                  const msm_pieces_t&, const msm_tuning_t&);
template g2_jacobian_t msm_pieces_host<g2_params>(std::span<const g2_affine_t>, std::span<const fr_t>, size_t,
                                                  const msm_pieces_t&, const msm_tuning_t&);
template std::vector<g1_jacobian_t> msm_pieces_sequence_host<g1_params>(std::span<const g1_affine_t>,
                                                                        std::span<const std::vector<fr_t>>, size_t,
                                                                        std::span<const msm_pieces_t>,
                                                                        const msm_tuning_t&);
template std::vector<g2_jacobian_t> msm_pieces_sequence_host<g2_params>(std::span<const g2_affine_t>,
                                                                        std::span<const std::vector<fr_t>>, size_t,
                                                                        std::span<const msm_pieces_t>,
                                                                        const msm_tuning_t&);

std::vector<uint32_t> ones_bitmap_host(std::span<const fr_t> scalars, size_t split_from) {
  const size_t n = scalars.size(), words = (n + 31) / 32;
  stream_t s;
  device_buffer_t ds = to_device(scalars), dm(words * sizeof(uint32_t));
  check_cuda(ones_bitmap(dm.as<uint32_t>(), ds.as<fr_t>(), n, split_from, s.get()), "ones_bitmap");
  s.sync();
  std::vector<uint32_t> bitmap(words);
  dm.download(bitmap.data(), words * sizeof(uint32_t));
  return bitmap;
}

}  // namespace starzk::gpu
