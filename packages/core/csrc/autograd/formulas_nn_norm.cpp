// Derivatives of the fused nn ops (ops/nn_norm.yaml); see formulas_nn_norm.h.
#include "formulas_nn_norm.h"

#include <array>
#include <vector>

#include "../iter/elementwise_iter.h"
#include "autograd_ops.h"
#include "formulas.h"
#include "grad_mode.h"
#include "ops/core/internal.h"
#include "ops/nn/nn_fused_backward.h"

namespace ember {

namespace {

// A graph must be built through the backward itself (create_graph with a differentiable input).
bool building_graph(std::initializer_list<const Tensor*> ts) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor* t : ts)
    if (t->defined() && t->requires_grad()) return true;
  return false;
}

// The node asks for input, weight and bias gradients one formula at a time; the fused kernel
// makes all of them in one pass, so the later ones wait here. Strong references keep the
// key tensors alive, so a key can never match a different tensor at a reused address.
struct NormCache {
  int op = -1;
  double eps = 0;
  Tensor g, x, w;
  std::array<Tensor, 3> r;
};
// Never destroyed: a thread's exit (the main thread's after Python has finalized) must not
// release tensors that may own NumPy memory or Python wrappers (PyGILState_Ensure then crashes).
NormCache& norm_cache() {
  thread_local NormCache* c = new NormCache();
  return *c;
}

template <class F>
Tensor cached(int op, double eps, const Tensor& g, const Tensor& x, const Tensor& w, int which, const F& compute) {
  NormCache& c = norm_cache();
  const bool hit = c.op == op && c.eps == eps && c.g.same(g) && c.x.same(x) &&
                   (w.defined() ? c.w.defined() && c.w.same(w) : !c.w.defined());
  if (hit && c.r[which].defined()) {
    Tensor t = std::move(c.r[which]);
    c.r[which] = Tensor();
    if (which == 2) c = NormCache();  // bias comes last: nothing more to hand out
    return t;
  }
  std::array<Tensor, 3> r = compute(which);
  Tensor t = r[which];
  r[which] = Tensor();
  c = NormCache{op, eps, g, x, w, r};
  if (which == 2) c = NormCache();
  return t;
}

DimVector range_dims(int64_t b, int64_t e) {
  DimVector d;
  for (int64_t i = b; i < e; ++i) d.push_back(i);
  return d;
}

Tensor mean_over(const Tensor& t, const DimVector& dims) { return ag::mean(t, IntArrayRef(dims), true, std::nullopt); }

// rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)) over `dims`.
Tensor norm_input_grad(const Tensor& dxhat, const Tensor& xhat, const Tensor& rstd, const DimVector& dims) {
  Tensor a = mean_over(dxhat, dims);
  Tensor b = mean_over(ag::mul(dxhat, xhat), dims);
  return ag::mul(rstd, ag::sub(ag::sub(dxhat, a, 1), ag::mul(xhat, b), 1));
}

Tensor sum_dims(const Tensor& t, const DimVector& dims) {
  if (dims.empty()) return t;
  return ag::sum(t, IntArrayRef(dims), false, std::nullopt);
}

// Channel vector (C) as [1, C, 1, ...] for an ndim-D input.
Tensor channel_view(const Tensor& v, int64_t ndim) {
  DimVector shape(static_cast<size_t>(ndim), 1);
  shape[1] = v.numel();
  return ag::reshape(v, shape);
}

}  // namespace

Tensor nn_softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim, ScalarType input_dtype, bool log) {
  Tensor gx;
  if (building_graph({&grad, &result})) {
    const int64_t d = wrap_dim(dim, std::max<int64_t>(result.dim(), 1));
    DimVector dims{d};
    if (result.dim() == 0) dims.clear();
    if (log) {
      Tensor s = dims.empty() ? grad : ag::sum(grad, IntArrayRef(dims), true, std::nullopt);
      gx = ag::sub(grad, ag::mul(ag::exp(result), s), 1);
    } else {
      Tensor gy = ag::mul(grad, result);
      Tensor s = dims.empty() ? gy : ag::sum(gy, IntArrayRef(dims), true, std::nullopt);
      gx = ag::mul(result, ag::sub(grad, s, 1));
    }
  } else {
    gx = nn_kernels::softmax_backward(grad, result, dim, log);
  }
  return gx.dtype() == input_dtype ? gx : ag::_to_copy(gx, input_dtype);
}

Tensor nn_layer_norm_backward(const Tensor& grad, const Tensor& input, IntArrayRef normalized_shape,
                              const Tensor& weight, double eps, int which) {
  const int64_t k = static_cast<int64_t>(normalized_shape.size()), nd = input.dim();
  if (!building_graph({&grad, &input, &weight})) {
    const int64_t n = compute_numel(normalized_shape);
    return cached(0, eps, grad, input, weight, which,
                  [&](int first) { return nn_kernels::layer_norm_backward(grad, input, n, weight, eps, first); });
  }
  DimVector dims = range_dims(nd - k, nd), lead = range_dims(0, nd - k);
  Tensor xc = ag::sub(input, mean_over(input, dims), 1);
  Tensor rstd = ag::rsqrt(add_s(mean_over(ag::mul(xc, xc), dims), eps));
  Tensor xhat = ag::mul(xc, rstd);
  if (which == 0) return norm_input_grad(weight.defined() ? ag::mul(grad, weight) : grad, xhat, rstd, dims);
  if (which == 1) return sum_dims(ag::mul(grad, xhat), lead);
  return sum_dims(grad, lead);
}

