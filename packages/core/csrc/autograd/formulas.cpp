#include "formulas.h"

#include <algorithm>
#include <cmath>

#include "autograd/formulas_complex.h"
#include "autograd_ops.h"
#include "ops.h"
#include "ops/core/internal.h"

namespace ember {

namespace {
Tensor num(double v) { return wrap_scalar(Scalar(v)); }

// f(scalar_t{}) for a floating or complex dtype (the direct loops of prod / cumprod backward).
template <class F>
void dispatch_float_complex(ScalarType t, const char* name, const F& f) {
  if (t == ScalarType::ComplexFloat) return f(std::complex<float>{});
  if (t == ScalarType::ComplexDouble) return f(std::complex<double>{});
  EMBER_DISPATCH_FLOAT(t, name, [&] { f(scalar_t{}); });
}
template <class T>
T conj_value(T v) {
  if constexpr (is_complex_v<T>) return std::conj(v);
  else return v;
}
const Scalar kOne(int64_t(1));

// `t` with dim d moved last (a raw view, for the loops below).
Tensor move_last(const Tensor& t, int64_t d) {
  DimVector perm;
  for (int64_t i = 0; i < t.dim(); ++i)
    if (i != d) perm.push_back(i);
  perm.push_back(d);
  return permute(t, perm);
}

// Reduced dims as a sorted, wrapped list (all dims when `dim` is empty/None).
DimVector reduced_dims(IntArrayRef sizes, std::optional<IntArrayRef> dim) {
  int64_t nd = static_cast<int64_t>(sizes.size());
  DimVector out;
  if (!dim || dim->size() == 0) {
    for (int64_t i = 0; i < nd; ++i) out.push_back(i);
    return out;
  }
  for (int64_t d : *dim) out.push_back(wrap_dim(d, std::max<int64_t>(nd, 1)));
  std::sort(out.begin(), out.end());
  return out;
}

int64_t reduced_count(IntArrayRef sizes, std::optional<IntArrayRef> dim) {
  int64_t n = 1;
  for (int64_t d : reduced_dims(sizes, dim))
    if (d < static_cast<int64_t>(sizes.size())) n *= sizes[d];
  return n;
}
}  // namespace

Tensor div_rounded(const Tensor& a, const Tensor& b, bool floor) {
  return div(a, b, std::string_view(floor ? "floor" : "trunc"));
}

std::optional<Scalar> corr(bool unbiased) { return Scalar(int64_t(unbiased ? 1 : 0)); }

bool any_defined(const TensorList& ts) {
  for (const Tensor& t : ts)
    if (t.defined()) return true;
  return false;
}

Tensor scale(const Tensor& t, double v) { return ag::mul(t, num(v)); }
Tensor maybe_scale(const Tensor& t, const Scalar& s) {
  if (s.equal(1.0)) return t;
  return ag::mul(t, wrap_scalar(s));
}
Tensor add_s(const Tensor& t, double v) { return ag::add(t, num(v), kOne); }
Tensor one_minus(const Tensor& t) { return ag::rsub(t, num(1.0), kOne); }
Tensor pow_s(const Tensor& t, double e) { return ag::pow(t, num(e)); }
Tensor zeros_like_grad(const Tensor& grad) { return zeros_like(grad, std::nullopt, std::nullopt, std::nullopt); }
Tensor mask_mul(const Tensor& grad, const Tensor& mask) {
  return ag::where(mask, grad, zeros({}, grad.dtype(), std::nullopt));
}

// Keep a reduced gradient's dims so it broadcasts against the input.
Tensor unsqueeze_to(const Tensor& grad, IntArrayRef input_sizes, std::optional<IntArrayRef> dim, bool keepdim) {
  if (keepdim || input_sizes.size() == 0) return grad;
  Tensor g = grad;
  for (int64_t d : reduced_dims(input_sizes, dim)) g = ag::unsqueeze(g, d);
  return g;
}

Tensor clamp_backward(const Tensor& grad, const Tensor& input, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max) {
  Tensor mask;
  if (min) mask = ge(input, wrap_scalar(*min));
  if (max) {
    Tensor m2 = le(input, wrap_scalar(*max));
    mask = mask.defined() ? logical_and(mask, m2) : m2;
  }
  return mask.defined() ? mask_mul(grad, mask) : grad;
}

Tensor clamp_tensor_backward(const Tensor& grad, const Tensor& input, const Tensor& min, const Tensor& max, int which) {
  if (which == 0) {
    Tensor mask;
    if (min.defined()) mask = ge(input, min);
    if (max.defined()) mask = mask.defined() ? logical_and(mask, le(input, max)) : le(input, max);
    return mask.defined() ? mask_mul(grad, mask) : grad;
  }
  if (which == 1) {
    Tensor mask = lt(input, min);
    if (max.defined()) mask = logical_and(mask, lt(min, max));
    return mask_mul(grad, mask);
  }
  Tensor mask = gt(input, max);
  if (min.defined()) mask = logical_or(mask, gt(min, max));
  return mask_mul(grad, mask);
}

Tensor div_backward_self(const Tensor& grad, const Tensor& other, std::optional<std::string_view> mode) {
  if (mode) return zeros_like_grad(grad);
  return ag::div(grad, other, std::nullopt);
}

Tensor div_backward_other(const Tensor& grad, const Tensor& input, const Tensor& other,
                          std::optional<std::string_view> mode) {
  if (mode) return zeros_like_grad(grad);
  return ag::neg(ag::div(ag::mul(grad, input), ag::mul(other, other), std::nullopt));
}

Tensor pow_backward_self(const Tensor& grad, const Tensor& input, const Tensor& exponent_) {
  // d/dx x^e = e * x^(e-1); zero where e == 0 (so 0^0 gives no inf * 0).
  Tensor exponent = exponent_.dtype() == ScalarType::Bool ? _to_copy(exponent_, grad.dtype()) : exponent_;
  // complex: the conjugate of the derivative (Wirtinger), the real part for a real input
  Tensor d = ag::mul(exponent, ag::pow(input, ag::sub(exponent, num(1.0), kOne)));
  Tensor r = ag::mul(grad, conj(d));
  return handle_r_to_c(input.dtype(), mask_mul(r, ne(exponent, num(0.0))));
}

Tensor pow_backward_exponent(const Tensor& grad, const Tensor& input, const Tensor& exponent, const Tensor& result) {
  // complex: conj(result log(x)), the base taken in the result's dtype (a real base of a complex
  // power has a complex log), the real part for a real exponent
  const bool promote = is_complex(result.dtype()) && !is_complex(input.dtype());
  Tensor base = promote ? _to_copy(input, result.dtype()) : input;
  Tensor r = ag::mul(grad, conj(ag::mul(result, ag::log(base))));
  // 0^e for e >= 0 (a complex e: real and >= 0): PyTorch defines the derivative as 0 there.
  Tensor e_nonneg = is_complex(exponent.dtype())
                        ? logical_and(eq(ember::imag(exponent), num(0.0)), ge(ember::real(exponent), num(0.0)))
                        : ge(exponent, num(0.0));
  Tensor zero_base = logical_and(eq(input, num(0.0)), e_nonneg);
  return handle_r_to_c(exponent.dtype(), mask_mul(r, logical_not(zero_base)));
}

Tensor max_min_backward(const Tensor& grad, const Tensor& input, const Tensor& other, bool is_max, bool self) {
  // PyTorch's rule: ties split the gradient; NaN comparisons are false, so both get it.
  Tensor r = ag::where(eq(input, other), scale(grad, 0.5), grad);
  bool input_loses = is_max == self;  // max/self: zero where input < other
  Tensor lose = input_loses ? lt(input, other) : gt(input, other);
  return mask_mul(r, logical_not(lose));
}

Tensor fmax_fmin_backward(const Tensor& grad, const Tensor& input, const Tensor& other, bool is_max, bool self) {
  const Tensor& a = self ? input : other;
  const Tensor& b = self ? other : input;
  Tensor keep = is_max ? ge(a, b) : le(a, b);
  if (self) keep = logical_or(keep, isnan(b));
  else keep = logical_and(logical_or(keep, isnan(b)), logical_not(eq(a, b)));
  if (!self) keep = logical_and(keep, logical_not(isnan(a)));
  return mask_mul(grad, keep);
}

Tensor copysign_backward(const Tensor& grad, const Tensor& input, const Tensor& result) {
  Tensor ratio = ag::div(result, input, std::nullopt);
  return mask_mul(ag::mul(grad, ratio), ne(input, num(0.0)));
}

Tensor xlogy_backward_self(const Tensor& grad, const Tensor& input, const Tensor& other) {
  // xlogy(grad, other), zero where input == 0 and other <= 0 (PyTorch's rule).
  Tensor zero = logical_and(eq(input, num(0.0)), le(other, num(0.0)));
  return mask_mul(ag::xlogy(grad, other), logical_not(zero));
}

Tensor sum_backward(const Tensor& grad, IntArrayRef input_sizes, std::optional<IntArrayRef> dim, bool keepdim) {
  return ag::expand(unsqueeze_to(grad, input_sizes, dim, keepdim), input_sizes, false);
}

Tensor mean_backward(const Tensor& grad, IntArrayRef input_sizes, std::optional<IntArrayRef> dim, bool keepdim) {
  int64_t n = reduced_count(input_sizes, dim);
  return scale(sum_backward(grad, input_sizes, dim, keepdim), 1.0 / static_cast<double>(n));
}

Tensor nanmean_backward(const Tensor& grad, const Tensor& input, std::optional<IntArrayRef> dim, bool keepdim) {
  Tensor valid = logical_not(isnan(input));
  Tensor count = sum(valid, dim, true, input.dtype());
  Tensor g = ag::div(unsqueeze_to(grad, input.sizes(), dim, keepdim), count, std::nullopt);
  return mask_mul(ag::expand(g, input.sizes(), false), valid);
}

Tensor prod_backward(const Tensor& grad, const Tensor& input, const Tensor& result, std::optional<int64_t> dim,
                     bool keepdim) {
  if (input.dim() == 0) return grad;
  std::optional<IntArrayRef> dims;
  int64_t d = 0;
  if (dim) {
    d = wrap_dim(*dim, input.dim());
    dims = IntArrayRef(&d, 1);
  }
  Tensor g = unsqueeze_to(grad, input.sizes(), dims, keepdim);
  Tensor r = unsqueeze_to(result, input.sizes(), dims, keepdim);
  const int64_t zeros = sum(eq(input, num(0.0)), std::nullopt).item().to_int();
  // complex: grad * conj(result / input), aten's Wirtinger form (conj is the identity for reals)
  if (zeros == 0 && is_complex(input.dtype())) return ag::mul(g, conj(ag::div(r, input, std::nullopt)));
  if (zeros == 0) return ag::div(ag::mul(g, r), input, std::nullopt);
  // aten: a full product with two or more zeros has a zero gradient (no inf * 0 = NaN)
  if (!dim && zeros > 1) return zeros_like(input, std::nullopt, std::nullopt, std::nullopt);
  // With zeros: each element's product of the others, as the product of those before it and of
  // those after it (exclusive cumulative products both ways, aten's form: on any device). A slice
  // with two or more zeros gives 0 everywhere; one zero, the others' product at the zero.
  Tensor x = dim ? input : ag::reshape(input, {-1});
  if (!dim) d = 0;
  const int64_t n = x.size(d);
  const IntArrayRef flip_d(&d, 1);
  const Tensor one = ones_like(ag::narrow(x, d, 0, 1), std::nullopt, std::nullopt, std::nullopt);
  Tensor before = ag::cumprod(ag::cat(TensorList{one, ag::narrow(x, d, 0, n - 1)}, d), d);
  Tensor after =
      ag::flip(ag::cumprod(ag::cat(TensorList{one, ag::flip(ag::narrow(x, d, 1, n - 1), flip_d)}, d), d), flip_d);
  Tensor others = ag::mul(before, after);
  if (!dim) others = ag::reshape(others, input.sizes());
  return ag::mul(g, conj(others));
}

Tensor scale_by_count(const Tensor& g, const Tensor& mask, const Tensor& count) {
  return ag::mul(ag::div(g, count, std::nullopt), mask);
}

Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& input, const Tensor& result) {
  Tensor mask = eq(input, result);
  if (isnan(result).item().to_bool()) mask = isnan(input);
  Tensor count = sum(mask, std::nullopt, false, grad.dtype());
  return mask_mul(ag::expand(ag::div(grad, count, std::nullopt), input.sizes(), false), mask);
}

