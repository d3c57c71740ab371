// Batch / group normalization (layer norm: nn_layer_norm.cpp): checks, the per-channel
// parameters on the input's device (weight and bias in their own dtype, statistics as doubles),
// and the backend's fused norm kernels (kernels/cpu/norm: statistics, normalize and affine in one
// pass; backward passes recompute the statistics).
#include <limits>
#include <vector>

#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/nn/nn_fused_backward.h"
#include "ops/nn/nn_norm_common.h"

namespace ember {

using namespace norm_detail;

namespace {

// Per-channel values of an optional 1-D tensor (any dtype, any stride) as c contiguous doubles on
// x's device, `fill` when absent.
Tensor channel_values(const Tensor& t, int64_t c, double fill, const Tensor& x) {
  return t.defined() ? dense_on(t, ScalarType::Float64, x) : full({c}, Scalar(fill), ScalarType::Float64, x.device());
}

// A weight or bias as the kernels read it: contiguous on x's device in its own floating dtype (a
// copy only when it is not), doubles for any other dtype; `fill` when absent. `keep` holds it.
norms::ChannelView channel_view(const Tensor& t, double fill, const Tensor& x, Tensor& keep) {
  if (!t.defined()) return {nullptr, ScalarType::Float64, fill};
  const ScalarType dt = t.dtype();
  const bool readable =
      dt == ScalarType::Float64 || dt == ScalarType::Float32 || dt == ScalarType::Float16 || dt == ScalarType::BFloat16;
  keep = dense_on(t, readable ? dt : ScalarType::Float64, x);
  return {keep.raw(), keep.dtype(), fill};
}

// Contiguous in aten's sense for batch norm: row-major or channels-last (4-d / 5-d).
bool contiguous_or_channels_last(const Tensor& x) {
  if (x.is_contiguous()) return true;
  if (x.dim() != 4 && x.dim() != 5) return false;
  int64_t expect = 1;
  std::vector<int64_t> order{1};
  for (int64_t d = x.dim() - 1; d >= 2; --d) order.push_back(d);
  order.push_back(0);
  for (int64_t d : order) {
    if (x.size(d) != 1 && x.strides()[d] != expect) return false;
    expect *= x.size(d);
  }
  return true;
}

using norms::NCS;

NCS ncs(const Tensor& x) {
  NCS r;
  r.n = x.sizes()[0];
  r.c = x.sizes()[1];
  for (int64_t d = 2; d < x.dim(); ++d) r.s *= x.sizes()[d];
  return r;
}

}  // namespace

// ---------------------------------------------------------------- batch_norm

Tensor nn_batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                     const Tensor& running_var, bool training, double momentum, double eps, bool cudnn_enabled) {
  (void)cudnn_enabled;
  // aten: an empty input is input.clone() (times weight[0], plus bias[0]), nothing else checked.
  if (input.numel() == 0) {
    Tensor out = clone(input, std::nullopt);
    if (weight.defined()) out = mul(out, select(weight, 0, 0));
    if (bias.defined()) out = add(out, select(bias, 0, 0), Scalar(int64_t(1)));
    return out;
  }
  // aten reads input.sizes()[1] unchecked: below 2 dims that is 0 (an unused inline slot), so
  // the per-channel tensors meet 0 channels before such an input fails as a dim error.
  const int64_t channels = input.dim() >= 2 ? input.size(1) : 0;
  // aten's order: the running stats (or their absence in evaluation mode), then weight and bias.
  for (const auto& [t, what] : {std::pair<const Tensor*, const char*>{&running_mean, "running_mean"},
                                {&running_var, "running_var"},
                                {&weight, "weight"},
                                {&bias, "bias"}}) {
    if (t->defined())
      EMBER_CHECK(t->numel() == channels, what, " should contain ", channels, " elements not ", t->numel());
    else if (t == &running_mean || t == &running_var)
      EMBER_CHECK(training, what, " must be defined in evaluation mode");
  }
  EMBER_CHECK_VALUE(running_mean.defined() == running_var.defined(),
                    "running_mean and running_var must either both be None or neither be None");
  // aten's training path first averages an input that is neither contiguous nor channels-last
  // (at::mean): an integer or bool one fails there (a complex one passes) -- unless the first parameter given (weight,
  // bias, running_mean, running_var) has another dtype (aten's mixed type), whose path reaches
  // the dtype dispatch first (the NotImplementedError below).
  const Tensor* first_param = nullptr;
  for (const Tensor* t : {&weight, &bias, &running_mean, &running_var})
    if (!first_param && t->defined()) first_param = t;
  const bool mixed_type = first_param && first_param->dtype() != input.dtype();
  if (training && !mixed_type && !is_floating_or_complex(input.dtype()) && !contiguous_or_channels_last(input))
    fail(ErrorKind::Runtime,
         "mean(): could not infer output dtype. Input dtype must be either a floating point or "
         "complex dtype. Got: ",
         legacy_name(input.dtype()));
  // Past those checks aten's 0-d input fails growing a SmallVector to a garbage size (a
  // RuntimeError), a 1-d one reading size(1) (an IndexError).
  EMBER_CHECK(input.dim() > 0, "batch_norm: a 0-d input has no channel dim");
  if (input.dim() < 2) (void)wrap_dim(1, input.dim());
  const NCS d = ncs(input);
  check_float(input, "batch_norm");  // the kernel's dtype dispatch comes after those checks
  // float32 parameters and statistics beside a half-type input (aten's mixed type), or all of
  // the input's dtype; the kernel reads them as doubles either way.
  const bool mixed = mixed_params(input, {&weight, &bias, &running_mean, &running_var});
  bool centered = !contiguous_or_channels_last(input);
  for (const Tensor* t : {&weight, &bias, &running_mean, &running_var})
    centered = centered || (t->defined() && !t->is_contiguous());
  // aten's evaluation transform for such an input reads 1 / sqrt(running_var + eps), a tensor
  // op: an integer or bool running_var becomes the default float type there, which a float32
  // input's kernel then takes.
  const bool var_promoted = !training && centered && running_var.defined() && is_integral(running_var.dtype(), true) &&
                            input.dtype() == default_dtype();
  if (!mixed)
    for (const Tensor* t : {&weight, &bias, &running_mean, &running_var})
      if (!(t == &running_var && var_promoted)) check_affine(*t, input);
  // that transform views each per-channel tensor it reads as (1, C, 1, ...): it must be 1-d
  if (centered)
    for (const Tensor* t : {&weight, &bias, &running_mean, &running_var})
      EMBER_CHECK(!t->defined() || t->dim() == 1 || (training && (t == &running_mean || t == &running_var)),
                  "t.defined() && t.dim() == 1 INTERNAL ASSERT FAILED: batch_norm of a non-contiguous input "
                  "reads 1-d weight, bias and statistics");
  // its kernels read the running statistics through 1-d accessors, in either mode
  for (const Tensor* t : {&running_mean, &running_var})
    EMBER_CHECK(!t->defined() || t->dim() == 1, "TensorAccessor expected 1 dims but tensor has ", t->dim());
  Tensor x = dense(input);
  Tensor y = empty(x.sizes(), x.dtype(), x.device());
  const bool batch_stats = training;
  // the batch's statistics (the kernel writes them), or the running ones
  const Tensor mean =
      batch_stats ? empty({d.c}, ScalarType::Float64, x.device()) : channel_values(running_mean, d.c, 0.0, x);
  const Tensor var =
      batch_stats ? empty({d.c}, ScalarType::Float64, x.device()) : channel_values(running_var, d.c, 1.0, x);
  Tensor wk, bk;
  const norms::ChannelView w = channel_view(weight, 1.0, x, wk), b = channel_view(bias, 0.0, x, bk);
  const int64_t cnt = d.n * d.s;
  norms::BatchForward a{d, batch_stats, eps, mean.data<double>(), var.data<double>(), w, b, centered, !mixed};
  backend(x).norm.batch_forward(x, y, a);
  if (training && running_mean.defined() && running_var.defined() && cnt > 0) {
    const double unbias =
        cnt > 1 ? static_cast<double>(cnt) / static_cast<double>(cnt - 1) : std::numeric_limits<double>::infinity();
    // the version counter is left alone on purpose: the op's graph node keeps these tensors
    backend(running_mean)
        .norm.batch_update_running(running_mean, mean.data<double>(), running_var, var.data<double>(), d.c, momentum,
                                   unbias);
  }
  return y;  // contiguous for a channels-last input too, as convolutions (nn_conv.cpp)
}

