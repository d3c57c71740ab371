#include "profiler.h"

#include <chrono>
#include <mutex>
#include <thread>

namespace ember::profiler {

std::atomic<bool> g_active{false};

namespace {
Config g_config;
std::mutex g_mu;
std::vector<Event> g_done;  // finished events of every thread (merged under g_mu)
std::atomic<uint64_t> g_epoch{0};

// Per-thread open ranges; closed events go to g_done in small batches.
struct ThreadState {
  uint64_t epoch = UINT64_MAX;
  std::vector<Event> open;
  std::vector<Event> done;
  void flush() {
    if (done.empty()) return;
    std::lock_guard<std::mutex> g(g_mu);
    g_done.insert(g_done.end(), std::make_move_iterator(done.begin()), std::make_move_iterator(done.end()));
    done.clear();
  }
  ~ThreadState() { flush(); }
};
thread_local ThreadState t_state;

ThreadState& state() {
  ThreadState& s = t_state;
  uint64_t e = g_epoch.load(std::memory_order_acquire);
  if (s.epoch != e) {  // a new profiling session: forget the old one's leftovers
    s.open.clear();
    s.done.clear();
    s.epoch = e;
  }
  return s;
}
}  // namespace

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint64_t thread_id() { return std::hash<std::thread::id>{}(std::this_thread::get_id()); }

void start(const Config& c) {
  std::lock_guard<std::mutex> g(g_mu);
  g_config = c;
  g_done.clear();
  g_epoch.fetch_add(1, std::memory_order_acq_rel);
  g_active.store(true, std::memory_order_release);
}

std::vector<Event> stop() {
  g_active.store(false, std::memory_order_release);
  t_state.flush();  // the calling thread's events (others flushed as they go / exit)
  std::lock_guard<std::mutex> g(g_mu);
  std::vector<Event> out;
  out.swap(g_done);
  return out;
}

const Config& config() { return g_config; }

void push(const char* name, EventKind kind, std::string shapes, int64_t seq) {
  ThreadState& s = state();
  if (!s.open.empty()) s.open.back().claimable = false;  // its first call was another op
  Event e;
  e.name = name;
  e.shapes = std::move(shapes);
  e.kind = kind;
  e.seq = seq;
  e.thread = thread_id();
  e.depth = static_cast<int32_t>(s.open.size());
  e.start_ns = now_ns();
  s.open.push_back(std::move(e));
}

void push_binding_op(const char* name, std::string shapes, int64_t seq) {
  push(name, EventKind::Op, std::move(shapes), seq);
  state().open.back().claimable = true;
}

bool open_nested(const char* name, int64_t seq) {
  ThreadState& s = state();
  if (!s.open.empty()) {
    Event& top = s.open.back();
    if (top.claimable) {
      top.claimable = false;  // only the binding's first call can be the op itself
      if (top.name == name) return false;
    }
  }
  push(name, EventKind::Op, {}, seq);
  return true;
}

void set_top_shapes(std::string shapes) {
  ThreadState& s = state();
  if (!s.open.empty()) s.open.back().shapes = std::move(shapes);
}

void pop() {
  ThreadState& s = state();
  if (s.open.empty()) return;  // started before this session
  Event e = std::move(s.open.back());
  s.open.pop_back();
  e.end_ns = now_ns();
  // An op keeps its sequence number only if it (or an op inside it) made a graph node, so the
  // backward node links to the op that created it (PyTorch's forward/backward flow).
  if (e.kind == EventKind::Op && e.seq >= 0 && peek_seq() <= e.seq) e.seq = -1;
  s.done.push_back(std::move(e));
  if (s.done.size() >= 4096 || s.open.empty()) s.flush();
}

void annotate_top(std::string stack, std::string concrete, std::string inputs) {
  ThreadState& s = state();
  if (s.open.empty()) return;
  s.open.back().stack = std::move(stack);
  s.open.back().concrete = std::move(concrete);
  s.open.back().inputs = std::move(inputs);
}

void record_memory(int64_t bytes, const void* addr) {
  if (!g_config.profile_memory) return;
  ThreadState& s = state();
  Event e;
  e.name = "[memory]";
  e.kind = EventKind::Memory;
  e.bytes = bytes;
  e.seq = static_cast<int64_t>(reinterpret_cast<uintptr_t>(addr));
  e.thread = thread_id();
  e.depth = static_cast<int32_t>(s.open.size());
  e.start_ns = e.end_ns = now_ns();
  s.done.push_back(std::move(e));
}

}  // namespace ember::profiler
