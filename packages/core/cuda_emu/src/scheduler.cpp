// Kernel grids on the emulator: one block at a time, each of its threads a fiber on the calling
// host thread. A fiber runs until it finishes or reaches __syncthreads or a warp collective; when
// every live thread waits, the barrier (or each warp's collective) resolves and they go on. A barrier
// some threads can never reach is reported as the kernel's failure, not a hang.
// EMBER_CUDA_EMU_ORDER=reverse runs the blocks and each step's threads last to first (a missing
// barrier, or a block reading what another writes, then shows the other way round); shared memory
// starts as 0xff bytes in every block (NaN floats, -1 integers); EMBER_CUDA_EMU_STACK_KB sets each
// fiber's stack (256).
#include <sys/mman.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_runtime.h"
#include "emu_internal.h"

#if !defined(__x86_64__)
#error "the CUDA emulator's fibers switch stacks with x86-64 code"
#endif

// emu_switch(save, to): saves the callee-saved registers on this stack, stores its top in *save,
// and resumes the stack at `to` (saved the same way). The floating-point control words are not
// switched: nothing on either side changes them. It returns with an indirect jump, not `ret`: the
// return predictor is always wrong across a stack switch, the jump's target almost always right.
// emu_fiber_start: a new fiber's first return lands here, with its entry in r13 and argument in r12.
extern "C" void emu_switch(void** save, void* to);
extern "C" void emu_fiber_start();
asm(R"(
  .text
  .globl emu_switch
  .hidden emu_switch
  .type emu_switch, @function
emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  popq %rax
  jmpq *%rax
  .size emu_switch, .-emu_switch
  .globl emu_fiber_start
  .hidden emu_fiber_start
  .type emu_fiber_start, @function
emu_fiber_start:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size emu_fiber_start, .-emu_fiber_start
)");

