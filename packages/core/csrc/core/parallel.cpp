#include "parallel.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

extern "C" void scipy_openblas_set_num_threads(int);

namespace ember {

GilHooks g_gil_hooks;
namespace {
thread_local bool t_gil_released = false;
std::atomic<int> g_threads{0};

int default_threads() {
  // Physical cores, like PyTorch; hyperthreads slow down memory-bound kernels.
  unsigned hw = std::thread::hardware_concurrency();
  int n = omp_get_num_procs();
  return std::max(1, std::min<int>(n, hw ? static_cast<int>(hw) : n));
}
}  // namespace

int get_num_threads() {
  int n = g_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    n = default_threads();
    set_num_threads(n);
  }
  return n;
}

void set_num_threads(int n) {
  n = std::max(1, n);
  g_threads.store(n);
  omp_set_num_threads(n);
  // OpenBLAS stays on one thread: ember's pool runs the GEMM blocks (kernels/cpu/gemm/blas_gemm.h).
  scipy_openblas_set_num_threads(1);
}

bool in_parallel_region() { return omp_in_parallel(); }

GilRelease::GilRelease() {
  if (!t_gil_released && g_gil_hooks.release) {
    state_ = g_gil_hooks.release();
    active_ = true;
    t_gil_released = true;
  }
}
GilRelease::~GilRelease() {
  if (active_) {
    t_gil_released = false;
    g_gil_hooks.acquire(state_);
  }
}

void parallel_run(int64_t begin, int64_t end, int64_t grain, void (*fn)(void*, int64_t, int64_t), void* ctx) {
  int64_t n = end - begin;
  int nthreads = static_cast<int>(std::min<int64_t>(get_num_threads(), (n + grain - 1) / grain));
  std::exception_ptr err;
  std::mutex mu;
#pragma omp parallel num_threads(nthreads)
  {
    int tid = omp_get_thread_num();
    int nt = omp_get_num_threads();
    int64_t chunk = (n + nt - 1) / nt;
    int64_t b = begin + tid * chunk;
    int64_t e = std::min(end, b + chunk);
    if (b < e) {
      // Exceptions may not cross an OpenMP region: keep the first, rethrow after.
      try {
        fn(ctx, b, e);
      } catch (...) {
        std::lock_guard<std::mutex> g(mu);
        if (!err) err = std::current_exception();
      }
    }
  }
  if (err) std::rethrow_exception(err);
}

}  // namespace ember
