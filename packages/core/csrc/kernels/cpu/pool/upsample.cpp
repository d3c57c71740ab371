// Upsampling kernels (nearest, nearest-exact, linear/bilinear/trilinear, bicubic) and their
// backward. Interpolation is separable: per spatial dim each output position reads `taps`
// input positions with weights; the source-index rules (scales, align_corners, clamping,
// cubic A = -0.75) follow PyTorch's so results match it value for value.
#include "kernels/cpu/pool/upsample.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/isa_variants.h"
#include "kernels/cpu/vec_math.h"

namespace ember::upsample {

const char* mode_name(Mode m, int n) {
  switch (m) {
    case Mode::Nearest:
      return n == 1 ? "upsample_nearest1d" : n == 2 ? "upsample_nearest2d" : "upsample_nearest3d";
    case Mode::NearestExact:
      return n == 1 ? "_upsample_nearest_exact1d" : n == 2 ? "_upsample_nearest_exact2d" : "_upsample_nearest_exact3d";
    case Mode::Linear:
      return n == 1 ? "upsample_linear1d" : n == 2 ? "upsample_bilinear2d" : "upsample_trilinear3d";
    case Mode::Cubic:
      return "upsample_bicubic2d";
  }
  return "upsample";
}

namespace {

// PyTorch's compute_scales_value: 1/scale when a positive scale is given, else in/out.
template <class T>
T scale_value(std::optional<double> scale, int64_t in, int64_t out) {
  return scale && *scale > 0. ? static_cast<T>(1.0 / *scale) : static_cast<T>(in) / static_cast<T>(out);
}

template <class T>
T area_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  return scale_value<T>(scale, in, out);
}

template <class T>
T source_index(T scale, int64_t o, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<T>(o);
  // aten's vectorised builds contract this to one fused multiply-add (x86-64 with FMA: every
  // capability PyTorch dispatches to there), which shifts src off an exact 0 / integer
  const T src = std::fma(scale, static_cast<T>(o) + T(0.5), T(-0.5));
  return (!cubic && src < T(0)) ? T(0) : src;
}

// floor(v) clamped to in-1, with no out-of-range cast: an index past int64 (a 1 / scale that
// overflows to inf) is in-1 and a NaN one (0 * inf, output 0) is 0, where aten's cast is
// undefined behaviour (torch_known_wrong's upsample-scale-overflow).
inline int64_t floor_index(float v, int64_t in) {
  const float f = std::floor(v);
  if (!(f < 0x1p62f)) return std::isnan(f) ? 0 : in - 1;
  return std::min(static_cast<int64_t>(std::max(f, -0x1p62f)), in - 1);
}

// floor(src) clamped to in-1, and the fraction clamped to [0, 1].
// (aten floors with floorf, in float also for a double index.)
template <class T>
void guard(T src, int64_t in, int64_t& i0, T& lambda) {
  i0 = floor_index(static_cast<float>(src), in);
  lambda = std::min(std::max(src - static_cast<T>(i0), T(0)), T(1));
}

template <class T>
T cubic1(T x, T A) {
  return ((A + 2) * x - (A + 3)) * x * x + 1;
}
template <class T>
T cubic2(T x, T A) {
  return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
}

// Weights in acc_t; `round_to_scalar` stores them as scalar_t first, as aten's non-separable path
// keeps its weight tensors in the input's dtype (float16 / bfloat16 weights are rounded).
template <class scalar_t, class acc_t>
Taps<acc_t> make_taps(Mode mode, int64_t in, int64_t out, bool align_corners, std::optional<double> scale,
                      bool round_to_scalar, bool nearest_shortcuts) {
  Taps<acc_t> t;
  t.taps = mode == Mode::Linear ? 2 : mode == Mode::Cubic ? 4 : 1;
  t.idx.resize(out * t.taps);
  t.w.resize(out * t.taps);
  if (mode == Mode::Nearest || mode == Mode::NearestExact) {
    const float s = scale_value<float>(scale, in, out);  // PyTorch computes nearest in float
    // aten's 2-d nearest copies (out == in) or halves (out == 2 * in) whatever scale is given;
    // its 1-d and 3-d kernels apply the scale. The backward uses the forward's rule (aten's
    // backwards all take the shortcut: torch_known_wrong's upsample-nearest-backward-shortcut).
    for (int64_t o = 0; o < out; ++o) {
      int64_t i;
      if (mode == Mode::NearestExact) i = floor_index(static_cast<float>((static_cast<double>(o) + 0.5) * s), in);
      else if (nearest_shortcuts && out == in) i = o;
      else if (nearest_shortcuts && out == 2 * in) i = o >> 1;
      else i = floor_index(static_cast<float>(o) * s, in);
      t.idx[o] = i;
      t.w[o] = acc_t(1);
    }
    return t;
  }
  if constexpr (std::is_floating_point_v<acc_t>) {  // uint8 is only ever nearest
    const acc_t s = area_scale<acc_t>(in, out, align_corners, scale);
    for (int64_t o = 0; o < out; ++o) {
      const acc_t src = source_index<acc_t>(s, o, align_corners, mode == Mode::Cubic);
      int64_t i0;
      acc_t lam;
      guard(src, in, i0, lam);
      if (mode == Mode::Linear && round_to_scalar) lam = static_cast<acc_t>(static_cast<scalar_t>(lam));
      if (mode == Mode::Linear && in == out) {
        // aten's copy rule for an unscaled dim: both taps on input o, weights (1, 0) -- the zero
        // weight still multiplies (inf * 0 is NaN).
        t.idx[2 * o] = t.idx[2 * o + 1] = o;
        t.w[2 * o] = acc_t(1);
        t.w[2 * o + 1] = acc_t(0);
      } else if (mode == Mode::Linear) {
        t.idx[2 * o] = i0;
        t.idx[2 * o + 1] = i0 + (i0 < in - 1 ? 1 : 0);
        t.w[2 * o] = acc_t(1) - lam;  // aten: 1 - lambda1, in scalar_t when the weights are stored so
        if (round_to_scalar) t.w[2 * o] = static_cast<acc_t>(static_cast<scalar_t>(t.w[2 * o]));
        t.w[2 * o + 1] = lam;
      } else {
        const acc_t A = acc_t(-0.75), x2 = acc_t(1) - lam;  // aten's (1 - t) + 1 for the last tap
        t.w[4 * o + 0] = cubic2<acc_t>(lam + acc_t(1), A);
        t.w[4 * o + 1] = cubic1<acc_t>(lam, A);
        t.w[4 * o + 2] = cubic1<acc_t>(x2, A);
        t.w[4 * o + 3] = cubic2<acc_t>(x2 + acc_t(1), A);
        if (round_to_scalar)
          for (int k = 0; k < 4; ++k) t.w[4 * o + k] = static_cast<acc_t>(static_cast<scalar_t>(t.w[4 * o + k]));
        for (int k = 0; k < 4; ++k) t.idx[4 * o + k] = std::max<int64_t>(std::min(i0 - 1 + k, in - 1), 0);
      }
    }
  }
  return t;
}

// Identity taps for the unused leading dims.
template <class acc_t>
Taps<acc_t> unit_taps() {
  Taps<acc_t> t;
  t.idx = {0};
  t.w = {acc_t(1)};
  return t;
}

// a0*w0 + a1*w1 + ... as aten's kernels evaluate it once compiled for x86-64 with FMA (every
// capability PyTorch dispatches to there): the first product fused with the rounded second,
// each later product fused onto the sum. One tap is the value times its weight.
template <class A, int N>
EMBER_VEC_INLINE A fused_sum(const A* v, const A* w) {
  if constexpr (N == 1) {
    return v[0] * w[0];
  } else {
    A s = std::fma(v[0], w[0], v[1] * w[1]);
    for (int k = 2; k < N; ++k) s = std::fma(v[k], w[k], s);
    return s;
  }
}

// Arguments of one range of planes (one (batch, channel) pair each).
template <class T>
struct UpArgs {
  using A = opmath_t<T>;
  const Geometry* g;
  const std::array<Taps<A>, 3>* taps;
  T *x, *y;  // forward: input, output; backward: grad_input (accumulated into), grad_output
  int64_t in_plane, out_plane;
  // aten's channels-last bilinear kernel (see bilinear_cl): its per-pixel weights, and the planes
  // whose channel index is below vec_channels take its vector form
  bool cl;
  int64_t channels, vec_channels;
};

// One plane, forward, aten's non-separable kernel: nested sums, W innermost and D outermost.
template <class T, int TH, int TW>
EMBER_VEC_INLINE void plane_forward(const UpArgs<T>& p, const T* xb, T* yb) {
  using A = opmath_t<T>;
  const Geometry& g = *p.g;
  const auto& Tp = *p.taps;
  const int td_n = Tp[0].taps;
  const int64_t IH = g.in[1], IW = g.in[2];
  for (int64_t od = 0; od < g.out[0]; ++od)
    for (int64_t oh = 0; oh < g.out[1]; ++oh) {
      const T* rows[2][TH];
      A wd[2], wh[TH];
      for (int a = 0; a < td_n; ++a) {
        wd[a] = Tp[0].w[od * td_n + a];
        for (int c = 0; c < TH; ++c) rows[a][c] = xb + (Tp[0].idx[od * td_n + a] * IH + Tp[1].idx[oh * TH + c]) * IW;
      }
      for (int c = 0; c < TH; ++c) wh[c] = Tp[1].w[oh * TH + c];
      T* yrow = yb + (od * g.out[1] + oh) * g.out[2];
      for (int64_t ow = 0; ow < g.out[2]; ++ow) {
        const int64_t* iw = Tp[2].idx.data() + ow * TW;
        const A* ww = Tp[2].w.data() + ow * TW;
        A t[2];
        for (int a = 0; a < td_n; ++a) {
          A acc_w[TH];
          for (int c = 0; c < TH; ++c) {
            A v[TW];
            for (int e = 0; e < TW; ++e) v[e] = static_cast<A>(rows[a][c][iw[e]]);
            acc_w[c] = TW == 1 ? v[0] : fused_sum<A, TW>(v, ww);
          }
          t[a] = TH == 1 ? acc_w[0] : fused_sum<A, TH>(acc_w, wh);
        }
        yrow[ow] = static_cast<T>(td_n == 1 ? t[0] : fused_sum<A, 2>(t, wd));
      }
    }
}

// aten's channels-last bilinear 2-d kernel (its pick for small outputs, see dispatch): the four
// weights are products of the per-dim lambdas, and the sum's fusion depends on whether the
// channel falls in its vector loop or its scalar tail.
template <class T>
EMBER_VEC_INLINE void plane_bilinear_cl(const UpArgs<T>& p, const T* xb, T* yb, bool vec) {
  using A = opmath_t<T>;
  const Geometry& g = *p.g;
  const auto& Tp = *p.taps;
  const int64_t IW = g.in[2];
  for (int64_t oh = 0; oh < g.out[1]; ++oh) {
    const T* r0 = xb + Tp[1].idx[2 * oh] * IW;
    const T* r1 = xb + Tp[1].idx[2 * oh + 1] * IW;
    const A h0 = Tp[1].w[2 * oh], h1 = Tp[1].w[2 * oh + 1];
    T* yrow = yb + oh * g.out[2];
    for (int64_t ow = 0; ow < g.out[2]; ++ow) {
      const int64_t i0 = Tp[2].idx[2 * ow], i1 = Tp[2].idx[2 * ow + 1];
      const A w0 = Tp[2].w[2 * ow], w1 = Tp[2].w[2 * ow + 1];
      const A w00 = h0 * w0, w01 = h0 * w1, w10 = h1 * w0, w11 = h1 * w1;
      const A x00 = static_cast<A>(r0[i0]), x01 = static_cast<A>(r0[i1]);
      const A x10 = static_cast<A>(r1[i0]), x11 = static_cast<A>(r1[i1]);
      const A v = vec ? std::fma(x00, w00, std::fma(x01, w01, std::fma(x11, w11, x10 * w10)))
                      : std::fma(x11, w11, std::fma(x10, w10, std::fma(x00, w00, x01 * w01)));
      yrow[ow] = static_cast<T>(v);
    }
  }
}

// One plane, backward: every output gradient spread onto its taps. Compiled for baseline x86-64
// only (not in the ISA variants, where the compiler would fuse the accumulation).
template <class T, int TH, int TW, class D>
void plane_backward(const UpArgs<T>& p, D* xb, const T* yb) {
  using A = opmath_t<T>;
  const Geometry& g = *p.g;
  const auto& Tp = *p.taps;
  const int td_n = Tp[0].taps;
  const int64_t IH = g.in[1], IW = g.in[2];
  for (int64_t od = 0; od < g.out[0]; ++od)
    for (int64_t oh = 0; oh < g.out[1]; ++oh)
      for (int a = 0; a < td_n; ++a) {
        const A wd = Tp[0].w[od * td_n + a];
        D* rows[TH];
        A wh[TH];
        for (int c = 0; c < TH; ++c) {
          rows[c] = xb + (Tp[0].idx[od * td_n + a] * IH + Tp[1].idx[oh * TH + c]) * IW;
          wh[c] = Tp[1].w[oh * TH + c];
        }
        const T* yrow = yb + (od * g.out[1] + oh) * g.out[2];
        for (int64_t ow = 0; ow < g.out[2]; ++ow) {
          const int64_t* iw = Tp[2].idx.data() + ow * TW;
          const A* ww = Tp[2].w.data() + ow * TW;
          const A gv = static_cast<A>(yrow[ow]) * wd;
          for (int c = 0; c < TH; ++c) {
            const A gh = gv * wh[c];
            for (int e = 0; e < TW; ++e) {
              D& dst = rows[c][iw[e]];
              dst = static_cast<D>(static_cast<A>(dst) + gh * ww[e]);
            }
          }
        }
      }
}

template <class T, int TH, int TW>
EMBER_VEC_INLINE void planes_of(const UpArgs<T>& p, int64_t b0, int64_t b1) {
  for (int64_t b = b0; b < b1; ++b) {
    T* xb = p.x + b * p.in_plane;
    T* yb = p.y + b * p.out_plane;
    if constexpr (TH == 2 && TW == 2)
      p.cl ? plane_bilinear_cl<T>(p, xb, yb, b % p.channels < p.vec_channels) : plane_forward<T, TH, TW>(p, xb, yb);
    else plane_forward<T, TH, TW>(p, xb, yb);
  }
}

// Calls f(H, W) with the tap counts as std::integral_constant: (1, 1) nearest, (1, 2) linear 1-d,
// (2, 2) bi/trilinear, (4, 4) bicubic.
template <class F>
EMBER_VEC_INLINE void by_taps(int th, int tw, const F& f) {
  using One = std::integral_constant<int, 1>;
  using Two = std::integral_constant<int, 2>;
  using Four = std::integral_constant<int, 4>;
  if (th == 1 && tw == 1) f(One(), One());
  else if (th == 1 && tw == 2) f(One(), Two());
  else if (th == 2) f(Two(), Two());
  else f(Four(), Four());
}

template <class T>
void backward_planes(const UpArgs<T>& p, int64_t b0, int64_t b1) {
  using A = opmath_t<T>;
  by_taps((*p.taps)[1].taps, (*p.taps)[2].taps, [&](auto th, auto tw) {
    constexpr int TH = decltype(th)::value, TW = decltype(tw)::value;
    if constexpr (std::is_same_v<T, A>) {
      for (int64_t b = b0; b < b1; ++b) plane_backward<T, TH, TW>(p, p.x + b * p.in_plane, p.y + b * p.out_plane);
    } else {  // float16 / bfloat16: sums in float, rounded once per input element (as aten does)
      std::vector<A> acc(static_cast<size_t>(p.in_plane));
      for (int64_t b = b0; b < b1; ++b) {
        std::fill(acc.begin(), acc.end(), A(0));
        plane_backward<T, TH, TW>(p, acc.data(), p.y + b * p.out_plane);
        T* xb = p.x + b * p.in_plane;
        for (int64_t i = 0; i < p.in_plane; ++i) xb[i] = static_cast<T>(acc[static_cast<size_t>(i)]);
      }
    }
  });
}

template <class T>
EMBER_VEC_INLINE void up_planes(const UpArgs<T>& p, int64_t b0, int64_t b1) {
  by_taps((*p.taps)[1].taps, (*p.taps)[2].taps,
          [&](auto th, auto tw) { planes_of<T, decltype(th)::value, decltype(tw)::value>(p, b0, b1); });
}
EMBER_ISA_VARIANTS(up_planes, UpArgs)

template <class scalar_t>
void run(const Geometry& g, int64_t planes, scalar_t* xp, scalar_t* yp, bool backward, const ClForm& cl) {
  using acc_t = opmath_t<scalar_t>;
  const bool cl_on = cl.on && !backward;
  std::array<Taps<acc_t>, 3> T;
  for (int d = 0; d < 3; ++d) T[d] = dim_taps<scalar_t>(g, d, !cl_on && !backward);
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  UpArgs<scalar_t> p{&g, &T, xp, yp, in_plane, out_plane, cl_on, cl.channels, cl.vec_channels};
  auto fn = backward ? backward_planes<scalar_t> : up_planes_best<scalar_t>();
  GilRelease nogil;  // also when parallel_for runs inline (one thread, small input)
  parallel_for(0, planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(out_plane * T[1].taps * T[2].taps, 1)),
               [&](int64_t b0, int64_t b1) { fn(p, b0, b1); });
}

