// One parallel_for over OpenMP for every kernel; set_num_threads controls it
// (OpenBLAS runs single-threaded inside it; see kernels/cpu/gemm/blas_gemm.h).
#pragma once
#include <cstdint>
#include <exception>

namespace ember {

constexpr int64_t kGrainSize = 32768;  // elements below which threads cost more than they save

// Rows per parallel chunk for rows of n elements: about kGrainSize elements a chunk, at least one row.
inline int64_t row_grain(int64_t n) {
  const int64_t rows = kGrainSize / (n > 1 ? n : 1);
  return rows > 1 ? rows : 1;
}

int get_num_threads();
void set_num_threads(int n);
bool in_parallel_region();

// The binding layer installs these so heavy kernels release the GIL; the core
// itself knows nothing about Python.
struct GilHooks {
  void* (*release)() = nullptr;
  void (*acquire)(void*) = nullptr;
};
extern GilHooks g_gil_hooks;

// Releases the GIL for its scope if this thread holds it (re-entrant safe).
class GilRelease {
 public:
  GilRelease();
  ~GilRelease();
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;

 private:
  void* state_ = nullptr;
  bool active_ = false;
};

void parallel_run(int64_t begin, int64_t end, int64_t grain, void (*fn)(void*, int64_t, int64_t), void* ctx);

// Run fn(begin, end) over [begin, end) split in chunks of at least `grain`.
template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& fn) {
  if (end <= begin) return;
  if (end - begin <= grain || get_num_threads() == 1 || in_parallel_region()) {
    fn(begin, end);
    return;
  }
  parallel_run(
      begin, end, grain, [](void* ctx, int64_t b, int64_t e) { (*static_cast<const F*>(ctx))(b, e); },
      const_cast<void*>(static_cast<const void*>(&fn)));
}

}  // namespace ember
