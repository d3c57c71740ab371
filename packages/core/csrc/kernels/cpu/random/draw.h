// Drawing a generator's words in bulk for the CPU samplers (kernels/cpu/random): the GIL and
// the generator's lock held as PyTorch's kernels hold them, rounds of words handed to a body.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>

#include "core/error.h"
#include "core/generator.h"
#include "core/parallel.h"
#include "kernels/random_units.h"

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
    EMBER_CHECK(!gen_.is_cuda(), "Expected a 'cpu' device type for generator but found 'cuda'");
    if (n >= kNoGilAbove) nogil_.emplace();
    lock_ = std::unique_lock<std::mutex>(gen_.mutex);
  }
  Generator& gen() { return gen_; }

 private:
  Generator& gen_;
  std::optional<GilRelease> nogil_;  // destroyed after lock_, so unlock happens first
  std::unique_lock<std::mutex> lock_;
};

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

}  // namespace ember::rng
