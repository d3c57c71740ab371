// The profiler hook: ops, backward nodes, user ranges and (optionally) memory
// events are recorded while a profiler is active. When none is, an op pays one
// predictable branch on a relaxed atomic load.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace ember::profiler {

enum class EventKind : uint8_t { Op, Backward, UserRange, Memory };

struct Event {
  std::string name;
  std::string shapes;  // "[[2, 3], [3]]" when shapes are recorded
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t bytes = 0;  // Memory events: +allocated / -freed
  uint64_t thread = 0;
  int64_t seq = -1;      // forward op -> backward node link (PyTorch's sequence number)
  std::string stack;     // with_stack: "file(line): function" frames, innermost first, '\n'-separated
  std::string concrete;  // with_flops: the op's non-tensor arguments as a Python literal list
  std::string inputs;    // memory timeline: storage addresses of the op's tensor arguments, space-separated
  int32_t depth = 0;     // nesting depth on its thread
  EventKind kind = EventKind::Op;
  // Opened by a Python binding and not yet entered: the binding's own call into the C++ op of
  // the same name claims it instead of opening a second event (see open_nested).
  bool claimable = false;
};

struct Config {
  bool record_shapes = false;
  bool profile_memory = false;
  bool with_stack = false;
  bool with_flops = false;  // record shapes and concrete arguments for FLOP estimates
};

extern std::atomic<bool> g_active;
inline bool active() { return g_active.load(std::memory_order_relaxed); }

void start(const Config& c);
// Stop and hand over every event recorded since start().
std::vector<Event> stop();
const Config& config();
int64_t now_ns();
uint64_t thread_id();

// Open/close a range on this thread (ops and user ranges nest).
void push(const char* name, EventKind kind, std::string shapes, int64_t seq);
void pop();
// An op reached from Python: its C++ body may claim it (below) rather than nest a twin.
void push_binding_op(const char* name, std::string shapes, int64_t seq);
// An op called from C++ (inside another op, a backward formula or the engine). Returns false,
// opening nothing, when it is the op its Python binding just opened (one event per call, as
// PyTorch's dispatcher records); true when it opened a new range (close it with pop()).
bool open_nested(const char* name, int64_t seq);
// Shapes of the range this thread opened last (nested ops compute them only once opened).
void set_top_shapes(std::string shapes);
// addr: the block's address, reported in the event's `seq` field (memory timeline matching).
void record_memory(int64_t bytes, const void* addr = nullptr);
// Attach a Python stack / concrete arguments to the range this thread opened last.
void annotate_top(std::string stack, std::string concrete, std::string inputs = {});

// The next sequence number a graph node will take (for the forward/backward link).
int64_t peek_seq();

// Scope guard for C++ callers.
class Scope {
 public:
  Scope(const char* name, EventKind kind, int64_t seq = -1) : on_(active()) {
    if (on_) push(name, kind, {}, seq);
  }
  // Named prefix + name (the string is only built while a profiler runs).
  Scope(const char* prefix, const char* name, EventKind kind, int64_t seq) : on_(active()) {
    if (on_) push((std::string(prefix) + name).c_str(), kind, {}, seq);
  }
  ~Scope() {
    if (on_) pop();
  }
  bool on() const { return on_; }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  bool on_;
};

}  // namespace ember::profiler
