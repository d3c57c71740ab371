// grid_sample's CPU kernels: the shared per-point work (kernels/grid_sample_points.h) over the
// output points, in parallel; float results match PyTorch's value for value. This file is built
// without FMA: a contracted a * b + c would round differently from PyTorch's separate multiply
// and add.
#include "kernels/cpu/pool/grid_sample.h"

#include <algorithm>
#include <cmath>

#include "core/half.h"
#include "core/parallel.h"
#include "kernels/grid_sample_points.h"

namespace ember::pool {

namespace {

// the gradient's adds: in place, in op-math, rounded once per addition
template <class T>
struct PlainAdd {
  static void apply(T* p, opmath_t<T> v) { *p = static_cast<T>(static_cast<opmath_t<T>>(*p) + v); }
};
template <class T>
using Ctx = grid::Ctx<T, T, PlainAdd<T>>;

template <class T>
void run(const GridSampleGeometry& g, const T* x, const T* grid, const T* gy, T* y, T* gx, T* ggrid, bool fwd) {
  Ctx<T> k{g, x, grid, gy, y, gx, ggrid, g.in[0] * g.in[1] * g.in[2], g.out[0] * g.out[1] * g.out[2]};
  const int64_t total = g.N * k.P;
  if (total == 0) return;
  auto point = [&](int64_t i) {
    if (g.dims == 2) grid::point2(k, i / k.P, i % k.P, fwd);
    else grid::point3(k, i / k.P, i % k.P, fwd);
  };
  GilRelease nogil;
  if (!fwd && gx) {
    // the input gradient scatters: one thread per batch entry, points in order (deterministic sums)
    parallel_for(0, g.N, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t n = b0; n < b1; ++n)
        for (int64_t p = 0; p < k.P; ++p) point(n * k.P + p);
    });
    return;
  }
  const int64_t per_point = std::max<int64_t>(1, g.C) * (g.mode == 2 ? 16 : g.dims == 3 ? 8 : 4);
  const int64_t grain = std::max<int64_t>(1, kGrainSize / per_point);
  parallel_for(0, total, grain, [&](int64_t b0, int64_t b1) {
    for (int64_t i = b0; i < b1; ++i) point(i);
  });
}

}  // namespace

void grid_sample_forward(ScalarType dt, const char* name, const GridSampleGeometry& g, const void* x, const void* grid,
                         void* y) {
  EMBER_DISPATCH_FLOAT(dt, name, [&] {
    run<scalar_t>(g, static_cast<const scalar_t*>(x), static_cast<const scalar_t*>(grid), nullptr,
                  static_cast<scalar_t*>(y), nullptr, nullptr, true);
  });
}

void grid_sample_backward(ScalarType dt, const char* name, const GridSampleGeometry& g, const void* gy, const void* x,
                          const void* grid, void* gx, void* ggrid) {
  EMBER_DISPATCH_FLOAT(dt, name, [&] {
    run<scalar_t>(g, static_cast<const scalar_t*>(x), static_cast<const scalar_t*>(grid),
                  static_cast<const scalar_t*>(gy), nullptr, static_cast<scalar_t*>(gx), static_cast<scalar_t*>(ggrid),
                  false);
  });
}

}  // namespace ember::pool
