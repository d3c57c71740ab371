// im2col / col2im and the three convolution GEMM passes. float / double go to
// OpenBLAS through blas_gemm (ember's threads); other dtypes use a plain triple loop. The column
// buffer holds one sample at a time, so memory stays at C*K*L elements.
#include "kernels/cpu/conv/conv_kernels.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <type_traits>

#include "core/cpu_capability.h"
#include "core/parallel.h"
#include "core/scalar_type.h"
#include "kernels/cpu/conv/conv_detail.h"
#include "kernels/cpu/gemm/blas_gemm.h"

namespace ember::conv {

namespace {

using namespace detail;

// One sample: col[((c - c0)*K + kk) * L + l] = x[c, l*s - p + kk*d] (0 outside), channels [c0, c1).
template <class T>
void im2col(const T* x, T* col, const Geometry& g, int64_t c0, int64_t c1) {
  const int64_t I0 = g.img[0], I1 = g.img[1], I2 = g.img[2];
  const int64_t O0 = g.col[0], O1 = g.col[1], O2 = g.col[2];
  const int64_t L = O0 * O1 * O2, s2 = g.s[2];
  for (int64_t c = c0; c < c1; ++c) {
    const T* xc = x + c * I0 * I1 * I2;
    for (int64_t a = 0; a < g.k[0]; ++a)
      for (int64_t b = 0; b < g.k[1]; ++b)
        for (int64_t e = 0; e < g.k[2]; ++e) {
          T* dst = col + (((c - c0) * g.k[0] + a) * g.k[1] * g.k[2] + b * g.k[2] + e) * L;
          int64_t lo2, hi2;
          valid_range(I2, g.s[2], g.p[2], e * g.d[2], O2, lo2, hi2);
          for (int64_t o0 = 0; o0 < O0; ++o0) {
            const int64_t i0 = o0 * g.s[0] - g.p[0] + a * g.d[0];
            for (int64_t o1 = 0; o1 < O1; ++o1, dst += O2) {
              const int64_t i1 = o1 * g.s[1] - g.p[1] + b * g.d[1];
              if (i0 < 0 || i0 >= I0 || i1 < 0 || i1 >= I1) {
                std::fill(dst, dst + O2, T(0));
                continue;
              }
              const T* src = xc + (i0 * I1 + i1) * I2 - g.p[2] + e * g.d[2];
              // rows are short (one output row): plain loops beat memset/memcpy calls here
              for (int64_t o2 = 0; o2 < lo2; ++o2) dst[o2] = T(0);
              if (s2 == 1) {
                for (int64_t o2 = lo2; o2 < hi2; ++o2) dst[o2] = src[o2];
              } else if (s2 == 2) {
                for (int64_t o2 = lo2; o2 < hi2; ++o2) dst[o2] = src[2 * o2];
              } else {
                for (int64_t o2 = lo2; o2 < hi2; ++o2) dst[o2] = src[o2 * s2];
              }
              for (int64_t o2 = hi2; o2 < O2; ++o2) dst[o2] = T(0);
            }
          }
        }
  }
}

// The adjoint: x[c, l*s - p + kk*d] += col[(c*K + kk) * L + l], channels [c0, c1).
template <class T>
void col2im(const T* col, T* x, const Geometry& g, int64_t c0, int64_t c1) {
  const int64_t I0 = g.img[0], I1 = g.img[1], I2 = g.img[2];
  const int64_t O0 = g.col[0], O1 = g.col[1], O2 = g.col[2];
  const int64_t L = O0 * O1 * O2;
  for (int64_t c = c0; c < c1; ++c) {
    T* xc = x + c * I0 * I1 * I2;
    for (int64_t a = 0; a < g.k[0]; ++a)
      for (int64_t b = 0; b < g.k[1]; ++b)
        for (int64_t e = 0; e < g.k[2]; ++e) {
          const T* src = col + ((c * g.k[0] + a) * g.k[1] * g.k[2] + b * g.k[2] + e) * L;
          int64_t lo2, hi2;
          valid_range(I2, g.s[2], g.p[2], e * g.d[2], O2, lo2, hi2);
          for (int64_t o0 = 0; o0 < O0; ++o0) {
            const int64_t i0 = o0 * g.s[0] - g.p[0] + a * g.d[0];
            for (int64_t o1 = 0; o1 < O1; ++o1, src += O2) {
              const int64_t i1 = o1 * g.s[1] - g.p[1] + b * g.d[1];
              if (i0 < 0 || i0 >= I0 || i1 < 0 || i1 >= I1) continue;
              T* dst = xc + (i0 * I1 + i1) * I2 - g.p[2] + e * g.d[2];
              if (g.s[2] == 1) {
                for (int64_t o2 = lo2; o2 < hi2; ++o2) dst[o2] += src[o2];
              } else {
                for (int64_t o2 = lo2; o2 < hi2; ++o2) dst[o2 * g.s[2]] += src[o2];
              }
            }
          }
        }
  }
}

// Row-major C[M,N] = A[M,K] (or A^T) @ B[K,N] (or B^T) + beta * C.
template <class T>
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb, T beta,
          T* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  if (K == 0) {
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = beta == T(0) ? T(0) : T(beta * C[i * ldc + j]);
    return;
  }
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    blas_gemm(ta, tb, M, N, K, T(1), A, lda, B, ldb, beta, C, ldc);
  } else {
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        T acc = T(0);
        for (int64_t q = 0; q < K; ++q) {
          T av = ta ? A[q * lda + i] : A[i * lda + q];
          T bv = tb ? B[j * ldb + q] : B[q * ldb + j];
          acc = static_cast<T>(acc + av * bv);
        }
        C[i * ldc + j] = static_cast<T>((beta == T(0) ? T(0) : T(beta * C[i * ldc + j])) + acc);
      }
  }
}