Tensor amax_backward(const Tensor& grad, const Tensor& input, const Tensor& result, IntArrayRef dim, bool keepdim) {
  std::optional<IntArrayRef> dims = dim;
  Tensor r = unsqueeze_to(result, input.sizes(), dims, keepdim);
  Tensor g = unsqueeze_to(grad, input.sizes(), dims, keepdim);
  Tensor mask = eq(input, r);
  Tensor count = sum(mask, std::optional<IntArrayRef>(reduced_dims(input.sizes(), dims)), true, grad.dtype());
  return scale_by_count(g, mask, count);
}

Tensor index_reduction_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, const Tensor& indices,
                                bool keepdim) {
  if (input_sizes.size() == 0) return grad;
  int64_t d = wrap_dim(dim, static_cast<int64_t>(input_sizes.size()));
  Tensor g = keepdim ? grad : ag::unsqueeze(grad, d);
  Tensor idx = keepdim ? indices : unsqueeze(indices, d);
  // One-hot along `dim`: (arange == index) broadcast to the input's shape.
  DimVector shape(input_sizes.size(), 1);
  shape[d] = input_sizes[d];
  Tensor ar = reshape(arange(Scalar(input_sizes[d]), ScalarType::Int64, idx.device()), shape);
  return mask_mul(ag::expand(g, input_sizes, false), eq(ar, idx));
}