Tensor nn_batch_norm_backward(const Tensor& grad, const Tensor& input, const Tensor& weight, const Tensor& running_mean,
                              const Tensor& running_var, bool training, double eps, int which) {
  if (!building_graph({&grad, &input, &weight})) {
    return cached(training ? 1 : 2, eps, grad, input, weight, which, [&](int first) {
      return nn_kernels::batch_norm_backward(grad, input, weight, running_mean, running_var, training, eps, first);
    });
  }
  const int64_t nd = input.dim();
  DimVector dims{0};
  for (int64_t d = 2; d < nd; ++d) dims.push_back(d);
  Tensor xhat, rstd;
  if (training) {
    Tensor xc = ag::sub(input, mean_over(input, dims), 1);
    rstd = ag::rsqrt(add_s(mean_over(ag::mul(xc, xc), dims), eps));
    xhat = ag::mul(xc, rstd);
  } else {
    rstd = ember::rsqrt(add_s(channel_view(ember::detach(running_var), nd), eps));
    xhat = ag::mul(ag::sub(input, channel_view(ember::detach(running_mean), nd), 1), rstd);
  }
  if (which == 1) return sum_dims(ag::mul(grad, xhat), dims);
  if (which == 2) return sum_dims(grad, dims);
  Tensor dxhat = weight.defined() ? ag::mul(grad, channel_view(weight, nd)) : grad;
  if (!training) return ag::mul(dxhat, rstd);
  return norm_input_grad(dxhat, xhat, rstd, dims);
}

Tensor nn_group_norm_backward(const Tensor& grad, const Tensor& input, int64_t groups, const Tensor& weight, double eps,
                              int which) {
  if (!building_graph({&grad, &input, &weight})) {
    return cached(static_cast<int>(3 + groups), eps, grad, input, weight, which,
                  [&](int first) { return nn_kernels::group_norm_backward(grad, input, groups, weight, eps, first); });
  }
  const int64_t nd = input.dim(), n = input.sizes()[0];
  DimVector grouped{n, groups, -1}, red{2}, dims{0};
  for (int64_t d = 2; d < nd; ++d) dims.push_back(d);
  Tensor xr = ag::reshape(input, grouped);
  Tensor xc = ag::sub(xr, mean_over(xr, red), 1);
  Tensor rstd = ag::rsqrt(add_s(mean_over(ag::mul(xc, xc), red), eps));
  Tensor xhat_r = ag::mul(xc, rstd);
  Tensor xhat = ag::reshape(xhat_r, input.sizes());
  if (which == 1) return sum_dims(ag::mul(grad, xhat), dims);
  if (which == 2) return sum_dims(grad, dims);
  Tensor dxhat = weight.defined() ? ag::mul(grad, channel_view(weight, nd)) : grad;
  Tensor dx = norm_input_grad(ag::reshape(dxhat, grouped), xhat_r, rstd, red);
  return ag::reshape(dx, input.sizes());
}

Tensor nn_embedding_backward(const Tensor& grad, const Tensor& indices, IntArrayRef weight_sizes, int64_t padding_idx,
                             bool scale_grad_by_freq) {
  const int64_t rows = weight_sizes[0], dim = weight_sizes[1];
  if (!building_graph({&grad}))
    return nn_kernels::embedding_backward(grad, indices, rows, padding_idx, scale_grad_by_freq);
  // index_add of the (optionally frequency-scaled, padding-masked) rows: differentiable in grad.
  Tensor idx = contiguous(to_dtype(indices, ScalarType::Int64), MemoryFormat::Contiguous);
  idx = ember::reshape(idx, DimVector{idx.numel()});
  const int64_t n = idx.numel();
  Tensor g2 = ag::reshape(grad, DimVector{n, dim});
  std::vector<double> wts(static_cast<size_t>(n), 1.0), counts(static_cast<size_t>(rows), 0.0);
  const Tensor host_idx = idx.device().is_cpu() ? idx : to_device(idx, cpu_device());  // read here: a copy
  const int64_t* ip = host_idx.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) counts[ip[i]] += 1;
  for (int64_t i = 0; i < n; ++i) {
    if (ip[i] == padding_idx) wts[i] = 0;
    else if (scale_grad_by_freq) wts[i] = 1.0 / counts[ip[i]];
  }
  Tensor w = empty({n, 1}, ScalarType::Float64);
  for (int64_t i = 0; i < n; ++i) w.data<double>()[i] = wts[i];
  if (!grad.device().is_cpu()) w = to_device(w, grad.device());
  g2 = ag::mul(g2, to_dtype(w, grad.dtype()));
  return ag::index_add(zeros({rows, dim}, grad.dtype(), grad.device()), 0, idx, g2, Scalar(1));
}

Tensor nn_dropout_backward(const Tensor& grad, const Tensor& mask, double p, std::optional<bool> train) {
  // eval mode passed the input through: scale 1
  const double s = train.has_value() && !*train ? 1.0 : (p == 1 ? 0.0 : 1.0 / (1.0 - p));
  return ag::mul(grad, scale(to_dtype(mask, grad.dtype()), s));
}

}  // namespace ember