// A 1x1 kernel with unit stride and no padding reads the image as it is.
bool is_pointwise(const Geometry& g) {
  for (int i = 0; i < 3; ++i)
    if (g.k[i] != 1 || g.s[i] != 1 || g.p[i] != 0 || g.img[i] != g.col[i]) return false;
  return true;
}

template <class T>
void forward_impl(const T* img, const T* w, const T* bias, T* out, const Geometry& g) {
  const int64_t K = g.k_numel(), L = g.col_numel(), I = g.img_numel();
  const int64_t Cg = g.img_c / g.groups, Og = g.col_c / g.groups;
  const bool direct = is_pointwise(g);
  for_samples<T>(g, direct ? 0 : g.img_c * K * L, [&](int64_t n0, int64_t n1, T* buf) {
    for (int64_t n = n0; n < n1; ++n) {
      const T* x = img + n * g.img_c * I;
      const T* cb = x;
      if (!direct) {
        im2col(x, buf, g, 0, g.img_c);
        cb = buf;
      }
      T* y = out + n * g.col_c * L;
      if (bias)  // the GEMM adds onto the bias (beta = 1): no second pass over the output
        for (int64_t o = 0; o < g.col_c; ++o) std::fill(y + o * L, y + (o + 1) * L, bias[o]);
      for (int64_t gi = 0; gi < g.groups; ++gi)
        gemm<T>(false, false, Og, L, Cg * K, w + gi * Og * Cg * K, Cg * K, cb + gi * Cg * K * L, L, T(bias ? 1 : 0),
                y + gi * Og * L, L);
    }
  });
}

template <class T>
void backward_img_impl(const T* cols, const T* w, T* out, const Geometry& g) {
  const int64_t K = g.k_numel(), L = g.col_numel(), I = g.img_numel();
  const int64_t Cg = g.img_c / g.groups, Og = g.col_c / g.groups;
  const bool direct = is_pointwise(g);
  for_samples<T>(g, direct ? 0 : g.img_c * K * L, [&](int64_t n0, int64_t n1, T* buf) {
    for (int64_t n = n0; n < n1; ++n) {
      T* x = out + n * g.img_c * I;
      T* cb = direct ? x : buf;
      for (int64_t gi = 0; gi < g.groups; ++gi)
        gemm<T>(true, false, Cg * K, L, Og, w + gi * Og * Cg * K, Cg * K, cols + (n * g.col_c + gi * Og) * L, L, T(0),
                cb + gi * Cg * K * L, L);
      if (!direct) {
        std::fill(x, x + g.img_c * I, T(0));
        col2im(cb, x, g, 0, g.img_c);
      }
    }
  });
}

