// Shared machinery of the random ops (random*.cpp): drawing words from a
// generator in bulk, PyTorch's word-to-number transforms, and filling a tensor
// in the order PyTorch's TensorIterator visits it.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>

#include "core/generator.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "iter/elementwise_iter.h"

namespace ember::rng {

constexpr double kPi = 3.14159265358979323846;
constexpr int64_t kChunk = 1 << 16;           // words drawn per round
constexpr int64_t kNoGilAbove = 1 << 14;      // elements above which the GIL is released
constexpr int64_t kTransformGrain = 1 << 12;  // elements per thread for libm-bound transforms
constexpr int64_t kVectorGrain = 1 << 17;     // ... and for vectorised ones

// One op's hold on a generator: the GIL is released (for big draws) before the
// generator's mutex is taken, and taken back after it is unlocked.
class DrawScope {
 public:
  DrawScope(Generator* g, int64_t n) : gen_(or_default(g)) {
    if (n >= kNoGilAbove) nogil_.emplace();
    lock_ = std::unique_lock<std::mutex>(gen_.mutex);
  }
  Generator& gen() { return gen_; }

 private:
  Generator& gen_;
  std::optional<GilRelease> nogil_;  // destroyed after lock_, so unlock happens first
  std::unique_lock<std::mutex> lock_;
};

// Largest finite value of a floating dtype (numeric_limits knows no Half/BFloat16).
template <class T>
constexpr double float_max() {
  if constexpr (std::is_same_v<T, Half>) return 65504.0;
  else if constexpr (std::is_same_v<T, BFloat16>) return 3.3895313892515355e38;
  else return static_cast<double>(std::numeric_limits<T>::max());
}

// PyTorch's uniform_real_distribution: the low mantissa-width bits of one
// 32-bit draw (float and narrower) or one 64-bit draw (double), scaled to [0, 1).
inline float unit_float(uint32_t w) { return static_cast<float>(w & 0xffffffu) * (1.0f / 16777216.0f); }
inline double unit_double(uint64_t w) {
  return static_cast<double>(w & ((uint64_t(1) << 53) - 1)) * (1.0 / 9007199254740992.0);
}

// double -> int64 as x86's cvttsd2si does it (out of range and NaN give INT64_MIN),
// without the undefined behaviour of a plain cast.
inline int64_t to_int64_x86(double v) {
  return (v >= -9223372036854775808.0 && v < 9223372036854775808.0) ? static_cast<int64_t>(v) : INT64_MIN;
}

// static_cast<scalar_t>(double) as PyTorch writes results (floats round through
// float for half/bfloat16; integers truncate).
template <class T>
inline T from_double(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(to_int64_x86(v));
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return static_cast<T>(v);
  } else {
    return T(static_cast<float>(v));
  }
}
template <class T>
inline T from_int64(int64_t v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_integral_v<T> || std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return static_cast<T>(v);
  } else {
    return T(static_cast<float>(v));
  }
}

// Draw n words (uint32_t or uint64_t) in rounds and hand each round to
// body(words, first_index, count). With `parallel`, rounds are larger and their
// words are split across threads; the words themselves are always drawn in
// order, so the numbers never depend on the thread count.
// `big_rounds` (default: when parallel) suits bodies that start threads themselves.
template <class Word, class Body>
void draw(Generator& g, int64_t n, bool parallel, const Body& body, bool big_rounds = false) {
  static_assert(std::is_same_v<Word, uint32_t> || std::is_same_v<Word, uint64_t>);
  if (n <= 0) return;
  // Few big rounds when threaded: each round is one parallel region.
  const int64_t cap = std::min(n, parallel || big_rounds ? kChunk * 16 : kChunk);
  std::unique_ptr<Word[]> buf(new Word[static_cast<size_t>(cap)]);
  for (int64_t b = 0; b < n; b += cap) {
    int64_t m = std::min(cap, n - b);
    if constexpr (sizeof(Word) == 4) g.fill32(buf.get(), m);
    else g.fill64(buf.get(), m);
    const Word* w = buf.get();
    if (parallel) parallel_for(0, m, kTransformGrain, [&](int64_t s, int64_t e) { body(w + s, b + s, e - s); });
    else body(w, b, m);
  }
}

// Fast exact w % d for 32-bit operands (Lemire, Kaser & Kurz, "Faster remainder
// by direct computation", 2019): two multiplies instead of a division.
class Mod32 {
 public:
  explicit Mod32(uint32_t d) : m_(UINT64_MAX / d + 1), d_(d) {}
  uint32_t operator()(uint32_t a) const {
    const uint64_t low = m_ * a;
    return static_cast<uint32_t>((static_cast<unsigned __int128>(low) * d_) >> 64);
  }

 private:
  uint64_t m_;
  uint32_t d_;
};

// PyTorch's normal_distribution<double> drawn n times in a row: Box-Muller on
// two 64-bit draws gives a pair; the spare sine half waits in the generator.
// sink(i, value) receives value i; pairs are computed in parallel.
template <class Sink>
void normal_doubles(Generator& g, int64_t n, double mean, double std, const Sink& sink) {
  int64_t i0 = 0;
  if (n > 0 && g.next_double_normal) {
    sink(0, std::fma(*g.next_double_normal, std, mean));
    g.next_double_normal.reset();
    i0 = 1;
  }
  int64_t rest = n - i0, pairs = (rest + 1) / 2;
  double spare = 0;
  bool odd = rest % 2 == 1;
  draw<uint64_t>(
      g, 2 * pairs, false,
      [&](const uint64_t* w, int64_t first, int64_t cnt) {
        // Rounds hold an even number of words (kChunk is even), so pairs never straddle.
        int64_t p0 = first / 2, np = cnt / 2;
        parallel_for(0, np, kTransformGrain / 2, [&](int64_t s, int64_t e) {
          for (int64_t k = s; k < e; ++k) {
            double u1 = unit_double(w[2 * k]), u2 = unit_double(w[2 * k + 1]);
            double r = std::sqrt(-2.0 * std::log1p(-u2));
            double theta = 2.0 * kPi * u1;
            int64_t out = i0 + 2 * (p0 + k);
            sink(out, std::fma(r * std::cos(theta), std, mean));
            double s2 = r * std::sin(theta);
            if (out + 1 < n) sink(out + 1, std::fma(s2, std, mean));
            else spare = s2;
          }
        });
      },
      /*big_rounds=*/true);
  if (odd) g.next_double_normal = spare;
}

// Dense strides that lay self's dims out in the order PyTorch's TensorIterator
// walks them (smallest stride innermost), so position k of such a buffer is the
// k-th element visited -- and the k-th number drawn.
DimVector iteration_strides(const Tensor& self);

// Fill self in iteration order: write(ptr, n) produces n contiguous values of
// self's dtype; non-contiguous targets go through a dense temporary.
template <class Write>
void fill_in_order(const Tensor& self, const Write& write) {
  if (self.is_contiguous()) {
    write(self.raw(), self.numel());
    return;
  }
  Tensor tmp = empty_strided(self.sizes(), iteration_strides(self), self.dtype());
  write(tmp.raw(), tmp.numel());
  copy_into(self, tmp);
}

}  // namespace ember::rng
