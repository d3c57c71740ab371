// Reflection and replication padding (CPU): the output is walked row by row in its memory order;
// each row's innermost dim splits into a few runs whose sources step by -1, 0 or +1 (a mirrored
// or repeated edge, the middle), so the middle is one memcpy and the edges a few elements.
#include "kernels/cpu/shape/pad_kernels.h"

#include <algorithm>
#include <complex>
#include <cstring>
#include <vector>

#include "core/error.h"
#include "core/parallel.h"
#include "core/scalar_type.h"
#include "kernels/element_bytes.h"
#include "kernels/pad_source.h"

namespace ember::shapes {

namespace {

// Output positions [at, at + len) of the innermost dim read input coordinates src, src + step, ...
// (a mirrored edge, the middle and the other edge: three at most).
struct Run {
  int64_t at, src, len, step;
};

constexpr int kMaxOuter = 4;  // a 3-d pad's input has 5 dims, one of them innermost
constexpr int kMaxRuns = 8;

// The walk, offsets and strides in elements: the outer dims (outermost first) with each output
// coordinate's input offset, then the innermost dim's runs. Fixed arrays, so the loops copy
// them into registers (a byte copy may alias anything on the heap).
struct Plan {
  int k = 0;  // outer dims walked
  int64_t sizes[kMaxOuter] = {}, out_strides[kMaxOuter] = {}, offs_at[kMaxOuter] = {};
  std::vector<int64_t> offs;  // per outer dim, each output coordinate's input offset, from offs_at
  int64_t in_base = 0;        // the input offset of the size-1 output dims, left out of the walk
  int64_t inner = 1, inner_in_stride = 0, inner_out_stride = 1;
  Run runs[kMaxRuns] = {};
  int nruns = 0;
  int64_t rows = 1;
  int64_t units = 1;  // rows split into this many groups that read (backward: write) disjoint inputs
};

Plan make_plan(const Tensor& in, const Tensor& out, IntArrayRef before, bool reflect) {
  Plan p;
  std::vector<int64_t> order;
  for (int64_t d = 0; d < out.dim(); ++d) {
    if (out.size(d) == 1) p.in_base += pad_source(0, in.size(d), before[d], reflect) * in.stride(d);
    else order.push_back(d);
  }
  if (order.empty()) {
    p.runs[p.nruns++] = {0, 0, 1, 0};
    return p;
  }
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return out.stride(a) > out.stride(b); });
  const int64_t last = order.back();
  order.pop_back();
  EMBER_CHECK(static_cast<int>(order.size()) <= kMaxOuter, "pad: at most ", kMaxOuter + 1, " dims");
  bool leading = true;  // the outer dims ahead of the first padded one map one to one
  for (int64_t d : order) {
    const int64_t n = out.size(d);
    p.offs_at[p.k] = static_cast<int64_t>(p.offs.size());
    for (int64_t j = 0; j < n; ++j) p.offs.push_back(pad_source(j, in.size(d), before[d], reflect) * in.stride(d));
    leading = leading && before[d] == 0 && n == in.size(d);
    if (leading) p.units *= n;
    p.sizes[p.k] = n;
    p.out_strides[p.k++] = out.stride(d);
    p.rows *= n;
  }
  p.inner = out.size(last);
  p.inner_in_stride = in.stride(last);
  p.inner_out_stride = out.stride(last);
  const int64_t n = in.size(last), b = before[last];
  for (int64_t j = 0; j < p.inner;) {
    Run r{j, pad_source(j, n, b, reflect), 1, 0};
    if (j + 1 < p.inner) r.step = pad_source(j + 1, n, b, reflect) - r.src;
    while (j + r.len < p.inner && pad_source(j + r.len, n, b, reflect) == r.src + r.len * r.step) ++r.len;
    EMBER_CHECK(p.nruns < kMaxRuns, "pad: too many runs");
    p.runs[p.nruns++] = r;
    j += r.len;
  }
  return p;
}

// row(in_offset, out_offset) for rows [b, e) of the outer dims, counted up as an odometer.
template <class F>
void walk_rows(const Plan& p, int64_t b, int64_t e, const F& row_fn) {
  const F row = row_fn;
  const int k = p.k;
  int64_t sizes[kMaxOuter], ostr[kMaxOuter], idx[kMaxOuter];
  const int64_t* offs[kMaxOuter];
  int64_t rem = b, out_off = 0, in_off = p.in_base;
  for (int t = k - 1; t >= 0; --t) {
    sizes[t] = p.sizes[t];
    ostr[t] = p.out_strides[t];
    offs[t] = p.offs.data() + p.offs_at[t];
    idx[t] = rem % sizes[t];
    rem /= sizes[t];
    out_off += idx[t] * ostr[t];
    in_off += offs[t][idx[t]];
  }
  for (int64_t r = b; r < e; ++r) {
    row(in_off, out_off);
    for (int t = k - 1; t >= 0; --t) {
      in_off -= offs[t][idx[t]];
      out_off += ostr[t];
      if (++idx[t] < sizes[t]) {
        in_off += offs[t][idx[t]];
        break;
      }
      out_off -= sizes[t] * ostr[t];
      idx[t] = 0;
      in_off += offs[t][0];
    }
  }
}