// uint8 bilinear / bicubic: aten's separable integer path (Pillow's). Per resized dim, each
// output reads index_size inputs from index_min with weights computed in double (taps that fall
// outside the input folded onto the border one), rescaled to int16 with one precision for the
// whole dim; a pass sums src * w in int from 2**(prec-1), shifts and clamps to 0..255. W is
// resized first into a uint8 buffer, then H; a dim whose size is unchanged is not touched.
// The interpolating modes aten takes uint8 in: bilinear and bicubic (2-d) only.

struct IntTaps {
  int k = 2;
  unsigned prec = 0;
  std::vector<int64_t> lo, n;
  std::vector<int16_t> w;  // k per output
};

double filter_u8(double x, bool cubic) {
  x = std::abs(x);
  if (!cubic) return x < 1.0 ? 1.0 - x : 0.0;
  const double A = -0.75;  // aten's value without antialias (OpenCV's)
  return x < 1.0 ? cubic1(x, A) : x < 2.0 ? cubic2(x, A) : 0.0;
}

IntTaps int_taps(bool cubic, int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  IntTaps t;
  t.k = cubic ? 4 : 2;
  const int64_t k = t.k, support = k / 2;
  const double s = area_scale<double>(in, out, align_corners, scale);
  std::vector<double> wd(static_cast<size_t>(out * k));
  double wt_max = 0.0;
  t.lo.resize(out);
  t.n.resize(out);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i0;
    double lam;
    guard(source_index<double>(s, o, align_corners, cubic), in, i0, lam);
    const int64_t umin = i0 - support + 1, umax = i0 + support + 1;
    t.lo[o] = std::max<int64_t>(umin, 0);
    t.n[o] = std::clamp<int64_t>(std::min(umax, in) - t.lo[o], 0, k);
    double* w = wd.data() + o * k;
    int64_t wi = 0;
    for (int64_t j = 0; j < k; ++j) {  // aten's loop, its fold of out-of-range taps included
      w[j] = 0.0;
      const double v = filter_u8(static_cast<double>(j + 1 - support) - lam, cubic);
      if (umin + j <= 0) wi = 0;
      else if (umin + j >= in - 1) wi = t.n[o] - 1;
      w[wi] += v;
      wt_max = std::max(wt_max, w[wi]);
      ++wi;
    }
  }
  for (t.prec = 0; t.prec < 22; ++t.prec)
    if (static_cast<int>(0.5 + wt_max * (1 << (t.prec + 1))) >= (1 << 15)) break;
  t.w.resize(wd.size());
  for (size_t i = 0; i < wd.size(); ++i) {
    const double v = wd[i] * (1 << t.prec);
    t.w[i] = static_cast<int16_t>(v < 0 ? static_cast<int>(-0.5 + v) : static_cast<int>(0.5 + v));
  }
  return t;
}

