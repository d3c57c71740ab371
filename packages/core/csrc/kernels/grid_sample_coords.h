// grid_sample's source-coordinate rules: a normalised grid coordinate in [-1, 1] to an input
// position, with border / reflection padding and the derivative of that map. PyTorch evaluates
// them two ways, and results differ in the last bit: its 4-d kernel with vector rules (trunc-based
// reflection, NaN clipped to 0) and its 5-d kernel with scalar rules (fmod-based reflection,
// std::min / std::max clipping). `Rules2` and `Rules3` follow each. Shared by the CPU and CUDA
// kernels (kernels/grid_sample_points.h).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/host_device.h"

namespace ember::pool::grid {

enum Padding { kZeros = 0, kBorder = 1, kReflection = 2 };

// An index from a floored coordinate; far-off or NaN coordinates give kFar (out of every range).
constexpr int64_t kFar = -(int64_t(1) << 40);
template <class A>
EMBER_HOST_DEVICE inline int64_t to_index(A f) {
  return (f > A(-1e12) && f < A(1e12)) ? static_cast<int64_t>(f) : kFar;
}
EMBER_HOST_DEVICE inline bool inside(int64_t i, int64_t size) { return i >= 0 && i < size; }

// a and b have the same bits (b not NaN): equal, and of one sign (-0.0 is not 0.0)
template <class A>
EMBER_HOST_DEVICE inline bool same_bits(A a, A b) {
  return a == b && std::signbit(a) == std::signbit(b);
}

// The 4-d kernel's rules (one axis of `size` input positions).
template <class A>
struct Rules2 {
  int64_t size;
  bool align;
  int padding;
  EMBER_HOST_DEVICE A scale() const { return align ? static_cast<A>(size - 1) / A(2) : static_cast<A>(size) / A(2); }
  EMBER_HOST_DEVICE A unnormalize(A c) const { return align ? (c + A(1)) * scale() : (c + A(1)) * scale() - A(0.5); }
  EMBER_HOST_DEVICE A clip(A v) const {  // NaN -> 0
    const A c = v > A(0) ? v : A(0), mx = static_cast<A>(size - 1);
    return c < mx ? c : mx;
  }
  EMBER_HOST_DEVICE A clip_grad(A v, A& g) const {  // NaN propagates; the derivative is 0 on either bound
    const A lo = std::isnan(v) ? v : (v > A(0) ? v : A(0)), mx = static_cast<A>(size - 1);
    const A res = std::isnan(lo) ? lo : (lo < mx ? lo : mx);
    g = (!same_bits(lo, A(0)) && !same_bits(res, mx)) ? A(1) : A(0);
    return res;
  }
  EMBER_HOST_DEVICE A reflect(A v, A* g) const {
    if (align ? size <= 1 : size <= 0) {
      if (g) *g = A(0);
      return A(0);
    }
    const A span2 = align ? static_cast<A>(size - 1) * A(2) : static_cast<A>(size) * A(2);
    const A low = align ? A(0) : A(-0.5);
    const A in = v - low;
    const A a = std::fabs(in);
    const A flips = std::trunc(a / span2);
    const A extra = a - flips * span2;
    const A refl = span2 - extra;
    if (g) {
      const bool more = extra > refl;
      *g = (more != (in < A(0))) ? A(-1) : A(1);
      return (more ? refl : extra) + low;
    }
    return (std::isnan(extra) ? extra : (extra < refl ? extra : refl)) + low;
  }
  // padding applied to an input position (bicubic applies it per tap)
  EMBER_HOST_DEVICE A pad(A v) const {
    return padding == kBorder ? clip(v) : padding == kReflection ? clip(reflect(v, nullptr)) : v;
  }
  EMBER_HOST_DEVICE A source(A c) const { return pad(unnormalize(c)); }
  EMBER_HOST_DEVICE A source_grad(A c, A& mult) const {
    A x = unnormalize(c), g1 = A(1), g2 = A(1);
    if (padding == kBorder) x = clip_grad(x, g2);
    if (padding == kReflection) x = clip_grad(reflect(x, &g1), g2);
    mult = g1 * g2 * scale();
    return x;
  }
};

// The 5-d kernel's rules.
template <class A>
struct Rules3 {
  int64_t size;
  bool align;
  int padding;
  EMBER_HOST_DEVICE A unnormalize(A c) const {
    return align ? ((c + A(1)) / A(2)) * static_cast<A>(size - 1) : ((c + A(1)) * static_cast<A>(size) - A(1)) / A(2);
  }
  EMBER_HOST_DEVICE A clip(A v, A* g) const {
    const A mx = static_cast<A>(size - 1);
    if (!g) return std::min(mx, std::max(v, A(0)));
    if (v <= A(0)) return *g = A(0), A(0);
    if (v >= mx) return *g = A(0), mx;
    *g = A(1);
    return v;
  }
  EMBER_HOST_DEVICE A reflect(A v, A* g) const {
    const A twice_low = align ? A(0) : A(-1);
    const A twice_high = align ? static_cast<A>(2 * (size - 1)) : static_cast<A>(2 * size - 1);
    if (twice_low == twice_high) {
      if (g) *g = A(0);
      return A(0);
    }
    const A mn = twice_low / A(2), span = (twice_high - twice_low) / A(2);
    A in = v - mn;
    A sign = A(1);
    if (in < A(0)) sign = A(-1), in = -in;
    const A extra = std::fmod(in, span);
    const bool even = std::fmod(std::floor(in / span), A(2)) == A(0);
    if (g) *g = even ? sign : -sign;
    return even ? extra + mn : span - extra + mn;
  }
  EMBER_HOST_DEVICE A source(A c) const {
    A x = unnormalize(c);
    if (padding == kBorder) x = clip(x, nullptr);
    if (padding == kReflection) x = clip(reflect(x, nullptr), nullptr);
    return x;
  }
  EMBER_HOST_DEVICE A source_grad(A c, A& mult) const {
    mult = align ? static_cast<A>(size - 1) / A(2) : static_cast<A>(size) / A(2);
    A x = unnormalize(c), g1 = A(1), g2 = A(1);
    if (padding == kBorder) {
      x = clip(x, &g2);
      mult = mult * g2;
    } else if (padding == kReflection) {
      x = clip(reflect(x, &g1), &g2);
      mult = mult * g1 * g2;
    }
    return x;
  }
};

// Keys's cubic convolution weights (A = -0.75) of the four taps around fraction t, and their
// derivatives in t.
template <class A>
EMBER_HOST_DEVICE inline void cubic_weights(A t, A* w) {
  const A a = A(-0.75);
  auto c1 = [a](A x) { return ((a + A(2)) * x - (a + A(3))) * x * x + A(1); };
  auto c2 = [a](A x) { return ((a * x - A(5) * a) * x + A(8) * a) * x - A(4) * a; };
  w[0] = c2(t + A(1));
  w[1] = c1(t);
  w[2] = c1(A(1) - t);
  w[3] = c2(A(1) - t + A(1));
}
template <class A>
EMBER_HOST_DEVICE inline void cubic_weight_grads(A t, A* w) {
  const A a = A(-0.75);
  A x = A(-1) - t;
  w[0] = (A(-3) * a * x - A(10) * a) * x - A(8) * a;
  x = -t;
  w[1] = (A(-3) * (a + A(2)) * x - A(2) * (a + A(3))) * x;
  x = A(1) - t;
  w[2] = (A(3) * (a + A(2)) * x - A(2) * (a + A(3))) * x;
  x = A(2) - t;
  w[3] = (A(3) * a * x - A(10) * a) * x + A(8) * a;
}

}  // namespace ember::pool::grid
