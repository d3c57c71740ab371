#include "cpu_capability.h"
#include "cpu_bf16.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#define EMBER_CPUID_EXTENSIONS 1
#endif

namespace ember {
namespace {

CpuCapability detect() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return CpuCapability::Default;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw"))
    return CpuCapability::Avx512;
  return CpuCapability::Avx2;
#else
  return CpuCapability::Default;
#endif
}

CpuCapability capped(CpuCapability have) {
  const char* env = std::getenv("EMBER_CPU_CAPABILITY");
  if (!env) return have;
  CpuCapability want = have;
  if (!std::strcmp(env, "default")) want = CpuCapability::Default;
  else if (!std::strcmp(env, "avx2")) want = CpuCapability::Avx2;
  return want < have ? want : have;  // never above what the CPU has
}

// The EMBER_CPU_CAPABILITY levels above "avx512": 0 none of the bfloat16 extensions,
// 1 AVX512-BF16, 2 AVX512-BF16 and AMX.
int extension_cap() {
  const char* env = std::getenv("EMBER_CPU_CAPABILITY");
  if (!env || !std::strcmp(env, "amx")) return 2;
  if (!std::strcmp(env, "avx512_bf16")) return 1;
  return std::strcmp(env, "avx512") && std::strcmp(env, "avx2") && std::strcmp(env, "default") ? 2 : 0;
}

#ifdef EMBER_CPUID_EXTENSIONS
bool cpuid_bit(unsigned leaf, unsigned sub, int reg, int bit) {
  unsigned r[4] = {0, 0, 0, 0};
  if (!__get_cpuid_count(leaf, sub, &r[0], &r[1], &r[2], &r[3])) return false;
  return (r[reg] >> bit) & 1u;
}
// The OS saves the tile state (XCR0 bits 17 and 18) and lets this process use it: Linux
// hands out the tile data area only on request (ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA).
bool amx_permitted() {
  if (!cpuid_bit(1, 0, 2, 27)) return false;  // OSXSAVE: xgetbv is there
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & (3u << 17)) != (3u << 17)) return false;
  constexpr long kReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtiledata) == 0;
}
#endif

}  // namespace

CpuCapability cpu_capability() {
  static const CpuCapability cap = capped(detect());
  return cap;
}

bool cpu_hardware_has_avx512() {
  static const bool has = detect() == CpuCapability::Avx512;
  return has;
}

bool cpu_has_avx512_bf16() {
#ifdef EMBER_CPUID_EXTENSIONS
  static const bool has = cpu_has_avx512() && extension_cap() >= 1 && cpuid_bit(7, 1, 0, 5);
  return has;
#else
  return false;
#endif
}

bool cpu_has_amx_bf16() {
#ifdef EMBER_CPUID_EXTENSIONS
  // leaf 7 EDX: AMX-BF16 bit 22, AMX-TILE bit 24
  static const bool has = cpu_has_avx512_bf16() && extension_cap() >= 2 && cpuid_bit(7, 0, 3, 22) &&
                          cpuid_bit(7, 0, 3, 24) && amx_permitted();
  return has;
#else
  return false;
#endif
}

}  // namespace ember