// One pass over `lines` lines: y[line][o] from x[line][t.lo[o] * step ...] (step: the resized
// dim's stride, 1 for W; `inner` contiguous elements per index for H).
void u8_pass(const IntTaps& t, const uint8_t* x, uint8_t* y, int64_t lines, int64_t in, int64_t out, int64_t inner) {
  GilRelease nogil;
  parallel_for(0, lines, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(out * inner * t.k, 1)),
               [&](int64_t l0, int64_t l1) {
                 for (int64_t l = l0; l < l1; ++l)
                   for (int64_t o = 0; o < out; ++o) {
                     const int16_t* w = t.w.data() + o * t.k;
                     for (int64_t e = 0; e < inner; ++e) {
                       int sum = 1 << (t.prec - 1);
                       for (int64_t j = 0; j < t.n[o]; ++j)
                         sum += static_cast<int>(x[(l * in + t.lo[o] + j) * inner + e]) * w[j];
                       y[(l * out + o) * inner + e] = static_cast<uint8_t>(std::clamp(sum >> t.prec, 0, 255));
                     }
                   }
               });
}

void run_uint8(const Geometry& g, int64_t planes, const uint8_t* x, uint8_t* y) {
  const bool cubic = g.mode == Mode::Cubic;
  const int64_t IH = g.in[1], IW = g.in[2], OH = g.out[1], OW = g.out[2];
  std::vector<uint8_t> buf;
  const uint8_t* src = x;
  if (OW != IW) {
    const IntTaps tw = int_taps(cubic, IW, OW, g.align_corners, g.scales[2]);
    uint8_t* dst = y;
    if (OH != IH) {
      buf.resize(static_cast<size_t>(planes * IH * OW));
      dst = buf.data();
    }
    u8_pass(tw, src, dst, planes * IH, IW, OW, 1);
    src = dst;
  }
  if (OH != IH) {
    const IntTaps th = int_taps(cubic, IH, OH, g.align_corners, g.scales[1]);
    u8_pass(th, src, y, planes, IH, OH, OW);
  } else if (OW == IW) {
    std::copy(x, x + planes * IH * IW, y);
  }
}

}  // namespace