Tensor aminmax_backward(const TensorList& grads, const Tensor& input, const Tensor& mn, const Tensor& mx,
                        std::optional<int64_t> dim, bool keepdim) {
  Tensor out;
  DimVector all;
  for (int64_t i = 0; i < input.dim(); ++i) all.push_back(i);
  int64_t d = dim ? wrap_dim(*dim, std::max<int64_t>(input.dim(), 1)) : 0;
  IntArrayRef dims = dim ? IntArrayRef(&d, 1) : IntArrayRef(all);
  bool kd = keepdim;
  if (grads.size() > 0 && grads[0].defined()) out = amax_backward(grads[0], input, mn, dims, kd);
  if (grads.size() > 1 && grads[1].defined()) {
    Tensor b = amax_backward(grads[1], input, mx, dims, kd);
    out = out.defined() ? ag::add(out, b, kOne) : b;
  }
  return out;
}

Tensor var_backward(const Tensor& grad, const Tensor& input, std::optional<IntArrayRef> dim,
                    const std::optional<Scalar>& correction, bool keepdim) {
  double c = correction ? correction->to_double() : 1.0;
  int64_t n = reduced_count(input.sizes(), dim);
  DimVector dims = reduced_dims(input.sizes(), dim);
  Tensor mu = ag::mean(input, std::optional<IntArrayRef>(dims), true, std::nullopt);
  Tensor g = unsqueeze_to(grad, input.sizes(), dim, keepdim);
  return ag::mul(scale(g, 2.0 / (static_cast<double>(n) - c)), ag::sub(input, mu, kOne));
}

