// The lines of a scan along one dim of a contiguous tensor viewed as [outer, n, inner], split
// between threads by outer index and by chunks of inner (so a scan along dim 0 still spreads).
#pragma once
#include <algorithm>
#include <cstdint>

#include "core/parallel.h"

namespace ember::scan {

constexpr int64_t kChunk = 64;  // inner lines a task walks side by side (contiguous loads)

// fn(o, i0, i1): scan lines (o, i) for i in [i0, i1). `work` is the cost of one element in units of
// a plain copy (the grain scales down with it); the GIL is released for large scans.
template <class F>
void for_lines(int64_t outer, int64_t n, int64_t inner, int64_t work, const F& fn) {
  const int64_t chunks = (inner + kChunk - 1) / kChunk, tasks = outer * chunks;
  const int64_t per_task = n * std::min(inner, kChunk) * work;
  auto run = [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t o = t / chunks, i0 = (t % chunks) * kChunk;
      fn(o, i0, std::min(inner, i0 + kChunk));
    }
  };
  if (outer * n * inner * work < kGrainSize) return run(0, tasks);
  GilRelease nogil;
  parallel_for(0, tasks, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(per_task, 1)), run);
}

}  // namespace ember::scan