template <class T>
void weight_impl(const T* img, const T* cols, T* gw, const Geometry& g) {
  const int64_t K = g.k_numel(), L = g.col_numel(), I = g.img_numel();
  const int64_t Cg = g.img_c / g.groups, Og = g.col_c / g.groups, CK = Cg * K, W = g.groups * CK * Og;
  const bool direct = is_pointwise(g);
  // Accumulate the transpose (CK x Og per group): OpenBLAS runs col @ grad^T faster than
  // grad @ col^T for these shapes (the long L dimension is the reduction either way).
  Buffer<T> acc(W);
  std::fill(acc.data(), acc.data() + W, T(0));
  std::mutex merge;
  for_samples<T>(g, (direct ? 0 : g.img_c * K * L) + W, [&](int64_t n0, int64_t n1, T* buf) {
    T* part = buf;  // this range's partial sum, then its column scratch
    std::fill(part, part + W, T(0));
    for (int64_t n = n0; n < n1; ++n) {
      const T* x = img + n * g.img_c * I;
      const T* cb = x;
      if (!direct) {
        im2col(x, buf + W, g, 0, g.img_c);
        cb = buf + W;
      }
      for (int64_t gi = 0; gi < g.groups; ++gi)
        gemm<T>(false, true, CK, Og, L, cb + gi * CK * L, L, cols + (n * g.col_c + gi * Og) * L, L, T(1),
                part + gi * CK * Og, Og);
    }
    std::lock_guard<std::mutex> lock(merge);
    for (int64_t i = 0; i < W; ++i) acc.data()[i] = static_cast<T>(acc.data()[i] + part[i]);
  });
  for (int64_t gi = 0; gi < g.groups; ++gi)
    for (int64_t o = 0; o < Og; ++o)
      for (int64_t ck = 0; ck < CK; ++ck) gw[(gi * Og + o) * CK + ck] = acc.data()[(gi * CK + ck) * Og + o];
}

// Calls f(T{}) for the dtypes the kernels handle (half types are computed in float32 by the caller).
template <class F>
void dispatch(ScalarType t, const char* name, const F& f) {
  switch (t) {
    case ScalarType::Float32:
      f(float{});
      break;
    case ScalarType::Float64:
      f(double{});
      break;
    case ScalarType::Int64:
      f(int64_t{});
      break;
    case ScalarType::Int32:
      f(int32_t{});
      break;
    case ScalarType::Int16:
      f(int16_t{});
      break;
    case ScalarType::Int8:
      f(int8_t{});
      break;
    case ScalarType::UInt8:
      f(uint8_t{});
      break;
    default:
      dtype_not_implemented(name, t);
  }
}

}  // namespace

// Called only by the AVX-512 weight-gradient path: the copies may use zmm registers.
EMBER_TARGET_AVX512 void detail::im2col_f32(const float* x, float* col, const Geometry& g, int64_t c0, int64_t c1) {
  im2col(x, col, g, c0, c1);
}

void img_to_cols(const Tensor& img, const Tensor& weight, const Tensor& bias, const Tensor& out, const Geometry& g) {
  if (img.dtype() == ScalarType::Float32) {
    GilRelease nogil;
    if (packed_forward(img.data<float>(), weight.data<float>(), bias.defined() ? bias.data<float>() : nullptr,
                       out.data<float>(), g))
      return;
  }
  dispatch(img.dtype(), "conv", [&](auto tag) {
    using scalar_t = decltype(tag);
    GilRelease nogil;
    forward_impl<scalar_t>(img.data<scalar_t>(), weight.data<scalar_t>(),
                           bias.defined() ? bias.data<scalar_t>() : nullptr, out.data<scalar_t>(), g);
  });
}

void cols_to_img(const Tensor& cols, const Tensor& weight, const Tensor& out, const Geometry& g) {
  if (cols.dtype() == ScalarType::Float32) {
    GilRelease nogil;
    if (packed_backward_img(cols.data<float>(), weight.data<float>(), out.data<float>(), g)) return;
  }
  dispatch(cols.dtype(), "conv_transpose", [&](auto tag) {
    using scalar_t = decltype(tag);
    GilRelease nogil;
    backward_img_impl<scalar_t>(cols.data<scalar_t>(), weight.data<scalar_t>(), out.data<scalar_t>(), g);
  });
}

void weight_grad(const Tensor& img, const Tensor& cols, const Tensor& out, const Geometry& g) {
  if (img.dtype() == ScalarType::Float32) {
    GilRelease nogil;
    if (packed_weight_grad(img.data<float>(), cols.data<float>(), out.data<float>(), g)) return;
  }
  dispatch(img.dtype(), "conv_weight", [&](auto tag) {
    using scalar_t = decltype(tag);
    GilRelease nogil;
    weight_impl<scalar_t>(img.data<scalar_t>(), cols.data<scalar_t>(), out.data<scalar_t>(), g);
  });
}

}  // namespace ember::conv
