#include "generator.h"

#include <algorithm>
#include <cstring>
#include <random>

#include "error.h"

namespace ember {

namespace {
constexpr uint32_t kMatrixA = 0x9908b0dfu;
constexpr uint32_t kUpper = 0x80000000u;
constexpr uint32_t kLower = 0x7fffffffu;

inline uint32_t twist(uint32_t u, uint32_t v) {
  return (((u & kUpper) | (v & kLower)) >> 1) ^ ((0u - (v & 1u)) & kMatrixA);
}

// The twist and the tempering copy are the whole cost of bulk draws; both
// vectorise, so on x86 build them for AVX2 too and let the loader pick.
#if defined(__x86_64__) || defined(__i386__)
#define EMBER_AVX2_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define EMBER_AVX2_CLONES
#endif

EMBER_AVX2_CLONES void twist_all(uint32_t* s) {
  constexpr int N = MT19937::kN, M = MT19937::kM;
  for (int i = 0; i < N - M; ++i) s[i] = s[i + M] ^ twist(s[i], s[i + 1]);
  for (int i = N - M; i < N - 1; ++i) s[i] = s[i + M - N] ^ twist(s[i], s[i + 1]);
  s[N - 1] = s[M - 1] ^ twist(s[N - 1], s[0]);
}

EMBER_AVX2_CLONES void temper_copy(const uint32_t* __restrict s, uint32_t* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = MT19937::temper(s[i]);
}
}  // namespace

void MT19937::seed_with(uint64_t seed) {
  seed_ = seed;
  seeded_ = true;
  state_[0] = static_cast<uint32_t>(seed & 0xffffffffu);
  for (int j = 1; j < kN; ++j)
    state_[j] = 1812433253u * (state_[j - 1] ^ (state_[j - 1] >> 30)) + static_cast<uint32_t>(j);
  left_ = 1;
  next_ = 0;
}

void MT19937::regenerate() {
  twist_all(state_.data());
  left_ = kN + 1;
  next_ = 0;
}

void MT19937::fill(uint32_t* out, int64_t n) {
  while (n > 0) {
    if (left_ <= 1 || next_ >= kN) regenerate();
    int64_t m = std::min<int64_t>(n, std::min<int64_t>(left_ - 1, kN - next_));
    temper_copy(state_.data() + next_, out, m);
    next_ += static_cast<uint32_t>(m);
    left_ -= static_cast<int32_t>(m);
    out += m;
    n -= m;
  }
}

void MT19937::set_raw(const Raw& r) {
  seed_ = r.seed;
  left_ = r.left;
  seeded_ = r.seeded;
  next_ = r.next;
  state_ = r.state;
}

void Generator::set_seed(uint64_t seed) {
  engine_.seed_with(seed);
  philox_offset_ = 0;
  next_double_normal.reset();
  next_float_normal.reset();
}

uint64_t Generator::seed_nondeterministic() {
  std::random_device rd;
  uint64_t s = (static_cast<uint64_t>(rd()) << 32) | rd();
  set_seed(s);
  return s;
}

void Generator::fill64(uint64_t* out, int64_t n) {
  // Draw 2n words into the same memory, then pair them up (high word first).
  // On little-endian machines a pair read as one u64 has its halves swapped.
  engine_.fill(reinterpret_cast<uint32_t*>(out), 2 * n);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t v;
    std::memcpy(&v, out + i, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    out[i] = (v << 32) | (v >> 32);
#else
    out[i] = v;
#endif
  }
}

// Note [RNG state layout]
// PyTorch's CPUGeneratorImplState, little-endian, 5056 bytes:
//   0 u64 seed | 8 i32 left | 12 i32 seeded | 16 u64 next | 24 u64 state[624]
//   5016 f64 normal_x | 5024 f64 normal_y | 5032 f64 normal_rho | 5040 i32 normal_is_valid
//   5048 f32 next_float_normal | 5052 u8 next_float_normal_valid
// The cached double normal lives in normal_y. Keeping the layout lets a state
// saved by PyTorch restore into ember and back.
namespace {
constexpr size_t kOffSeed = 0, kOffLeft = 8, kOffSeeded = 12, kOffNext = 16, kOffState = 24;
constexpr size_t kOffNormalY = 5024, kOffNormalValid = 5040, kOffFloat = 5048, kOffFloatValid = 5052;

template <class T>
void put(uint8_t* p, size_t off, T v) {
  std::memcpy(p + off, &v, sizeof v);
}
template <class T>
T get(const uint8_t* p, size_t off) {
  T v;
  std::memcpy(&v, p + off, sizeof v);
  return v;
}
}  // namespace

void Generator::set_philox_offset(uint64_t offset) {
  EMBER_CHECK(offset % 4 == 0, "offset must be a multiple of 4");
  philox_offset_ = offset;
}

void Generator::get_state(uint8_t* out) const {
  if (is_cuda()) {  // PyTorch's CUDA layout: u64 seed, i64 offset
    put<uint64_t>(out, 0, engine_.seed());
    put<uint64_t>(out, 8, philox_offset_);
    return;
  }
  std::memset(out, 0, kRngStateBytes);
  MT19937::Raw r = engine_.raw();
  put<uint64_t>(out, kOffSeed, r.seed);
  put<int32_t>(out, kOffLeft, r.left);
  put<int32_t>(out, kOffSeeded, r.seeded ? 1 : 0);
  put<uint64_t>(out, kOffNext, r.next);
  for (int i = 0; i < MT19937::kN; ++i) put<uint64_t>(out, kOffState + 8 * i, r.state[i]);
  if (next_double_normal) {
    put<double>(out, kOffNormalY, *next_double_normal);
    put<int32_t>(out, kOffNormalValid, 1);
  }
  if (next_float_normal) {
    put<float>(out, kOffFloat, *next_float_normal);
    out[kOffFloatValid] = 1;
  }
}

void Generator::set_state(const uint8_t* in, int64_t nbytes) {
  if (is_cuda()) {  // the seed alone (8 bytes) resets the offset, as in PyTorch
    EMBER_CHECK(nbytes == kCudaRngStateBytes || nbytes == 8, "RNG state is wrong size");
    set_seed(get<uint64_t>(in, 0));
    if (nbytes == kCudaRngStateBytes) set_philox_offset(get<uint64_t>(in, 8));
    return;
  }
  EMBER_CHECK(nbytes == kRngStateBytes, "Expected a CPUGeneratorImplState of size ", kRngStateBytes,
              " but found the input RNG state size to be ", nbytes);
  MT19937::Raw r;
  r.seed = get<uint64_t>(in, kOffSeed);
  r.left = get<int32_t>(in, kOffLeft);
  r.seeded = get<int32_t>(in, kOffSeeded) != 0;
  uint64_t next = get<uint64_t>(in, kOffNext);
  EMBER_CHECK(r.seeded && r.left > 0 && r.left <= MT19937::kN && next <= MT19937::kN, "Invalid mt19937 state");
  r.next = static_cast<uint32_t>(next);
  for (int i = 0; i < MT19937::kN; ++i) r.state[i] = static_cast<uint32_t>(get<uint64_t>(in, kOffState + 8 * i));
  engine_.set_raw(r);
  next_double_normal.reset();
  next_float_normal.reset();
  if (get<int32_t>(in, kOffNormalValid)) next_double_normal = get<double>(in, kOffNormalY);
  if (in[kOffFloatValid]) next_float_normal = get<float>(in, kOffFloat);
}

Ref<Generator> Generator::clone() const {
  auto g = make_ref<Generator>();
  g->engine_ = engine_;
  g->device_ = device_;
  g->philox_offset_ = philox_offset_;
  g->next_double_normal = next_double_normal;
  g->next_float_normal = next_float_normal;
  return g;
}

Generator& default_generator() {
  // Leaked on purpose: Python objects may hold it until interpreter teardown.
  static Generator* g = [] {
    auto* p = new Generator();
    p->refcount_.fetch_add(1);
    return p;
  }();
  return *g;
}

Generator& cuda_default_generator(int index) {
  EMBER_CHECK(index >= 0 && index < kMaxCudaGenerators, "Invalid device index ", index);
  // Made once per device and leaked, like the CPU one; the array's slots are set under a lock.
  static std::mutex m;
  static Generator* gens[kMaxCudaGenerators] = {};
  std::lock_guard<std::mutex> lock(m);
  if (!gens[index]) {
    gens[index] = new Generator(Device{DeviceType::CUDA, static_cast<int8_t>(index)});
    gens[index]->refcount_.fetch_add(1);
  }
  return *gens[index];
}

}  // namespace ember
