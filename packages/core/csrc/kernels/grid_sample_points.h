// grid_sample's per-point work, shared by the CPU kernels (kernels/cpu/pool/grid_sample.cpp) and
// the CUDA ones (kernels/cuda/grid_sample_kernels.cu): one output point's taps (input offsets,
// weights, in-range masks), applied to every channel -- the forward's sums, the backward's input
// gradient (scattered through the Add policy: a plain add on the CPU, an atomic on the GPU, into
// G: the element type, or float for the GPU's half types) and grid gradient. Sums follow
// PyTorch's order (its 4-d kernel multiplies out-of-range taps as zeros, its 5-d kernel skips
// them).
#pragma once
#include <cmath>
#include <cstdint>

#include "core/half.h"
#include "core/host_device.h"
#include "kernels/grid_sample_coords.h"
#include "kernels/grid_sample_geometry.h"

namespace ember::pool::grid {

template <class T, class G, class Add>
struct Ctx {
  using A = opmath_t<T>;
  GridSampleGeometry g;  // a copy: the GPU's threads read it from the launch parameters
  const T *x, *grid, *gy;
  T* y;
  G* gx;
  T* ggrid;
  int64_t in_plane, P;  // input plane size, output points per batch
};

template <class T>
EMBER_HOST_DEVICE inline opmath_t<T> val(const T* plane, int64_t off, bool ok) {
  return ok ? static_cast<opmath_t<T>>(plane[off]) : opmath_t<T>(0);
}
template <class Add, class G, class A>
EMBER_HOST_DEVICE inline void add(G* plane, int64_t off, bool ok, A v) {
  if (ok) Add::apply(plane + off, v);
}

// ---- 4-d: bilinear / nearest / bicubic, vector rules ----
template <class T, class G, class Add>
EMBER_HOST_DEVICE void point2(const Ctx<T, G, Add>& k, int64_t n, int64_t p, bool fwd) {
  using A = opmath_t<T>;
  const GridSampleGeometry& g = k.g;
  const int64_t H = g.in[1], W = g.in[2], C = g.C, P = k.P;
  const Rules2<A> rw{W, g.align_corners, g.padding}, rh{H, g.align_corners, g.padding};
  const T* gp = k.grid + (n * P + p) * 2;
  const A cx = static_cast<A>(gp[0]), cy = static_cast<A>(gp[1]);
  const T* xn = k.x + n * C * k.in_plane;
  const int64_t ybase = n * C * P + p;
  const bool want_gx = !fwd && k.gx, want_grid = !fwd && k.ggrid;
  G* gxn = want_gx ? k.gx + n * C * k.in_plane : nullptr;
  if (g.mode == 1) {  // nearest
    const A x = std::nearbyint(rw.source(cx)), y = std::nearbyint(rh.source(cy));
    const int64_t ix = to_index(x), iy = to_index(y);
    const bool ok = inside(ix, W) && inside(iy, H);
    const int64_t off = ok ? iy * W + ix : 0;
    for (int64_t c = 0; c < C; ++c) {
      if (fwd) k.y[ybase + c * P] = static_cast<T>(val(xn + c * k.in_plane, off, ok));
      else if (want_gx) add<Add>(gxn + c * k.in_plane, off, ok, static_cast<A>(k.gy[ybase + c * P]));
    }
    if (want_grid) k.ggrid[(n * P + p) * 2] = k.ggrid[(n * P + p) * 2 + 1] = T(0);
    return;
  }
  if (g.mode == 0) {  // bilinear
    A mx = A(1), my = A(1);
    const A x = fwd ? rw.source(cx) : rw.source_grad(cx, mx);
    const A y = fwd ? rh.source(cy) : rh.source_grad(cy, my);
    const A xw = std::floor(x), yn = std::floor(y);
    const A w = x - xw, e = A(1) - w, nn = y - yn, s = A(1) - nn;
    const A wnw = s * e, wne = s * w, wsw = nn * e, wse = nn * w;
    const int64_t ix = to_index(xw), iy = to_index(yn);
    const bool x0 = inside(ix, W), x1 = inside(ix + 1, W), y0 = inside(iy, H), y1 = inside(iy + 1, H);
    const bool bnw = x0 && y0, bne = x1 && y0, bsw = x0 && y1, bse = x1 && y1;
    const int64_t onw = bnw ? iy * W + ix : 0, one = bne ? iy * W + ix + 1 : 0;
    const int64_t osw = bsw ? (iy + 1) * W + ix : 0, ose = bse ? (iy + 1) * W + ix + 1 : 0;
    A gxs = A(0), gys = A(0);
    for (int64_t c = 0; c < C; ++c) {
      const T* xc = xn + c * k.in_plane;
      if (fwd) {
        const A vnw = val(xc, onw, bnw), vne = val(xc, one, bne), vsw = val(xc, osw, bsw), vse = val(xc, ose, bse);
        k.y[ybase + c * P] = static_cast<T>(vnw * wnw + vne * wne + vsw * wsw + vse * wse);
        continue;
      }
      const A go = static_cast<A>(k.gy[ybase + c * P]);
      if (want_gx) {
        G* gc = gxn + c * k.in_plane;
        add<Add>(gc, onw, bnw, wnw * go);
        add<Add>(gc, one, bne, wne * go);
        add<Add>(gc, osw, bsw, wsw * go);
        add<Add>(gc, ose, bse, wse * go);
      }
      if (!want_grid) continue;  // the autograd formulas ask for one gradient per pass
      const A vnw = val(xc, onw, bnw), vne = val(xc, one, bne), vsw = val(xc, osw, bsw), vse = val(xc, ose, bse);
      gxs = gxs + ((vne - vnw) * s + (vse - vsw) * nn) * go;
      gys = gys + ((vsw - vnw) * e + (vse - vne) * w) * go;
    }
    if (want_grid) {
      k.ggrid[(n * P + p) * 2] = static_cast<T>(gxs * mx);
      k.ggrid[(n * P + p) * 2 + 1] = static_cast<T>(gys * my);
    }
    return;
  }
  // bicubic: padding applies to each tap's position
  const A x = rw.unnormalize(cx), y = rh.unnormalize(cy);
  const A fx = std::floor(x), fy = std::floor(y), tx = x - fx, ty = y - fy;
  A wx[4], wy[4], dx[4], dy[4];
  cubic_weights(tx, wx);
  cubic_weights(ty, wy);
  int64_t ox[4], oy[4];
  bool okx[4], oky[4];
  for (int t = 0; t < 4; ++t) {
    const int64_t i = to_index(rw.pad(fx + A(t - 1))), j = to_index(rh.pad(fy + A(t - 1)));
    okx[t] = inside(i, W);
    oky[t] = inside(j, H);
    ox[t] = okx[t] ? i : 0;
    oy[t] = oky[t] ? j * W : 0;
  }
  if (fwd) {
    for (int64_t c = 0; c < C; ++c) {
      const T* xc = xn + c * k.in_plane;
      A row[4];
      for (int i = 0; i < 4; ++i) {
        const bool r = oky[i];
        row[i] = wx[0] * val(xc, oy[i] + ox[0], r && okx[0]) + wx[1] * val(xc, oy[i] + ox[1], r && okx[1]) +
                 wx[2] * val(xc, oy[i] + ox[2], r && okx[2]) + wx[3] * val(xc, oy[i] + ox[3], r && okx[3]);
      }
      k.y[ybase + c * P] = static_cast<T>(wy[0] * row[0] + wy[1] * row[1] + wy[2] * row[2] + wy[3] * row[3]);
    }
    return;
  }
  cubic_weight_grads(tx, dx);
  cubic_weight_grads(ty, dy);
  A gxs = A(0), gys = A(0);
  for (int64_t c = 0; c < C; ++c) {
    const T* xc = xn + c * k.in_plane;
    const A go = static_cast<A>(k.gy[ybase + c * P]);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        const bool ok = okx[i] && oky[j];
        const int64_t off = oy[j] + ox[i];
        if (want_gx) add<Add>(gxn + c * k.in_plane, off, ok, go * wx[i] * wy[j]);
        if (!want_grid) continue;
        const A v = val(xc, off, ok);
        gxs = gxs - v * go * dx[i] * wy[j];
        gys = gys - v * go * dy[j] * wx[i];
      }
  }
  if (want_grid) {
    k.ggrid[(n * P + p) * 2] = static_cast<T>(gxs * rw.scale());
    k.ggrid[(n * P + p) * 2 + 1] = static_cast<T>(gys * rh.scale());
  }
}

