#include "cpu_capability.h"

#include <cstdlib>
#include <cstring>

namespace ember {
namespace {

CpuCapability detect() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return CpuCapability::Default;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"))
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

}  // namespace

CpuCapability cpu_capability() {
  static const CpuCapability cap = capped(detect());
  return cap;
}

}  // namespace ember