namespace nn_kernels {

std::array<Tensor, 3> batch_norm_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                          const Tensor& running_mean, const Tensor& running_var, bool training,
                                          double eps, int first) {
  std::array<Tensor, 3> out;
  Tensor x = dense(input), g = dense_as(grad, input);
  const NCS d = ncs(x);
  const bool batch_stats = training || !running_mean.defined() || !running_var.defined();
  Tensor wk;
  const norms::ChannelView w = channel_view(weight, 1.0, x, wk);
  const Tensor rm = batch_stats ? Tensor() : channel_values(running_mean, d.c, 0.0, x);
  const Tensor rv = batch_stats ? Tensor() : channel_values(running_var, d.c, 1.0, x);
  if (first == 0) out[0] = empty(x.sizes(), x.dtype(), x.device());
  if (first <= 1 && weight.defined()) out[1] = empty({d.c}, param_grad_dtype(x), x.device());
  out[2] = empty({d.c}, param_grad_dtype(x), x.device());
  backend(x).norm.batch_backward(x, g, out[0], out[1], out[2], d, batch_stats, eps, rm.data_or_null<double>(),
                                 rv.data_or_null<double>(), w);
  return out;
}

}  // namespace nn_kernels

// ---------------------------------------------------------------- group_norm

namespace {

void check_group(const Tensor& x, int64_t groups, const Tensor& w, const Tensor& b) {
  if (x.dim() < 2) (void)wrap_dim(1, x.dim());  // PyTorch's dim error comes first
  EMBER_CHECK(x.dim() >= 2, "Expected at least 2 dimensions for input tensor but received ", x.dim());
  const int64_t c = x.sizes()[1];
  EMBER_CHECK(groups > 0, "Expected num groups to be greater than 0, got ", groups);
  EMBER_CHECK(c % groups == 0, "Expected number of channels in input to be divisible by ",
              "num_groups, but got input of shape ", shape_str(x.sizes()), " and num_groups=", groups);
  for (const Tensor* t : {&w, &b})
    if (t->defined())
      EMBER_CHECK(t->dim() == 1 && t->numel() == c, "Expected ", t == &w ? "weight" : "bias",
                  " to be a vector of size equal to the number of channels in input, but got ",
                  t == &w ? "weight" : "bias", " of shape ", shape_str(t->sizes()), " and input of shape ",
                  shape_str(x.sizes()));
}

}  // namespace