namespace emu {

Builtins builtins;

namespace {

enum class State { Run, Barrier, Warp, Done };

struct Fiber {
  void* sp = nullptr;
  dim3 tid;
  State state = State::Run;
  int predicate = 0, kind = 0, arg = 0, width = 32;
  unsigned mask = 0;
  uint64_t value = 0, result = 0;
};

struct Block {
  Kernel* kernel = nullptr;
  void* scheduler_sp = nullptr;
  Fiber* current = nullptr;
  std::vector<Fiber> fibers;
  std::vector<unsigned char> shared;
  std::vector<const void*> fresh;  // the static __shared__ variables refilled for this block
  std::exception_ptr error;
};
Block* g_block = nullptr;

// Fiber stacks, kept for the process: mmap'd, each with a guard page below it.
struct Stacks {
  size_t size = static_cast<size_t>(env_long("EMBER_CUDA_EMU_STACK_KB", 256)) << 10;
  std::vector<char*> tops;
  char* top(size_t i) {
    while (tops.size() <= i) {
      const size_t guard = 4096;
      void* p = mmap(nullptr, size + guard, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED) throw std::runtime_error("cannot map a fiber stack");
      mprotect(p, guard, PROT_NONE);
      // each top at its own cache-line offset: equal offsets would put every fiber's saved
      // registers in the same cache sets, and each switch would miss
      tops.push_back(static_cast<char*>(p) + guard + size - (tops.size() % 64) * 64);
    }
    return tops[i];
  }
};
Stacks g_stacks;

[[noreturn]] void fiber_main(Fiber* f) {
  try {
    g_block->kernel->run_thread();
  } catch (...) {
    if (!g_block->error) g_block->error = std::current_exception();
  }
  f->state = State::Done;
  emu_switch(&f->sp, g_block->scheduler_sp);
  __builtin_unreachable();
}

// A fresh fiber's stack: what emu_switch pops, then emu_fiber_start as the return address.
void* fresh_stack(char* top, Fiber* f) {
  auto* sp = reinterpret_cast<uint64_t*>(reinterpret_cast<uintptr_t>(top) & ~uintptr_t(15));
  *--sp = reinterpret_cast<uint64_t>(&emu_fiber_start);
  *--sp = 0;                                        // rbp
  *--sp = 0;                                        // rbx
  *--sp = reinterpret_cast<uint64_t>(f);            // r12: the argument
  *--sp = reinterpret_cast<uint64_t>(&fiber_main);  // r13: the entry
  *--sp = 0;                                        // r14
  *--sp = 0;                                        // r15
  return sp;
}

// Suspends the current fiber in state s until the scheduler resumes it; returns its result.
uint64_t suspend(State s) {
  Block* b = g_block;
  if (!b || !b->current) {
    std::fprintf(stderr, "ember CUDA emulator: a device barrier or collective outside a kernel\n");
    std::abort();
  }
  Fiber* f = b->current;
  f->state = s;
  emu_switch(&f->sp, b->scheduler_sp);
  return f->result;
}

std::string where(const Block& b) {
  const dim3 i = builtins.block_idx;
  return "block (" + std::to_string(i.x) + ", " + std::to_string(i.y) + ", " + std::to_string(i.z) + ") of " +
         std::to_string(b.fibers.size()) + " threads";
}

// Resolves every warp whose live lanes all wait at a collective; false when none could.
bool resolve_warps(Block& b) {
  const size_t n = b.fibers.size();
  bool progressed = false;
  for (size_t w = 0; w < n; w += 32) {
    const size_t end = std::min(n, w + 32);
    bool ready = true, any = false;
    uint64_t done = 0;  // the lanes that have exited, as a mask
    for (size_t i = w; i < end; ++i) {
      const State s = b.fibers[i].state;
      if (s == State::Warp) any = true;
      else if (s == State::Done) done |= uint64_t(1) << (i - w);
      else ready = false;
    }
    if (!any || !ready) continue;
    const Fiber* first = nullptr;
    uint64_t ballot = 0;
    for (size_t i = w; i < end; ++i) {
      const Fiber& f = b.fibers[i];
      const unsigned lane = static_cast<unsigned>(i - w);
      if (f.state == State::Done) continue;
      if (!first) first = &f;
      if (f.kind != first->kind)
        throw std::runtime_error("lanes of warp " + std::to_string(w / 32) + " wait at different warp collectives in " +
                                 where(b));
      if (const uint64_t gone = uint64_t(f.mask) & done)
        throw std::runtime_error("lane " + std::to_string(__builtin_ctzll(gone)) + " of warp " +
                                 std::to_string(w / 32) + " exited before a warp collective whose mask names it, in " +
                                 where(b));
      if (f.value && (f.mask >> lane & 1u)) ballot |= uint64_t(1) << lane;
    }
    for (size_t i = w; i < end; ++i) {
      Fiber& f = b.fibers[i];
      if (f.state == State::Done) continue;
      const int lane = static_cast<int>(i - w), width = f.width, base = lane - lane % width;
      int src = lane;
      switch (f.kind) {
        case kShflIdx:
          src = base + ((f.arg % width) + width) % width;
          break;
        case kShflUp:
          src = lane % width >= f.arg ? lane - f.arg : lane;
          break;
        case kShflDown:
          src = lane % width + f.arg < width ? lane + f.arg : lane;
          break;
        case kShflXor:
          src = (lane ^ f.arg) - ((lane ^ f.arg) % width) == base ? lane ^ f.arg : lane;
          break;
        default:
          break;
      }
      const size_t s = w + static_cast<size_t>(src);
      f.result =
          f.kind == kBallot ? ballot : (s < end && b.fibers[s].state == State::Warp ? b.fibers[s].value : f.value);
    }
    // only now: a lane released above would no longer count as a source for the lanes after it
    for (size_t i = w; i < end; ++i)
      if (b.fibers[i].state == State::Warp) b.fibers[i].state = State::Run;
    progressed = true;
  }
  return progressed;
}

void run_block(Block& b, bool reverse) {
  const size_t n = b.fibers.size();
  const dim3 bd = builtins.block_dim;
  for (size_t t = 0; t < n; ++t) {
    Fiber& f = b.fibers[t];
    f = Fiber{};
    f.tid = dim3(static_cast<unsigned>(t % bd.x), static_cast<unsigned>(t / bd.x % bd.y),
                 static_cast<unsigned>(t / (size_t(bd.x) * bd.y)));
    f.sp = fresh_stack(g_stacks.top(t), &f);
  }
  for (;;) {
    for (size_t k = 0; k < n; ++k) {
      Fiber& f = b.fibers[reverse ? n - 1 - k : k];
      if (f.state != State::Run) continue;
      b.current = &f;
      builtins.thread_idx = f.tid;
      emu_switch(&b.scheduler_sp, f.sp);
      b.current = nullptr;
      if (b.error) std::rethrow_exception(b.error);
    }
    size_t barrier = 0, warp = 0, done = 0;
    for (const Fiber& f : b.fibers) {
      barrier += f.state == State::Barrier;
      warp += f.state == State::Warp;
      done += f.state == State::Done;
    }
    if (done == n) return;
    if (warp) {
      if (!resolve_warps(b))
        throw std::runtime_error(
            "deadlock: some threads wait at __syncthreads while others of their warp wait at a "
            "warp collective, in " +
            where(b));
      continue;
    }
    // every live thread is at the barrier: __syncthreads_count / _and / _or see all their predicates
    int count = 0;
    for (const Fiber& f : b.fibers) count += f.state == State::Barrier && f.predicate;
    for (Fiber& f : b.fibers) {
      if (f.state != State::Barrier) continue;
      switch (f.kind) {
        case 0:
          f.result = static_cast<uint64_t>(count);
          break;
        case 1:
          f.result = count == static_cast<int>(barrier);
          break;
        default:
          f.result = count > 0;
          break;
      }
      f.state = State::Run;
    }
  }
}

std::string dims(dim3 d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

// Why CUDA would refuse this launch; empty when it would not.
std::string bad_config(const Config& c) {
  const dim3 g = c.grid, b = c.block;
  const uint64_t threads = uint64_t(b.x) * b.y * b.z;
  if (b.x == 0 || b.y == 0 || b.z == 0 || threads > 1024 || b.x > 1024 || b.y > 1024 || b.z > 64)
    return "block " + dims(b) + " is not a valid thread block (at most 1024 threads, z at most 64)";
  if (g.x == 0 || g.y == 0 || g.z == 0 || g.x > 0x7fffffffu || g.y > 65535 || g.z > 65535)
    return "grid " + dims(g) + " is not a valid grid (x in [1, 2^31 - 1], y and z in [1, 65535])";
  if (c.shared > (48u << 10))
    return std::to_string(c.shared) + " bytes of dynamic shared memory is past the 48 KiB a launch may ask for";
  return "";
}

struct Grid final : Work {
  Grid(const Config& c_, Kernel* k_) : c(c_), k(k_) {}
  ~Grid() override { delete k; }
  void run() override {
    try {
      run_grid(c, *k);
    } catch (const std::exception& e) {
      report_failure(e.what());
    }
  }
  Config c;
  Kernel* k;
};

}  // namespace

void syncthreads() { suspend(State::Barrier); }

int syncthreads_op(int op, int predicate) {
  Fiber* f = g_block ? g_block->current : nullptr;
  if (f) {
    f->kind = op;
    f->predicate = predicate != 0;
  }
  return static_cast<int>(suspend(State::Barrier));
}

uint64_t warp_collective(int kind, unsigned mask, uint64_t value, int arg, int width) {
  Fiber* f = g_block ? g_block->current : nullptr;
  if (f) {
    f->kind = kind;
    f->mask = mask;
    f->value = value;
    f->arg = arg;
    f->width = width > 0 && width <= 32 ? width : 32;
  }
  return suspend(State::Warp);
}

void* dynamic_shared() { return g_block ? g_block->shared.data() : nullptr; }

void fresh_shared(void* p, size_t bytes) {
  if (!g_block) return;
  for (const void* q : g_block->fresh)
    if (q == p) return;
  g_block->fresh.push_back(p);
  std::memset(p, 0xff, bytes);
}

void run_grid(const Config& c, Kernel& k) {
  static const bool reverse = [] {
    const char* v = std::getenv("EMBER_CUDA_EMU_ORDER");
    return v && std::strcmp(v, "reverse") == 0;
  }();
  Block b;
  b.kernel = &k;
  b.fibers.resize(size_t(c.block.x) * c.block.y * c.block.z);
  b.shared.resize(c.shared + 16);
  builtins.block_dim = c.block;
  builtins.grid_dim = c.grid;
  Block* const outer = g_block;
  g_block = &b;
  try {
    const uint64_t blocks = uint64_t(c.grid.x) * c.grid.y * c.grid.z;
    for (uint64_t n = 0; n < blocks; ++n) {
      const uint64_t i = reverse ? blocks - 1 - n : n;
      builtins.block_idx = dim3(static_cast<unsigned>(i % c.grid.x), static_cast<unsigned>(i / c.grid.x % c.grid.y),
                                static_cast<unsigned>(i / (uint64_t(c.grid.x) * c.grid.y)));
      std::memset(b.shared.data(), 0xff, b.shared.size());  // shared memory starts as garbage
      b.fresh.clear();
      run_block(b, reverse);
    }
  } catch (...) {
    g_block = outer;
    throw;
  }
  g_block = outer;
}

void launch_kernel(const Config& c, const char* name, Kernel* k) {
  trace("launch", name, size_t(c.grid.x) * c.grid.y * c.grid.z * c.block.x * c.block.y * c.block.z);
  const std::string bad = bad_config(c);
  if (!bad.empty()) {
    delete k;
    set_error(cudaErrorInvalidConfiguration, "kernel launch: " + bad);
    return;
  }
  const cudaError_t e = enqueue(c.stream, new Grid(c, k), "kernel launch");
  if (e != cudaSuccess) set_error(e, "kernel launch on a stream that is not live");
}

}  // namespace emu