template <class scalar_t>
Taps<opmath_t<scalar_t>> dim_taps(const Geometry& g, int d, bool round_to_scalar) {
  using acc_t = opmath_t<scalar_t>;
  if (d < 3 - g.n) return unit_taps<acc_t>();
  return make_taps<scalar_t, acc_t>(g.mode, g.in[d], g.out[d], g.align_corners, g.scales[d], round_to_scalar, g.n == 2);
}
template Taps<float> dim_taps<float>(const Geometry&, int, bool);
template Taps<double> dim_taps<double>(const Geometry&, int, bool);
template Taps<float> dim_taps<Half>(const Geometry&, int, bool);
template Taps<float> dim_taps<BFloat16>(const Geometry&, int, bool);

void upsample(const Geometry& g, ScalarType dt, int64_t planes, char* x, char* y, bool backward, const ClForm& cl) {
  const char* name = mode_name(g.mode, g.n);
  const bool nearest = g.mode == Mode::Nearest || g.mode == Mode::NearestExact;
  if (nearest && dt == ScalarType::UInt8 && !backward) {  // aten's nearest backward: float types only
    run<uint8_t>(g, planes, reinterpret_cast<uint8_t*>(x), reinterpret_cast<uint8_t*>(y), backward, ClForm());
    return;
  }
  if (dt == ScalarType::UInt8 && !backward && u8_interp(g.mode, g.n)) {
    run_uint8(g, planes, reinterpret_cast<const uint8_t*>(x), reinterpret_cast<uint8_t*>(y));
    return;
  }
  EMBER_DISPATCH_FLOAT(dt, name, [&] {
    run<scalar_t>(g, planes, reinterpret_cast<scalar_t*>(x), reinterpret_cast<scalar_t*>(y), backward, cl);
  });
}

}  // namespace ember::upsample
