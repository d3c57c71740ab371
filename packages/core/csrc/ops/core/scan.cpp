// The cumulative ops (cumsum, cumprod): the scan kernel along one dim, moved last.
#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"

namespace ember {

// The result into out= (any dtype: the scan already ran in out's), or the result itself.
static Tensor write_out(Tensor r, const Tensor* out) {
  if (!out) return r;
  resize_out(*out, r.sizes());
  copy_into(*out, r);
  out->bump_version();
  return *out;
}

// aten's cumulative ops fill a 0-d result and zero an empty one; only a real scan reaches the
// kernel's dtype dispatch, which has no Bool (nor uint16/32/64).
static void check_scan_kernel(const char* name, const Tensor& x, ScalarType result) {
  EMBER_CHECK_NOTIMPL((result != ScalarType::Bool && !is_shell_unsigned(result)) || x.dim() == 0 || x.numel() == 0,
                      "\"", name, "_out_cpu\" not implemented for '", legacy_name(result), "'");
}
static Tensor scan(const char* name, const Tensor& x0, int64_t dim, std::optional<ScalarType> dtype, bool is_prod,
                   const Tensor* out) {
  (void)wrap_dim(dim, x0.dim());  // aten wraps the dim before it looks at out=
  if (out && dtype) check_out_dtype(*out, *dtype);
  if (out) check_no_partial_overlap(*out, x0);
  if (out && !dtype) dtype = out->dtype();
  int64_t nd = x0.dim();
  int64_t d = wrap_dim(dim, nd);
  ScalarType rt = dtype ? *dtype : (is_integral(x0.dtype(), true) ? ScalarType::Int64 : x0.dtype());
  check_scan_kernel(name, x0, rt);
  Tensor x = to_dtype(x0, rt);
  if (nd == 0) return write_out(x.same(x0) ? clone(x0, std::nullopt) : x, out);
  Tensor moved = contiguous(transpose(x, d, nd - 1), MemoryFormat::Contiguous);
  Tensor res = empty(moved.sizes(), rt, moved.device());
  if (res.numel() > 0) backend(x).reduce.cumulative(moved, res, nd - 1, is_prod);
  return write_out(contiguous(transpose(res, d, nd - 1), MemoryFormat::Contiguous), out);
}
Tensor cumsum(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return scan("cumsum", input, dim, dtype, false, nullptr);
}
// aten's order: the dim, the dtype, then (only with elements to scan) the Bool dispatch.
static void check_scan_inplace(const char* name, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  (void)wrap_dim(dim, self.dim());
  EMBER_CHECK(!dtype || *dtype == self.dtype(), "Bad in-place call: input tensor dtype ", c_type_name(self.dtype()),
              " and output tensor dtype ", c_type_name(*dtype), " should match");
  check_scan_kernel(name, self, self.dtype());
}
// The in-place scans: the scan of self written back into it.
static const Tensor& scan_(const char* name, const char* inplace_name, const Tensor& self, int64_t dim,
                           std::optional<ScalarType> dtype, bool is_prod) {
  check_scan_inplace(name, self, dim, dtype);
  check_inplace(self, inplace_name);
  copy_into(self, scan(name, self, dim, dtype, is_prod, nullptr));
  self.bump_version();
  return self;
}
Tensor cumsum_(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return scan_("cumsum", "cumsum_", self, dim, dtype, false);
}
Tensor cumsum_out(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out) {
  return scan("cumsum", input, dim, dtype, false, &out);
}
Tensor cumprod(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return scan("cumprod", input, dim, dtype, true, nullptr);
}
Tensor cumprod_(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return scan_("cumprod", "cumprod_", self, dim, dtype, true);
}
Tensor cumprod_out(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out) {
  return scan("cumprod", input, dim, dtype, true, &out);
}

}  // namespace ember
