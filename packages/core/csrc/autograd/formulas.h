// Helpers for the derivative formulas in ops.yaml. They are built from `ag::`
// ops, so a backward computed with create_graph=True is itself differentiable.
#pragma once
#include <cmath>
#include <optional>
#include <string_view>

#include "../core/tensor.h"
#include "engine.h"
#include "formulas_index.h"
#include "formulas_linalg.h"
#include "formulas_shape.h"

namespace ember {

bool any_defined(const TensorList& ts);
Tensor scale(const Tensor& t, double v);               // t * v
Tensor maybe_scale(const Tensor& t, const Scalar& s);  // t * s, skipping s == 1
Tensor add_s(const Tensor& t, double v);               // t + v
Tensor one_minus(const Tensor& t);                     // 1 - t
Tensor pow_s(const Tensor& t, double e);               // t ** e
Tensor zeros_like_grad(const Tensor& grad);
Tensor mask_mul(const Tensor& grad, const Tensor& mask);  // grad where mask, else 0

Tensor clamp_backward(const Tensor& grad, const Tensor& input, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max);
Tensor clamp_tensor_backward(const Tensor& grad, const Tensor& input, const Tensor& min, const Tensor& max,
                             int which);  // 0: input, 1: min, 2: max
Tensor div_backward_self(const Tensor& grad, const Tensor& other, std::optional<std::string_view> mode);
Tensor div_backward_other(const Tensor& grad, const Tensor& input, const Tensor& other,
                          std::optional<std::string_view> mode);
Tensor pow_backward_self(const Tensor& grad, const Tensor& input, const Tensor& exponent);
Tensor pow_backward_exponent(const Tensor& grad, const Tensor& input, const Tensor& exponent, const Tensor& result);
Tensor max_min_backward(const Tensor& grad, const Tensor& input, const Tensor& other, bool is_max, bool self);
Tensor fmax_fmin_backward(const Tensor& grad, const Tensor& input, const Tensor& other, bool is_max, bool self);
Tensor copysign_backward(const Tensor& grad, const Tensor& input, const Tensor& result);
Tensor xlogy_backward_self(const Tensor& grad, const Tensor& input, const Tensor& other);

Tensor sum_backward(const Tensor& grad, IntArrayRef input_sizes, std::optional<IntArrayRef> dim, bool keepdim);
Tensor mean_backward(const Tensor& grad, IntArrayRef input_sizes, std::optional<IntArrayRef> dim, bool keepdim);
Tensor nanmean_backward(const Tensor& grad, const Tensor& input, std::optional<IntArrayRef> dim, bool keepdim);
Tensor prod_backward(const Tensor& grad, const Tensor& input, const Tensor& result, std::optional<int64_t> dim,
                     bool keepdim);
Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& input, const Tensor& result);
Tensor amax_backward(const Tensor& grad, const Tensor& input, const Tensor& result, IntArrayRef dim, bool keepdim);
Tensor index_reduction_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, const Tensor& indices,
                                bool keepdim);
Tensor aminmax_backward(const TensorList& grads, const Tensor& input, const Tensor& mn, const Tensor& mx,
                        std::optional<int64_t> dim, bool keepdim);
Tensor var_backward(const Tensor& grad, const Tensor& input, std::optional<IntArrayRef> dim,
                    const std::optional<Scalar>& correction, bool keepdim);
Tensor std_backward(const Tensor& grad, const Tensor& result, const Tensor& input, std::optional<IntArrayRef> dim,
                    const std::optional<Scalar>& correction, bool keepdim);
Tensor var_mean_backward(const TensorList& grads, const Tensor& input, const Tensor& r0, std::optional<IntArrayRef> dim,
                         const std::optional<Scalar>& correction, bool keepdim, bool is_std);
Tensor logsumexp_backward(const Tensor& grad, const Tensor& input, const Tensor& result, IntArrayRef dim, bool keepdim);
Tensor norm_backward(const Tensor& grad, const Tensor& input, const std::optional<Scalar>& p, const Tensor& result,
                     std::optional<IntArrayRef> dim, bool keepdim);
Tensor cumsum_backward(const Tensor& grad, int64_t dim);
Tensor cumprod_backward(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& result);
// Gradients of mat1 / mat2 in alpha * mat1 @ mat2, each in its operand's layout when that is column-major.
Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat1, const Tensor& mat2, const Scalar& alpha);
Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, const Tensor& mat2, const Scalar& alpha);
Tensor matmul_backward(const Tensor& grad, const Tensor& input, const Tensor& other, bool self);
Tensor permute_backward(const Tensor& grad, IntArrayRef dims);
Tensor unsqueeze_to(const Tensor& grad, IntArrayRef input_sizes, std::optional<IntArrayRef> dim, bool keepdim);
std::optional<Scalar> corr(bool unbiased);
Tensor div_rounded(const Tensor& a, const Tensor& b,
                   bool floor);  // raw a / b, floored or truncated  // the correction of var(unbiased=)

}  // namespace ember