Tensor std_backward(const Tensor& grad, const Tensor& result, const Tensor& input, std::optional<IntArrayRef> dim,
                    const std::optional<Scalar>& correction, bool keepdim) {
  Tensor g = ag::div(grad, scale(result, 2.0), std::nullopt);
  g = mask_mul(g, ne(result, num(0.0)));
  return var_backward(g, input, dim, correction, keepdim);
}

Tensor var_mean_backward(const TensorList& grads, const Tensor& input, const Tensor& r0, std::optional<IntArrayRef> dim,
                         const std::optional<Scalar>& correction, bool keepdim, bool is_std) {
  Tensor out;
  if (grads.size() > 0 && grads[0].defined())
    out = is_std ? std_backward(grads[0], r0, input, dim, correction, keepdim)
                 : var_backward(grads[0], input, dim, correction, keepdim);
  if (grads.size() > 1 && grads[1].defined()) {
    Tensor b = mean_backward(grads[1], input.sizes(), dim, keepdim);
    out = out.defined() ? ag::add(out, b, kOne) : b;
  }
  return out;
}

Tensor logsumexp_backward(const Tensor& grad, const Tensor& input, const Tensor& result, IntArrayRef dim,
                          bool keepdim) {
  std::optional<IntArrayRef> dims = dim;
  Tensor g = unsqueeze_to(grad, input.sizes(), dims, keepdim);
  Tensor r = unsqueeze_to(result, input.sizes(), dims, keepdim);
  Tensor e = ag::exp(ag::sub(input, r, kOne));
  return ag::mul(g, is_complex(e.dtype()) ? conj(e) : e);  // complex: the conjugate (Wirtinger)
}

