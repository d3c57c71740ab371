// ember.cuda's streams and events over the runtime (kernels/cuda/cuda_runtime_api.h). Pool streams
// are created non-blocking, as PyTorch's: work on them does not wait for the default stream, so a
// user orders the two with wait_stream / events, as in PyTorch.
#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "kernels/cuda/cuda_runtime_api.h"
#include "kernels/cuda/device_error.h"
#include "kernels/cuda/device_of.h"
#include "kernels/cuda/stream.h"

namespace ember {

namespace {

constexpr int kPoolSize = 32;

cudaStream_t as_stream(int64_t s) { return reinterpret_cast<cudaStream_t>(s); }
cudaEvent_t as_event(int64_t e) { return reinterpret_cast<cudaEvent_t>(e); }

// One device's pool: kPoolSize streams of each priority, made on first use, handed out in turn.
struct StreamPool {
  std::once_flag made[2];
  std::array<cudaStream_t, kPoolSize> streams[2] = {};
  std::atomic<unsigned> next[2] = {0, 0};
};

StreamPool& pool(int device) {
  static std::mutex mu;
  static auto* pools = new std::vector<std::unique_ptr<StreamPool>>();  // leaked: streams live for the process
  const std::lock_guard<std::mutex> g(mu);
  if (pools->size() <= size_t(device)) pools->resize(size_t(device) + 1);
  auto& p = (*pools)[size_t(device)];
  if (!p) p = std::make_unique<StreamPool>();
  return *p;
}

}  // namespace

std::pair<int, int> cuda_stream_priority_range() {
  cuda_device_index(-1);  // initialises CUDA, or raises PyTorch's error
  int least = 0, greatest = 0;
  cuda::check_cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  return {least, greatest};
}

int64_t cuda_stream_from_pool(int device, int priority) {
  device = cuda_device_index(device);
  StreamPool& p = pool(device);
  const int high = priority < 0 ? 1 : 0;
  std::call_once(p.made[high], [&] {
    const cuda::LaunchDevice on(device);
    int least = 0, greatest = 0;
    cuda::check_cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
    for (auto& s : p.streams[high])
      cuda::check_cuda(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, high ? greatest : least),
                       "cudaStreamCreate");
  });
  return reinterpret_cast<int64_t>(p.streams[high][p.next[high]++ % kPoolSize]);
}

int64_t cuda_current_stream(int device) {
  return reinterpret_cast<int64_t>(cuda::current_stream(cuda_device_index(device)));
}

void cuda_set_current_stream(int device, int64_t stream) {
  cuda::set_current_stream(cuda_device_index(device), as_stream(stream));
}

bool cuda_stream_query(int device, int64_t stream) {
  const cuda::LaunchDevice on(cuda_device_index(device));
  return cuda::query_done(cudaStreamQuery(as_stream(stream)), "cudaStreamQuery");
}

void cuda_stream_synchronize(int device, int64_t stream) {
  const cuda::LaunchDevice on(cuda_device_index(device));
  cuda::check_cuda(cudaStreamSynchronize(as_stream(stream)), "cudaStreamSynchronize");
  cuda::raise_device_errors();
}

void cuda_stream_wait_event(int device, int64_t stream, int64_t event) {
  const cuda::LaunchDevice on(cuda_device_index(device));
  cuda::check_cuda(cudaStreamWaitEvent(as_stream(stream), as_event(event), 0), "cudaStreamWaitEvent");
}

int64_t cuda_event_create(int device, bool enable_timing, bool blocking, bool interprocess) {
  const cuda::LaunchDevice on(cuda_device_index(device));
  unsigned flags = enable_timing ? cudaEventDefault : cudaEventDisableTiming;
  if (blocking) flags |= cudaEventBlockingSync;
  if (interprocess) flags |= cudaEventInterprocess;
  cudaEvent_t e = nullptr;
  cuda::check_cuda(cudaEventCreateWithFlags(&e, flags), "cudaEventCreate");
  return reinterpret_cast<int64_t>(e);
}

void cuda_event_destroy(int device, int64_t event) {
  const cuda::LaunchDevice on(cuda_device_index(device));
  cudaEventDestroy(as_event(event));  // a failure here has nobody to tell (a finaliser)
}

void cuda_event_record(int device, int64_t event, int64_t stream) {
  const cuda::LaunchDevice on(cuda_device_index(device));
  cuda::check_cuda(cudaEventRecord(as_event(event), as_stream(stream)), "cudaEventRecord");
}

bool cuda_event_query(int64_t event) { return cuda::query_done(cudaEventQuery(as_event(event)), "cudaEventQuery"); }

void cuda_event_synchronize(int64_t event) {
  cuda::check_cuda(cudaEventSynchronize(as_event(event)), "cudaEventSynchronize");
  cuda::raise_device_errors();
}

double cuda_event_elapsed_ms(int64_t start, int64_t end) {
  float ms = 0;
  cuda::check_cuda(cudaEventElapsedTime(&ms, as_event(start), as_event(end)), "cudaEventElapsedTime");
  return ms;
}

}  // namespace ember
