// The fused optimizer steps on the GPU: each element follows the CPU loops' operations in the same
// order (kernels/cpu/optim/fused_steps.cpp: lerp's two branches, the bias-corrected square root,
// amsgrad's NaN-keeping max), one thread per element; the options are plain arguments (a branch
// the whole warp takes the same way). Adam steps a list of parameters per launch.
#include <climits>
#include <cmath>

#include "kernels/cuda/optim_kernels.h"
#include "kernels/cuda/pointwise_launch.cuh"
#include "kernels/optim_consts.h"

namespace ember::cuda {

namespace {

using optim::AdamConsts;
using optim::SgdConsts;

// The options the CPU loops take as template parameters (optim_consts.h's kinds).
struct AdamFlags {
  int wd_kind;
  bool scaled, ams, low_w;
};
struct SgdFlags {
  int mom;
  bool scaled, use_wd, nesterov;
};

// Element i of one parameter's Adam step.
template <class T>
__device__ __forceinline__ void adam_element(T* p, T* g, T* m, T* v, T* mx, const AdamConsts<T>& c, const AdamFlags& f,
                                             int64_t i) {
  T gi = g[i];
  if (f.scaled) {
    gi = gi / c.scale;
    g[i] = gi;
  }
  gi = gi * c.sign;
  const T pi = p[i];
  if (f.wd_kind == 2) p[i] = pi * c.decay;
  if (f.wd_kind == 1) gi = gi + c.wd * pi;
  const T mi = f.low_w ? m[i] + c.w1 * (gi - m[i]) : gi - (gi - m[i]) * (T(1) - c.w1);
  T vi = v[i] * c.b2;
  vi = vi + c.c2 * gi * gi;
  m[i] = mi;
  v[i] = vi;
  if (f.ams) {
    const T old = mx[i];
    vi = (old != old) ? old : (vi != vi) ? vi : (old > vi ? old : vi);
    mx[i] = vi;
  }
  T denom = sqrt(vi) / c.b2s;
  denom = denom + c.eps;
  p[i] = p[i] + c.step_size * (mi / denom);
}

// A list of parameters stepped by one launch, passed by value (kernel arguments, no upload): each
// owns the blocks from first_block on, a block kChunk of its elements.
constexpr int kListMax = 24;
constexpr int64_t kChunk = 8192;
template <class T>
struct AdamTensor {
  T *p, *g, *m, *v, *mx;
  int64_t n, first_block;
  AdamConsts<T> c;
};
template <class T>
struct AdamList {
  AdamTensor<T> t[kListMax];
  int count;
};
static_assert(sizeof(AdamList<double>) <= 4000, "a kernel's arguments stay under 4 KiB");

template <class T>
__global__ void adam_list_kernel(const AdamList<T> list, const AdamFlags f) {
  int k = 0;
  while (k + 1 < list.count && list.t[k + 1].first_block <= int64_t(blockIdx.x)) ++k;
  const AdamTensor<T>& a = list.t[k];
  const int64_t start = (int64_t(blockIdx.x) - a.first_block) * kChunk;
  const int64_t end = start + kChunk < a.n ? start + kChunk : a.n;
  for (int64_t i = start + threadIdx.x; i < end; i += blockDim.x) adam_element(a.p, a.g, a.m, a.v, a.mx, a.c, f, i);
}

template <class T>
__global__ void sgd_kernel(T* p, T* g, T* buf, const SgdConsts<T> c, const SgdFlags f, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    T gi = g[i];
    if (f.scaled) {
      gi = gi / c.scale;
      g[i] = gi;
    }
    gi = gi * c.sign;
    if (f.use_wd) gi = gi + c.wd * p[i];
    if (f.mom == 1) buf[i] = gi;
    if (f.mom == 2) {
      T b = buf[i] * c.mu;
      b = b + c.keep * gi;
      buf[i] = b;
    }
    if (f.mom != 0) gi = f.nesterov ? gi + c.mu * buf[i] : buf[i];
    p[i] = p[i] + c.step * gi;
  }
}

// items[0, n): one dtype T, launched kListMax parameters at a time.
template <class T>
void adam_typed(const optim::AdamItem* items, size_t n, const optim::AdamArgs& a, const double* grad_scale) {
  const AdamFlags f{optim::adam_wd_kind(a), grad_scale != nullptr, a.amsgrad, std::abs(T(1 - a.beta1)) < T(0.5)};
  AdamList<T> list{};
  int64_t blocks = 0;
  auto launch = [&] {
    if (list.count == 0) return;
    adam_list_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, current_stream(-1)>>>(list, f);
    list = AdamList<T>{};
    blocks = 0;
  };
  for (const optim::AdamItem* it = items; it != items + n; ++it) {
    const int64_t numel = it->param.numel();
    if (numel == 0) continue;
    const int64_t need = (numel + kChunk - 1) / kChunk;
    if (list.count == kListMax || blocks + need > INT_MAX) launch();
    list.t[list.count++] = {it->param.data<T>(),
                            it->grad.data<T>(),
                            it->exp_avg.data<T>(),
                            it->exp_avg_sq.data<T>(),
                            a.amsgrad ? it->max_sq.data<T>() : nullptr,
                            numel,
                            blocks,
                            optim::adam_consts<T>(a, it->step, grad_scale)};
    blocks += need;
  }
  launch();
}

template <class T>
void sgd_typed(const Tensor& param, const Tensor& grad, const Tensor& buf, const optim::SgdArgs& a, bool first,
               const double* grad_scale) {
  const SgdFlags f{optim::sgd_momentum_phase(a, first), grad_scale != nullptr, a.weight_decay != 0, a.nesterov};
  const int64_t n = param.numel();
  sgd_kernel<T><<<grid_for(n), 256, 0, current_stream(-1)>>>(param.data<T>(), grad.data<T>(),
                                                             a.momentum != 0 ? buf.data<T>() : nullptr,
                                                             optim::sgd_consts<T>(a, grad_scale), f, n);
}

}  // namespace

void adam_steps(const optim::AdamItem* items, size_t n, const optim::AdamArgs& a, const double* grad_scale) {
  if (n == 0) return;
  const LaunchDevice on(items[0].param.device().index);
  // runs of one dtype, in order
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && items[j].param.dtype() == items[i].param.dtype()) ++j;
    if (items[i].param.dtype() == ScalarType::Float32) adam_typed<float>(items + i, j - i, a, grad_scale);
    else adam_typed<double>(items + i, j - i, a, grad_scale);
    i = j;
  }
  check_launch("fused adam step");
}

void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& buf, const optim::SgdArgs& a, bool first,
              const double* grad_scale) {
  if (param.numel() == 0) return;
  const LaunchDevice on(param.device().index);
  if (param.dtype() == ScalarType::Float32) sgd_typed<float>(param, grad, buf, a, first, grad_scale);
  else sgd_typed<double>(param, grad, buf, a, first, grad_scale);
  check_launch("fused sgd step");
}

}  // namespace ember::cuda