// ---- 5-d: trilinear / nearest, scalar rules (out-of-range taps are skipped) ----
template <class T, class G, class Add>
EMBER_HOST_DEVICE void point3(const Ctx<T, G, Add>& k, int64_t n, int64_t p, bool fwd) {
  using A = opmath_t<T>;
  const GridSampleGeometry& g = k.g;
  const int64_t D = g.in[0], H = g.in[1], W = g.in[2], C = g.C, P = k.P;
  const Rules3<A> rw{W, g.align_corners, g.padding}, rh{H, g.align_corners, g.padding},
      rd{D, g.align_corners, g.padding};
  const T* gp = k.grid + (n * P + p) * 3;
  const T* xn = k.x + n * C * k.in_plane;
  const int64_t ybase = n * C * P + p;
  const bool want_gx = !fwd && k.gx, want_grid = !fwd && k.ggrid;
  G* gxn = want_gx ? k.gx + n * C * k.in_plane : nullptr;
  A m[3] = {A(1), A(1), A(1)};
  const A cx = static_cast<A>(gp[0]), cy = static_cast<A>(gp[1]), cz = static_cast<A>(gp[2]);
  const A x = fwd ? rw.source(cx) : rw.source_grad(cx, m[0]);
  const A y = fwd ? rh.source(cy) : rh.source_grad(cy, m[1]);
  const A z = fwd ? rd.source(cz) : rd.source_grad(cz, m[2]);
  if (g.mode == 1) {
    const int64_t ix = to_index(std::nearbyint(x)), iy = to_index(std::nearbyint(y)), iz = to_index(std::nearbyint(z));
    const bool ok = inside(ix, W) && inside(iy, H) && inside(iz, D);
    const int64_t off = ok ? (iz * H + iy) * W + ix : 0;
    for (int64_t c = 0; c < C; ++c) {
      if (fwd) k.y[ybase + c * P] = static_cast<T>(val(xn + c * k.in_plane, off, ok));
      else if (want_gx) add<Add>(gxn + c * k.in_plane, off, ok, static_cast<A>(k.gy[ybase + c * P]));
    }
    if (want_grid)
      for (int d = 0; d < 3; ++d) k.ggrid[(n * P + p) * 3 + d] = T(0);
    return;
  }
  const A x0 = std::floor(x), y0 = std::floor(y), z0 = std::floor(z);
  const A x1 = x0 + A(1), y1 = y0 + A(1), z1 = z0 + A(1);
  // per axis: weight of the low / high tap
  const A wx[2] = {x1 - x, x - x0}, wy[2] = {y1 - y, y - y0}, wz[2] = {z1 - z, z - z0};
  const int64_t ix = to_index(x0), iy = to_index(y0), iz = to_index(z0);
  A w[8];
  int64_t off[8];
  bool ok[8];
  for (int t = 0; t < 8; ++t) {  // tnw, tne, tsw, tse, bnw, bne, bsw, bse: x fastest
    const int a = t & 1, b = (t >> 1) & 1, cc = t >> 2;
    w[t] = wx[a] * wy[b] * wz[cc];
    ok[t] = inside(ix + a, W) && inside(iy + b, H) && inside(iz + cc, D);
    off[t] = ok[t] ? ((iz + cc) * H + iy + b) * W + ix + a : 0;
  }
  A gs[3] = {A(0), A(0), A(0)};
  for (int64_t c = 0; c < C; ++c) {
    const T* xc = xn + c * k.in_plane;
    if (fwd) {
      A s = A(0);
      for (int t = 0; t < 8; ++t)
        if (ok[t]) s = s + static_cast<A>(xc[off[t]]) * w[t];
      k.y[ybase + c * P] = static_cast<T>(s);
      continue;
    }
    const A go = static_cast<A>(k.gy[ybase + c * P]);
    if (want_gx)
      for (int t = 0; t < 8; ++t) add<Add>(gxn + c * k.in_plane, off[t], ok[t], w[t] * go);
    if (!want_grid) continue;
    for (int t = 0; t < 8; ++t) {
      if (!ok[t]) continue;
      const int a = t & 1, b = (t >> 1) & 1, cc = t >> 2;
      const A v = static_cast<A>(xc[off[t]]);
      const A tx = v * wy[b] * wz[cc] * go, ty = v * wx[a] * wz[cc] * go, tz = v * wx[a] * wy[b] * go;
      gs[0] = a ? gs[0] + tx : gs[0] - tx;
      gs[1] = b ? gs[1] + ty : gs[1] - ty;
      gs[2] = cc ? gs[2] + tz : gs[2] - tz;
    }
  }
  if (want_grid)
    for (int d = 0; d < 3; ++d) k.ggrid[(n * P + p) * 3 + d] = static_cast<T>(m[d] * gs[d]);
}

}  // namespace ember::pool::grid
