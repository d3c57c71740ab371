// ember's random number generators. CPU: MT19937 run exactly as PyTorch's CPU
// generator runs it (seeding, 32/64-bit draws, the cached Box-Muller normal and
// the 5056-byte state layout), so a seeded script draws the same numbers.
// CUDA: PyTorch's counter-based scheme, a seed and a Philox offset that each
// draw advances (the kernels compute from seed, offset and element index).
#pragma once
#include <array>
#include <cstdint>
#include <mutex>
#include <optional>

#include "device.h"
#include "ref.h"

namespace ember {

constexpr uint64_t kDefaultRngSeed = 67280421310721ULL;  // PyTorch's default_rng_seed_val
constexpr int64_t kRngStateBytes = 5056;                 // sizeof(CPUGeneratorImplState)
constexpr int64_t kCudaRngStateBytes = 16;               // a CUDA generator's seed and offset

class MT19937 {
 public:
  static constexpr int kN = 624;
  static constexpr int kM = 397;

  explicit MT19937(uint64_t seed = 5489) { seed_with(seed); }
  void seed_with(uint64_t seed);

  uint32_t next() {
    if (left_ <= 1 || next_ >= kN) regenerate();
    --left_;
    return temper(state_[next_++]);
  }
  // The same values as n calls of next(), written in bulk (vectorised).
  void fill(uint32_t* out, int64_t n);

  uint64_t seed() const { return seed_; }
  // Raw fields, for the state tensor.
  struct Raw {
    uint64_t seed;
    int32_t left;
    bool seeded;
    uint32_t next;
    std::array<uint32_t, kN> state;
  };
  Raw raw() const { return {seed_, left_, seeded_, next_, state_}; }
  void set_raw(const Raw& r);

  static uint32_t temper(uint32_t y) {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
  }

 private:
  void regenerate();

  std::array<uint32_t, kN> state_;
  uint64_t seed_ = 0;
  int32_t left_ = 1;  // draws left before a twist, plus one (PyTorch's convention)
  uint32_t next_ = 0;
  bool seeded_ = false;
};

// A generator object (ember.Generator / the default generator). Sampling ops
// lock `mutex` for the whole draw, so concurrent callers get disjoint numbers.
class Generator : public RefCounted {
 public:
  explicit Generator(uint64_t seed = kDefaultRngSeed) { set_seed(seed); }
  // A CUDA generator (device: cuda with an index) starts at PyTorch's default seed, offset 0.
  explicit Generator(Device device) : device_(device) { set_seed(kDefaultRngSeed); }

  std::mutex mutex;

  Device device() const { return device_; }
  bool is_cuda() const { return device_.type == DeviceType::CUDA; }
  // CUDA generators: the Philox offset (a multiple of 4, in 32-bit draws per element, as
  // PyTorch counts it); a draw takes the current one and moves it on by `increment`.
  uint64_t philox_offset() const { return philox_offset_; }
  void set_philox_offset(uint64_t offset);  // PyTorch's check: a multiple of 4
  uint64_t philox_advance(uint64_t increment) {
    const uint64_t o = philox_offset_;
    philox_offset_ += (increment + 3) / 4 * 4;
    return o;
  }
  int64_t state_bytes() const { return is_cuda() ? kCudaRngStateBytes : kRngStateBytes; }

  void set_seed(uint64_t seed);
  uint64_t initial_seed() const { return engine_.seed(); }
  // Reseed from the OS entropy source; returns the new seed.
  uint64_t seed_nondeterministic();

  uint32_t random() { return engine_.next(); }
  uint64_t random64() {
    uint32_t hi = engine_.next();
    uint32_t lo = engine_.next();
    return (static_cast<uint64_t>(hi) << 32) | lo;
  }
  void fill32(uint32_t* out, int64_t n) { engine_.fill(out, n); }
  // n 64-bit draws (each two 32-bit draws, high word first).
  void fill64(uint64_t* out, int64_t n);

  // Box-Muller makes normals in pairs; the second waits here for the next call.
  std::optional<double> next_double_normal;
  std::optional<float> next_float_normal;

  // State as PyTorch's byte layout (state_bytes() bytes: CPU 5056, CUDA seed then offset).
  void get_state(uint8_t* out) const;
  // Raises (RuntimeError, PyTorch's messages) for a wrong size or invalid state.
  void set_state(const uint8_t* in, int64_t nbytes);
  Ref<Generator> clone() const;

 private:
  MT19937 engine_;
  Device device_;
  uint64_t philox_offset_ = 0;
};

// The process-wide default CPU generator (ember.default_generator).
Generator& default_generator();
inline Generator& or_default(Generator* g) { return g ? *g : default_generator(); }
// The default generator of CUDA device `index` (>= 0), made on first use (no CUDA call).
constexpr int kMaxCudaGenerators = 64;
Generator& cuda_default_generator(int index);

}  // namespace ember