// n bytes in fixed-size (so inlined) moves, the last one overlapping: a padded row's middle is
// often a few dozen bytes, where a call to memcpy costs as much as the copy.
inline void copy_bytes(char* __restrict d, const char* __restrict s, size_t n) {
  if (n >= 1024) {
    std::memcpy(d, s, n);
  } else if (n >= 64) {
    size_t i = 0;
    for (; i + 64 <= n; i += 64) __builtin_memcpy(d + i, s + i, 64);
    if (i < n) __builtin_memcpy(d + n - 64, s + n - 64, 64);
  } else if (n >= 16) {
    __builtin_memcpy(d, s, 16);
    if (n > 32) __builtin_memcpy(d + 16, s + 16, 16);
    if (n > 48) __builtin_memcpy(d + 32, s + 32, 16);
    __builtin_memcpy(d + n - 16, s + n - 16, 16);
  } else if (n >= 8) {
    __builtin_memcpy(d, s, 8);
    __builtin_memcpy(d + n - 8, s + n - 8, 8);
  } else {
    for (size_t i = 0; i < n; ++i) d[i] = s[i];
  }
}

// One output row from its input row: the runs' copies (the stride-1 middle as bytes); kUnit: both
// rows contiguous (NC* layouts), strides known to the compiler.
template <class T, bool kUnit>
struct CopyRow {
  const T* src;
  T* dst;
  Run runs[kMaxRuns];
  int nruns;
  int64_t is, os;
  void operator()(int64_t io, int64_t oo) const {
    const int64_t ist = kUnit ? 1 : is, ost = kUnit ? 1 : os;
    for (int q = 0; q < nruns; ++q) {
      const Run& r = runs[q];
      T* __restrict d = dst + oo + r.at * ost;
      const T* __restrict s = src + io + r.src * ist;
      const int64_t ss = r.step * ist;
      if (ost == 1 && ss == 1) {
        copy_bytes(reinterpret_cast<char*>(d), reinterpret_cast<const char*>(s),
                   static_cast<size_t>(r.len) * sizeof(T));
      } else if (ost == 1 && ss == -1) {
        for (int64_t i = 0; i < r.len; ++i) d[i] = s[-i];
      } else {
        for (int64_t i = 0; i < r.len; ++i) d[i * ost] = s[i * ss];
      }
    }
  }
};

// One output row's gradient added into its input row, element by element in the output's order
// (a replicated edge, step 0, sums into one element).
template <class V>
struct AddRow {
  V* grad_in;
  const V* grad_out;
  Run runs[kMaxRuns];
  int nruns;
  int64_t is, os;
  void operator()(int64_t io, int64_t oo) const {
    using A = opmath_t<V>;
    for (int q = 0; q < nruns; ++q) {
      const Run& r = runs[q];
      V* d = grad_in + io + r.src * is;
      const V* __restrict s = grad_out + oo + r.at * os;
      const int64_t ds = r.step * is;
      if (ds == 1 && os == 1) {
        V* __restrict dd = d;
        for (int64_t i = 0; i < r.len; ++i) dd[i] = V(A(dd[i]) + A(s[i]));
      } else {
        for (int64_t i = 0; i < r.len; ++i) d[i * ds] = V(A(d[i * ds]) + A(s[i * os]));
      }
    }
  }
};

template <class Row>
Row with_runs(Row row, const Plan& p) {
  std::copy(p.runs, p.runs + p.nruns, row.runs);
  row.nruns = p.nruns;
  row.is = p.inner_in_stride;
  row.os = p.inner_out_stride;
  return row;
}

template <class Row>
void forward_rows(const Plan& p, Row row) {
  // the middle first: its sequential reads bring the row into cache before the edges' scattered ones
  std::stable_sort(row.runs, row.runs + row.nruns, [](const Run& a, const Run& b) { return a.len > b.len; });
  parallel_for(0, p.rows, std::max<int64_t>(1, kGrainSize / p.inner),
               [&](int64_t b, int64_t e) { walk_rows(p, b, e, row); });
}

void forward(const Plan& p, const Tensor& in, const Tensor& out) {
  by_itemsize(out.itemsize(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = reinterpret_cast<const T*>(in.raw());
    T* dst = reinterpret_cast<T*>(out.raw());
    if (p.inner_in_stride == 1 && p.inner_out_stride == 1) forward_rows(p, with_runs(CopyRow<T, true>{src, dst}, p));
    else forward_rows(p, with_runs(CopyRow<T, false>{src, dst}, p));
  });
}

template <class V>
void backward_typed(const Plan& p, const Tensor& grad_in, const Tensor& grad_out) {
  const AddRow<V> row =
      with_runs(AddRow<V>{reinterpret_cast<V*>(grad_in.raw()), reinterpret_cast<const V*>(grad_out.raw())}, p);
  const int64_t per_unit = p.rows / p.units;
  // units write disjoint inputs; within one, the output's order (aten's order of the sums)
  parallel_for(0, p.units, std::max<int64_t>(1, kGrainSize / (per_unit * p.inner)),
               [&](int64_t b, int64_t e) { walk_rows(p, b * per_unit, e * per_unit, row); });
}

}  // namespace

void pad(const Tensor& in, const Tensor& out, IntArrayRef before, bool reflect, bool backward) {
  if (out.numel() == 0 || in.numel() == 0) return;
  const Plan p = make_plan(in, out, before, reflect);
  GilRelease nogil;
  if (!backward) return forward(p, in, out);
  switch (in.dtype()) {
    EMBER_CASES_FLOAT([&] { backward_typed<scalar_t>(p, in, out); })
    EMBER_CASES_COMPLEX([&] { backward_typed<scalar_t>(p, in, out); })
    default:
      dtype_not_implemented("pad_backward", in.dtype());
  }
}

}  // namespace ember::shapes