Tensor norm_backward(const Tensor& grad, const Tensor& input, const std::optional<Scalar>& p, const Tensor& result,
                     std::optional<IntArrayRef> dim, bool keepdim) {
  double pv = p ? p->to_double() : 2.0;
  Tensor g = unsqueeze_to(grad, input.sizes(), dim, keepdim);
  Tensor r = unsqueeze_to(result, input.sizes(), dim, keepdim);
  if (pv == 0.0) return zeros_like_grad(input);
  if (pv == 1.0) return ag::mul(g, sign_or_sgn(input));
  if (pv == 2.0) return mask_mul(ag::mul(g, ag::div(input, r, std::nullopt)), ne(r, num(0.0)));
  if (std::isinf(pv)) {
    Tensor mask = eq(abs(input), r);
    DimVector dims = reduced_dims(input.sizes(), dim);
    Tensor count = sum(mask, std::optional<IntArrayRef>(dims), true, grad.dtype());
    Tensor s = ag::mul(sign_or_sgn(input), ag::div(g, count, std::nullopt));
    return mask_mul(s, mask);
  }
  // d|x|_p = x |x|^(p-2) / |x|_p^(p-1)
  Tensor num_t = ag::mul(input, pow_s(ag::abs(input), pv - 2.0));
  Tensor den = pow_s(r, pv - 1.0);
  Tensor out = ag::mul(g, ag::div(num_t, den, std::nullopt));
  return mask_mul(out, ne(r, num(0.0)));
}

Tensor cumsum_backward(const Tensor& grad, int64_t dim) {
  if (grad.dim() == 0) return grad;
  // Reverse cumulative sum: total - cumsum + grad (no flip needed).
  DimVector d{wrap_dim(dim, grad.dim())};
  Tensor total = ag::sum(grad, std::optional<IntArrayRef>(d), true, std::nullopt);
  Tensor cs = ag::cumsum(grad, dim, std::nullopt);
  return ag::add(ag::sub(total, cs, kOne), grad, kOne);
}

Tensor cumprod_backward(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& result) {
  if (input.dim() == 0 || input.numel() == 0) return grad;
  bool has_zero = any(eq(input, num(0.0))).item().to_bool();
  // complex: reversed cumsum of conj(result) * grad over conj(input), as aten
  if (!has_zero) return ag::div(cumsum_backward(ag::mul(grad, conj(result)), dim), conj(input), std::nullopt);
  // The loop below reads the elements on the host: a device tensor's are copied over and back.
  if (input.device().is_meta()) return empty_like(input);
  if (!input.device().is_cpu()) {
    const Device cpu = cpu_device();
    return to_device(cumprod_backward(to_device(grad, cpu), to_device(input, cpu), dim, to_device(result, cpu)),
                     input.device());
  }
  // With zeros: grad_i = sum_{k>=i} grad_k * prod_{j<=k, j!=i} x_j, directly.
  int64_t d = wrap_dim(dim, input.dim());
  Tensor xc = contiguous(move_last(input, d), MemoryFormat::Contiguous);
  Tensor gc = contiguous(move_last(grad, d), MemoryFormat::Contiguous);
  Tensor oc = empty_like(xc, std::nullopt, std::nullopt, std::nullopt);
  int64_t n = xc.size(-1), rows = xc.numel() / n;
  dispatch_float_complex(xc.dtype(), "cumprod_backward", [&](auto tag) {
    using scalar_t = decltype(tag);
    using T = opmath_t<scalar_t>;
    const scalar_t* px = xc.data<scalar_t>();
    const scalar_t* pg = gc.data<scalar_t>();
    scalar_t* po = oc.data<scalar_t>();
    for (int64_t row = 0; row < rows; ++row) {
      const scalar_t* x = px + row * n;
      const scalar_t* g = pg + row * n;
      int64_t z = n;  // the first zero: later elements cannot change any output
      for (int64_t j = 0; j < n && z == n; ++j)
        if (x[j] == scalar_t(0)) z = j;
      for (int64_t i = 0; i < n; ++i) {
        T acc = T(0), prefix = T(1);
        if (i <= z) {
          for (int64_t j = 0; j < i; ++j) prefix *= static_cast<T>(x[j]);
          T run = prefix;
          // Outputs past the first zero hold it as a factor (unless i is that zero).
          int64_t last = i < z ? z : n;
          for (int64_t k = i; k < last; ++k) {
            if (k > i) run *= static_cast<T>(x[k]);
            acc += static_cast<T>(g[k]) * conj_value(run);
          }
        }
        po[row * n + i] = static_cast<scalar_t>(acc);
      }
    }
  });
  Tensor out = empty_like(input, std::nullopt, std::nullopt, std::nullopt);
  copy_(move_last(out, d), oc, false);
  return out;
}