Tensor nn_group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps,
                     bool cudnn_enabled) {
  (void)cudnn_enabled;
  check_group(input, num_groups, weight, bias);
  const bool mixed = mixed_params(input, {&weight, &bias});
  check_float(input, "GroupNormKernelImpl");
  if (!mixed) {
    check_affine(weight, input);
    check_affine(bias, input);
  }
  Tensor x = dense(input);
  Tensor y = empty(x.sizes(), x.dtype(), x.device());
  if (x.numel() == 0) return y;
  const NCS d = ncs(x);
  Tensor wk, bk;
  const norms::ChannelView w = channel_view(weight, 1.0, x, wk), b = channel_view(bias, 0.0, x, bk);
  backend(x).norm.group_forward(x, y, d, num_groups, eps, w, b);
  return y;  // contiguous for a channels-last input too, as convolutions (nn_conv.cpp)
}

namespace nn_kernels {

std::array<Tensor, 3> group_norm_backward(const Tensor& grad, const Tensor& input, int64_t groups, const Tensor& weight,
                                          double eps, int first) {
  std::array<Tensor, 3> out;
  Tensor x = dense(input), g = dense_as(grad, input);
  const NCS d = ncs(x);
  Tensor wk;
  const norms::ChannelView w = channel_view(weight, 1.0, x, wk);
  if (first == 0) out[0] = empty(x.sizes(), x.dtype(), x.device());
  if (first <= 1 && weight.defined()) out[1] = empty({d.c}, param_grad_dtype(x), x.device());
  out[2] = empty({d.c}, param_grad_dtype(x), x.device());
  backend(x).norm.group_backward(x, g, out[0], out[1], out[2], d, groups, eps, w);
  return out;
}

}  // namespace nn_kernels
}  // namespace ember
