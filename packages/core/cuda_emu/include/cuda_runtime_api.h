// The CUDA emulator's runtime API (a development tool, never shipped): the part of cudart that
// ember's CUDA backend calls, run on the host. Device memory is host memory the host cannot touch
// (mapped PROT_NONE outside device work), streams queue their work until something waits on it,
// and kernels run as fibers (src/scheduler.cpp). See cuda_emu/README.md.
#pragma once
#include <cstddef>
#include <cstdint>

enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorLaunchFailure = 719,
};
typedef enum cudaError cudaError_t;

typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaMemoryType {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3,
};

struct cudaPointerAttributes {
  enum cudaMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
};

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int major;
  int minor;
  int multiProcessorCount;
};

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaEventInterprocess 0x04
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02

#define EMU_API extern "C" __attribute__((visibility("default")))
#define EMU_EXPORT __attribute__((visibility("default")))

EMU_API cudaError_t cudaGetDeviceCount(int* count);
EMU_API cudaError_t cudaGetDevice(int* device);
EMU_API cudaError_t cudaSetDevice(int device);
EMU_API cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
EMU_API cudaError_t cudaDeviceSynchronize(void);
EMU_API cudaError_t cudaDriverGetVersion(int* version);
EMU_API cudaError_t cudaRuntimeGetVersion(int* version);
EMU_API cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest);
EMU_API cudaError_t cudaMemGetInfo(size_t* free, size_t* total);
EMU_API cudaError_t cudaDeviceCanAccessPeer(int* can_access, int device, int peer_device);

EMU_API cudaError_t cudaGetLastError(void);
EMU_API cudaError_t cudaPeekAtLastError(void);
EMU_API const char* cudaGetErrorString(cudaError_t error);
EMU_API const char* cudaGetErrorName(cudaError_t error);

EMU_API cudaError_t cudaMalloc(void** p, size_t size);
EMU_API cudaError_t cudaFree(void* p);
EMU_API cudaError_t cudaHostAlloc(void** p, size_t size, unsigned flags);
EMU_API cudaError_t cudaMallocHost(void** p, size_t size);
EMU_API cudaError_t cudaHostGetDevicePointer(void** device, void* host, unsigned flags);
EMU_API cudaError_t cudaFreeHost(void* p);
EMU_API cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attr, const void* p);

EMU_API cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, enum cudaMemcpyKind kind);
EMU_API cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, enum cudaMemcpyKind kind, cudaStream_t s);
EMU_API cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t n,
                                        cudaStream_t s);
EMU_API cudaError_t cudaMemset(void* p, int value, size_t n);
EMU_API cudaError_t cudaMemsetAsync(void* p, int value, size_t n, cudaStream_t s);

EMU_API cudaError_t cudaStreamCreate(cudaStream_t* s);
EMU_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags);
EMU_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned flags, int priority);
EMU_API cudaError_t cudaStreamDestroy(cudaStream_t s);
EMU_API cudaError_t cudaStreamSynchronize(cudaStream_t s);
EMU_API cudaError_t cudaStreamQuery(cudaStream_t s);
EMU_API cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags);

EMU_API cudaError_t cudaEventCreate(cudaEvent_t* e);
EMU_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned flags);
EMU_API cudaError_t cudaEventDestroy(cudaEvent_t e);
EMU_API cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
EMU_API cudaError_t cudaEventQuery(cudaEvent_t e);
EMU_API cudaError_t cudaEventSynchronize(cudaEvent_t e);
EMU_API cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);

// ---- the emulator's own entry points (for the kernel launcher and the cuBLAS stand-in) ----
namespace emu {

// Work queued on a stream: run later, when something waits for it (or at once with
// EMBER_CUDA_EMU_EAGER=1), with device memory accessible.
struct Work {
  virtual ~Work() = default;
  virtual void run() = 0;
};
// Queues work on s (0: the current device's default stream); the emulator owns it after.
EMU_EXPORT cudaError_t enqueue(cudaStream_t s, Work* work, const char* what);
// Whether [p, p + n) lies inside one live device allocation (for the cuBLAS stand-in's checks).
EMU_EXPORT bool is_device_range(const void* p, size_t n);
// One line (`kind what n`: bytes, or a launch's threads) to EMBER_CUDA_EMU_TRACE where set: each launch, copy, memset,
// allocation, synchronisation and cuBLAS call, to count what a step asks of the device.
EMU_EXPORT void trace(const char* kind, const char* what, size_t bytes = 0);

}  // namespace emu