// A 2-D operand stored transposed (column-major, e.g. weight.t() in linear): its gradient
// is produced in the same layout, so the leaf behind the transpose gets a contiguous
// gradient that AccumulateGrad keeps without a copy.
static bool column_major(const Tensor& m) {
  return m.dim() == 2 && m.sizes()[0] > 1 && m.sizes()[1] > 1 && m.strides()[0] == 1 && m.strides()[1] == m.sizes()[0];
}

Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat1, const Tensor& mat2, const Scalar& alpha) {
  Tensor r = column_major(mat1) ? ag::t(ag::mm(mat2, ag::t(grad))) : ag::mm(grad, ag::t(mat2));
  return maybe_scale(r, alpha);
}

Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, const Tensor& mat2, const Scalar& alpha) {
  Tensor r = column_major(mat2) ? ag::t(ag::mm(ag::t(grad), mat1)) : ag::mm(ag::t(mat1), grad);
  return maybe_scale(r, alpha);
}

Tensor matmul_backward(const Tensor& grad, const Tensor& input, const Tensor& other, bool self) {
  if (input.dim() == 1 && other.dim() == 1) return ag::mul(grad, self ? other : input);  // dot
  if (input.dim() == 2 && other.dim() == 2)
    return self ? mm_mat1_backward(grad, input, other, Scalar(int64_t(1)))
                : mm_mat2_backward(grad, input, other, Scalar(int64_t(1)));
  Tensor a = input.dim() == 1 ? ag::unsqueeze(input, 0) : input;
  Tensor b = other.dim() == 1 ? ag::unsqueeze(other, -1) : other;
  Tensor g = grad;
  if (input.dim() == 1) g = ag::unsqueeze(g, -2);
  if (other.dim() == 1) g = ag::unsqueeze(g, -1);
  if (self) {
    Tensor r = ag::matmul(g, ag::transpose(b, -1, -2));
    r = sum_to(r, a.sizes());
    return input.dim() == 1 ? ag::reshape(r, input.sizes()) : r;
  }
  Tensor r;
  if (a.dim() >= 3 && b.dim() == 2) {  // the folded product's matrix gradient: one GEMM over every row
    const int64_t k = a.sizes()[a.dim() - 1], p = b.sizes()[1];
    const int64_t n = compute_numel(DimVector(a.sizes().begin(), a.sizes().end() - 1));
    r = ag::mm(ag::transpose(ag::reshape(a, {n, k}), 0, 1), ag::reshape(g, {n, p}));
  } else {
    r = sum_to(ag::matmul(ag::transpose(a, -1, -2), g), b.sizes());
  }
  return other.dim() == 1 ? ag::reshape(r, other.sizes()) : r;
}

Tensor permute_backward(const Tensor& grad, IntArrayRef dims) {
  DimVector inv(dims.size(), 0);
  for (size_t i = 0; i < dims.size(); ++i)
    inv[wrap_dim(dims[i], static_cast<int64_t>(dims.size()))] = static_cast<int64_t>(i);
  return ag::permute(grad, inv);
}

}  // namespace ember
