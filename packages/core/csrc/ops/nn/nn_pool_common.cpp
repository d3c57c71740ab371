// Argument parsing, shapes and the plane scatters shared by the pooling ops (nn_pool.h); the
// scatters' loops are the backend table's PoolKernels::unpool_scatter / unpool_scatter_add.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <sstream>

#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/internal.h"
#include "ops/nn/nn_pool.h"

namespace ember::pool {

namespace {
const char* rank_word(int n) { return n == 1 ? "one" : n == 2 ? "two" : "three"; }
}  // namespace

Arr3 expand_arg(IntArrayRef v, int n, int64_t fill, const char* op, const char* what, const Arr3* empty) {
  if (v.size() == 0 && empty) return *empty;
  if (v.size() != 1 && v.size() != static_cast<size_t>(n)) {
    const bool is_stride = std::strcmp(what, "stride") == 0;
    const bool is_dil = std::strcmp(what, "dilation") == 0;
    fail(ErrorKind::Runtime, op, ": ", what,
         is_stride ? " must either be omitted, a single int, or a tuple of "
         : is_dil  ? " must be either a single int, or a tuple of "
                   : " must either be a single int, or a tuple of ",
         rank_word(n), " ints");
  }
  Arr3 r{fill, fill, fill};
  for (int i = 0; i < n; ++i) {
    r[3 - n + i] = v.size() == 1 ? v[0] : v[i];
    // PyTorch's pooling kernels take these as C ints (and raise this); it bounds the window loops too.
    EMBER_CHECK(r[3 - n + i] >= INT32_MIN && r[3 - n + i] <= INT32_MAX,
                "value cannot be converted to type int without overflow");
  }
  return r;
}

Planes make_planes(const Tensor& self, int n) {
  Planes p;
  p.n = n;
  int64_t lead = self.dim() - n;
  p.planes = 1;
  for (int64_t i = 0; i < lead; ++i) p.planes *= self.size(i);
  for (int i = 0; i < n; ++i) p.in[3 - n + i] = self.size(lead + i);
  p.x = contiguous(self, MemoryFormat::Contiguous);
  return p;
}

DimVector out_shape(const Tensor& self, int n, const Arr3& out) {
  DimVector s;
  for (int64_t i = 0; i < self.dim() - n; ++i) s.push_back(self.size(i));
  for (int i = 0; i < n; ++i) s.push_back(out[3 - n + i]);
  return s;
}

int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil) {
  // 128-bit: the arguments are C ints but `in` may be any size (an expanded dim).
  __int128 num128 = static_cast<__int128>(in) + 2 * static_cast<__int128>(pad) - static_cast<__int128>(dil) * (k - 1) -
                    1 + (ceil ? stride - 1 : 0);
  EMBER_CHECK(num128 >= INT64_MIN && num128 <= INT64_MAX, "pooling: output size overflows");
  int64_t num = static_cast<int64_t>(num128);
  int64_t q = num / stride;
  if ((num % stride != 0) && ((num < 0) != (stride < 0))) --q;  // floor division
  int64_t out = q + 1;
  // The last window must start inside the input or the left padding.
  if (ceil && (out - 1) * stride >= in + pad) --out;
  return out;
}

void check_pool_input(const Tensor& self, int n, const char* op) {
  (void)op;
  bool ok = self.dim() == n + 1 || self.dim() == n + 2;
  EMBER_CHECK(ok, "non-empty ", n + 1, "D or ", n + 2, "D (batch mode) tensor expected for input");
  for (int64_t i = self.dim() == n + 2 ? 1 : 0; ok && i < self.dim(); ++i) ok = self.size(i) != 0;
  if (!ok) {
    const char* ranks = n == 1 ? "2D or 3D" : n == 2 ? "3D or 4D" : "4D or 5D";
    fail(ErrorKind::Runtime, "Expected ", ranks,
         " (batch mode) tensor with optional 0 dim batch size for input, but got:", shape_str(self.sizes()));
  }
}

std::string sizes_x(std::initializer_list<int64_t> v) {
  std::ostringstream os;
  os << "(";
  bool first = true;
  for (int64_t x : v) {
    if (!first) os << "x";
    os << x;
    first = false;
  }
  os << ")";
  return os.str();
}

Tensor plane_scatter(const Tensor& src, const Tensor& indices, int64_t plane_size, const char* op) {
  Tensor s = contiguous(src, MemoryFormat::Contiguous);
  Tensor idx = contiguous(indices, MemoryFormat::Contiguous);
  const int64_t planes = s.dim() ? s.size(0) : 1;
  const int64_t m = planes ? s.numel() / planes : 0;
  Tensor out = zeros({planes, plane_size}, s.dtype(), s.device());
  if (plane_size == 0) return out;  // aten: an empty output reads no index, so none is invalid
  if (!is_floating(s.dtype())) dtype_not_implemented(op, s.dtype());  // aten's unpool kernels: float types
  const int64_t* ip = idx.data<int64_t>();
  if (idx.device().is_meta()) return out;  // no indices to check, nothing to write
  // Validate first: kernels run with the GIL released and must not throw. A CUDA index tensor is
  // checked in a host copy (the kernel reads the device one).
  const Tensor host_idx = idx.device().is_cpu() ? idx : to_device(idx, cpu_device());
  const int64_t* hp = host_idx.data<int64_t>();
  for (int64_t i = 0; i < idx.numel(); ++i)
    if (hp[i] < 0 || hp[i] >= plane_size)
      fail(ErrorKind::Runtime, op, ": Found an invalid max index: ", hp[i], " (output volumes are of size ", plane_size,
           ")");
  backend(out).pool.unpool_scatter(s.dtype(), op, s.raw(), ip, planes, m, out.raw(), plane_size);
  return out;
}

Tensor plane_scatter_add(const Tensor& src, const Tensor& indices, int64_t plane_size) {
  Tensor s = contiguous(src, MemoryFormat::Contiguous);
  Tensor idx = contiguous(indices, MemoryFormat::Contiguous);
  const int64_t planes = s.size(0);
  const int64_t m = planes ? s.numel() / planes : 0;
  Tensor out = zeros({planes, plane_size}, s.dtype(), s.device());
  const int64_t* ip = idx.data<int64_t>();
  backend(out).pool.unpool_scatter_add(s.dtype(), s.raw(), ip, planes, m, out.raw(), plane_size);
  return out;
}

}  // namespace ember::pool
