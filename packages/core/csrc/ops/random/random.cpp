// Continuous samplers: uniform_, normal_, exponential_, cauchy_, log_normal_,
// geometric_, bernoulli_ (in place; the factories in sampling_ops.cpp call these).
//
// Note [RNG streams]
// Each sampler consumes the generator exactly as PyTorch's CPU kernel does --
// which draws (32- or 64-bit), how many, in which element order, and the same
// transform -- so ember.manual_seed(s) then any op gives PyTorch's numbers.
// Words are drawn serially in bulk (that *is* the stream); the transforms
// after them run vectorised and, where costly, on threads. So the numbers
// never depend on set_num_threads.
#include <cmath>
#include <limits>

#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/random/random.h"
#include "ops/random/random_internal.h"

namespace ember {

namespace rng {
DimVector iteration_strides(const Tensor& self) {
  // PyTorch's TensorIterator order for one operand: insertion-sort dims by
  // stride (innermost first); equal strides put the smaller size inside.
  int64_t nd = self.dim();
  IntArrayRef sz = self.sizes(), st = self.strides();
  DimVector perm(nd);
  for (int64_t d = 0; d < nd; ++d) perm[d] = nd - 1 - d;
  auto should_swap = [&](int64_t inner, int64_t outer) {
    int64_t a = st[inner], b = st[outer];
    if (a == 0 || b == 0) return false;
    if (a != b) return a > b;
    return sz[inner] > sz[outer];
  };
  for (int64_t i = 1; i < nd; ++i)
    for (int64_t j = i; j > 0 && should_swap(perm[j - 1], perm[j]); --j) std::swap(perm[j - 1], perm[j]);
  DimVector out(nd);
  int64_t s = 1;
  for (int64_t k = 0; k < nd; ++k) {
    out[perm[k]] = s;
    s *= std::max<int64_t>(sz[perm[k]], 1);
  }
  return out;
}
}  // namespace rng

using namespace rng;

namespace {

// Common preamble of the in-place samplers once their argument checks passed:
// false when there is nothing to write.
bool prepare_target(const Tensor& self, const char* name) {
  check_inplace(self, name);
  if (self.numel() == 0) return false;
  check_no_internal_overlap(self);
  return true;
}

// (the autograd wrapper then marks self overwritten: yaml grad: overwritten)
void finish(const Tensor& self) { self.bump_version(); }

// What PyTorch names a dtype in "... is out of bounds for float" (its TypeMeta name).
const char* meta_name(ScalarType t) { return c_type_name(t); }

}  // namespace

// ---- public ops ---------------------------------------------------------------

Tensor uniform_(const Tensor& self, double from, double to, Generator* gen) {
  check_inplace(self, "uniform_");
  ScalarType dt = self.dtype();
  if (is_complex(dt)) {  // PyTorch: real and imaginary parts each uniform in [from, to)
    uniform_(view_as_real(self), from, to, gen);
    return self;
  }
  EMBER_DISPATCH_FLOAT(dt, "check_uniform_bounds", [&] {
    const double hi = float_max<scalar_t>(), lo = -hi;
    EMBER_CHECK(from >= lo && from <= hi, "from is out of bounds for ", meta_name(dt));
    EMBER_CHECK(to >= lo && to <= hi, "to is out of bounds for ", meta_name(dt));
    EMBER_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
    EMBER_CHECK(to - from <= hi, "uniform_ expects to-from <= std::numeric_limits<", legacy_name(dt),
                ">::max(), but found to=", to, " and from=", from, " which result in to-from to exceed the limit");
  });
  if (!prepare_target(self, "uniform_")) return self;
  fill_in_order(self, [&](char* p, int64_t n) { backend(self).random.uniform(dt, p, n, from, to, gen); });
  finish(self);
  return self;
}

Tensor normal_(const Tensor& self, double mean, double std, Generator* gen) {
  check_inplace(self, "normal_");
  EMBER_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  if (self.numel() == 0) return self;
  ScalarType dt = self.dtype();
  if (is_complex(dt)) {  // PyTorch: real and imaginary parts each with half the variance
    normal_(view_as_real(self), mean, std / std::sqrt(2.0), gen);
    return self;
  }
  EMBER_DISPATCH_FLOAT(dt, "normal_kernel_cpu", [] {});
  // PyTorch takes its blockwise path only for contiguous targets of 16 or more.
  const bool blocks = self.is_contiguous() && self.numel() >= 16;
  if (!self.is_contiguous()) check_no_internal_overlap(self);
  fill_in_order(self, [&](char* p, int64_t n) { backend(self).random.normal(dt, p, n, blocks, mean, std, gen); });
  finish(self);
  return self;
}

Tensor exponential_(const Tensor& self, double lambd, Generator* gen) {
  EMBER_CHECK(lambd > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  if (!prepare_target(self, "exponential_")) return self;
  EMBER_CHECK(self.is_floating(),
              "Exponential distribution is a continuous probability distribution. "
              "dtype must be a floating point but you specified ",
              legacy_name(self.dtype()));
  EMBER_DISPATCH_FLOAT(self.dtype(), "exponential_cpu", [] {});
  fill_in_order(self, [&](char* p, int64_t n) { backend(self).random.exponential(self.dtype(), p, n, lambd, gen); });
  finish(self);
  return self;
}

Tensor cauchy_(const Tensor& self, double median, double sigma, Generator* gen) {
  EMBER_CHECK(sigma > 0.0, "cauchy_ expects sigma > 0.0, but found sigma=", sigma);
  EMBER_CHECK(self.is_floating(),
              "Cauchy distribution is a continuous probability distribution. "
              "dtype must be a floating point but you specified ",
              meta_name(self.dtype()));
  if (!prepare_target(self, "cauchy_")) return self;
  EMBER_DISPATCH_FLOAT(self.dtype(), "cauchy_cpu", [] {});
  fill_in_order(self, [&](char* p, int64_t n) { backend(self).random.cauchy(self.dtype(), p, n, median, sigma, gen); });
  finish(self);
  return self;
}

Tensor log_normal_(const Tensor& self, double mean, double std, Generator* gen) {
  EMBER_CHECK(std > 0.0, "log_normal_ expects std > 0.0, but found std=", std);
  if (!prepare_target(self, "log_normal_")) return self;
  EMBER_DISPATCH_FLOAT(self.dtype(), "log_normal_cpu", [] {});
  fill_in_order(self, [&](char* p, int64_t n) { backend(self).random.log_normal(self.dtype(), p, n, mean, std, gen); });
  finish(self);
  return self;
}

Tensor geometric_(const Tensor& self, double p, Generator* gen) {
  EMBER_CHECK(0 < p && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  if (!prepare_target(self, "geometric_")) return self;
  EMBER_DISPATCH_NO_BOOL(self.dtype(), "geometric_cpu", [] {});
  fill_in_order(self, [&](char* ptr, int64_t n) { backend(self).random.geometric(self.dtype(), ptr, n, p, gen); });
  finish(self);
  return self;
}

Tensor bernoulli_(const Tensor& self, double p, Generator* gen) {
  EMBER_CHECK(0 <= p && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  if (!prepare_target(self, "bernoulli_")) return self;
  EMBER_DISPATCH_ALL(self.dtype(), "bernoulli_scalar_cpu_", [] {});
  fill_in_order(self, [&](char* ptr, int64_t n) { backend(self).random.bernoulli(self.dtype(), ptr, n, p, gen); });
  finish(self);
  return self;
}

Tensor bernoulli_(const Tensor& self, const Tensor& p, Generator* gen) {
  if (!prepare_target(self, "bernoulli_")) return self;
  Tensor pe = expand(p, self.sizes(), false);
  if (!is_floating(p.dtype())) dtype_not_implemented("bernoulli_tensor_cpu_p_", p.dtype());
  // p in self's iteration order, as the type PyTorch compares in (double stays
  // double, narrower floats become float).
  const bool dbl = p.dtype() == ScalarType::Float64;
  Tensor pv = empty_strided(self.sizes(), iteration_strides(self), dbl ? ScalarType::Float64 : ScalarType::Float32,
                            self.device());
  copy_into(pv, pe);
  const int64_t n = pv.numel();
  const char* bad_p =
      "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
      "message be improved?  If so, please report an enhancement request to PyTorch.)";
  if (pv.device().is_meta()) {         // no values to check
  } else if (!pv.device().is_cpu()) {  // checked on the device: one flag comes back (NaN fails both compares)
    Tensor in_range = logical_and(ge(pv, full({}, Scalar(0.0), pv.dtype())), le(pv, full({}, Scalar(1.0), pv.dtype())));
    EMBER_CHECK(all(in_range).item().to_bool(), bad_p);
  } else {
    EMBER_DISPATCH_FLOAT(pv.dtype(), "bernoulli_tensor_cpu_p_", [&] {
      const scalar_t* pp = pv.data<scalar_t>();
      for (int64_t i = 0; i < n; ++i) EMBER_CHECK(pp[i] >= 0 && pp[i] <= 1, bad_p);
    });
  }
  EMBER_DISPATCH_ALL(self.dtype(), "bernoulli_tensor_cpu_self_", [] {});
  fill_in_order(self, [&](char* ptr, int64_t cnt) {
    backend(self).random.bernoulli_tensor(self.dtype(), ptr, cnt, pv.raw(), dbl, gen);
  });
  finish(self);
  return self;
}

}  // namespace ember
