// Grad mode is per thread, as in PyTorch: no_grad in one thread leaves others alone. It is core
// state (not autograd's) because layers below autograd read it: the profiler's op records, op bodies.
#pragma once

namespace ember {

struct GradMode {
  static bool is_enabled() { return enabled_; }
  static void set_enabled(bool on) { enabled_ = on; }
  static inline thread_local bool enabled_ = true;
};

// Inference mode: no graph and no version tracking for new tensors.
struct InferenceMode {
  static bool is_enabled() { return enabled_; }
  static inline thread_local bool enabled_ = false;
};

// Anomaly detection is global (PyTorch's set_detect_anomaly is process-wide).
struct AnomalyMode {
  static inline bool enabled = false;
  static inline bool check_nan = true;
};

class AutoGradMode {
 public:
  explicit AutoGradMode(bool on) : prev_(GradMode::is_enabled()) { GradMode::set_enabled(on); }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

}  // namespace ember
