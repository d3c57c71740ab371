// The emulator's stand-in for NVTX (nvtx3/nvToolsExt.h, header-only in the CUDA toolkit): the calls
// ember makes, answering as NVTX does with no profiling tool attached (the ranges go nowhere).
#pragma once
#include <cstdint>

typedef uint64_t nvtxRangeId_t;
#define NVTX_NO_PUSH_POP_TRACKING ((int)-2)

inline int nvtxRangePushA(const char*) { return NVTX_NO_PUSH_POP_TRACKING; }
inline int nvtxRangePop(void) { return NVTX_NO_PUSH_POP_TRACKING; }
inline nvtxRangeId_t nvtxRangeStartA(const char*) { return 0; }
inline void nvtxRangeEnd(nvtxRangeId_t) {}
inline void nvtxMarkA(const char*) {}
