// The device caching allocator (core/caching_allocator.h) over host memory, for the tests: the
// allocator's logic (pools, splitting, merging, stream-aware reuse, retry on out-of-memory,
// statistics) checked where no GPU exists. `capacity` plays the device's memory; a stream's
// queued work completes when the test says so (complete_stream / synchronize).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <map>
#include <string>

#include "core/caching_allocator.h"
#include "core/error.h"
#include "kernels/cuda/cuda_runtime_api.h"
#include "pybind_errors.h"

namespace py = pybind11;

namespace ember::python {
namespace {

class HostMemoryDevice : public DeviceMemory {
 public:
  explicit HostMemoryDevice(size_t capacity) : capacity_(capacity) {}
  void* raw_alloc(size_t n) override {
    if (n > capacity_ - used_) return nullptr;
    void* p = std::malloc(n);
    if (!p) return nullptr;
    used_ += n;
    sizes_[p] = n;
    return p;
  }
  void raw_free(void* p) override {
    used_ -= sizes_.at(p);
    sizes_.erase(p);
    std::free(p);
  }
  int64_t record_event(StreamId s) override {
    events_[next_event_] = {s, ++queued_[s]};
    return next_event_++;
  }
  bool event_done(int64_t e) override {
    auto [s, seq] = events_.at(e);
    const bool done = done_[s] >= seq;
    if (done) events_.erase(e);
    return done;
  }
  void synchronize() override {
    for (auto& [s, q] : queued_) done_[s] = q;
  }
  void complete_stream(StreamId s) { done_[s] = queued_[s]; }
  size_t total_memory() const override { return capacity_; }
  size_t free_memory() const override { return capacity_ - used_; }
  int device_index() const override { return 0; }
  size_t used() const { return used_; }

 private:
  size_t capacity_, used_ = 0;
  std::map<void*, size_t> sizes_;
  std::map<StreamId, int64_t> queued_, done_;
  std::map<int64_t, std::pair<StreamId, int64_t>> events_;
  int64_t next_event_ = 0;
};

struct MockAllocator {
  HostMemoryDevice* device;  // owned by alloc
  CachingAllocator alloc;
  explicit MockAllocator(size_t capacity) : MockAllocator(new HostMemoryDevice(capacity)) {}

 private:
  explicit MockAllocator(HostMemoryDevice* d) : device(d), alloc(std::unique_ptr<DeviceMemory>(d)) {}
};

uintptr_t addr(void* p) { return reinterpret_cast<uintptr_t>(p); }

// memory_snapshot's segments as PyTorch's dicts (no allocation traces: frames stay empty).
py::list snapshot_list(const std::vector<SnapshotSegment>& segments, int device) {
  py::list out;
  for (const SnapshotSegment& s : segments) {
    py::list blocks;
    for (const SnapshotBlock& b : s.blocks)
      blocks.append(py::dict(py::arg("address") = b.address, py::arg("size") = b.size,
                             py::arg("requested_size") = b.requested, py::arg("state") = b.state,
                             py::arg("frames") = py::list()));
    out.append(py::dict(py::arg("device") = device, py::arg("address") = s.address,
                        py::arg("total_size") = s.total_size, py::arg("allocated_size") = s.allocated_size,
                        py::arg("active_size") = s.active_size, py::arg("requested_size") = s.requested_size,
                        py::arg("stream") = s.stream, py::arg("segment_type") = s.small ? "small" : "large",
                        py::arg("segment_pool_id") = py::make_tuple(0, 0), py::arg("is_expandable") = false,
                        py::arg("frames") = py::list(), py::arg("blocks") = blocks));
  }
  return out;
}
void* ptr(uintptr_t a) { return reinterpret_cast<void*>(a); }

}  // namespace

void init_caching_allocator(py::module_& m) {
  py::class_<MockAllocator>(m, "_HostCachingAllocator",
                            "The device caching allocator over `capacity` bytes of host memory (for tests).")
      .def(py::init<size_t>(), py::arg("capacity"))
      .def(
          "allocate",
          [](MockAllocator& a, size_t n, StreamId s) {
            return with_ember_errors([&] { return addr(a.alloc.allocate(n, s)); });
          },
          py::arg("nbytes"), py::arg("stream") = 0)
      .def("free", [](MockAllocator& a, uintptr_t p) { with_ember_errors([&] { a.alloc.free(ptr(p)); }); })
      .def("record_stream", [](MockAllocator& a, uintptr_t p,
                               StreamId s) { with_ember_errors([&] { a.alloc.record_stream(ptr(p), s); }); })
      .def("allocated_size",
           [](MockAllocator& a, uintptr_t p) {
             return with_ember_errors([&] { return a.alloc.allocated_size(ptr(p)); });
           })
      .def("complete_stream", [](MockAllocator& a, StreamId s) { a.device->complete_stream(s); })
      .def("synchronize", [](MockAllocator& a) { a.device->synchronize(); })
      .def("empty_cache", [](MockAllocator& a) { a.alloc.empty_cache(); })
      .def("device_used", [](MockAllocator& a) { return a.device->used(); })
      .def("memory_stats",
           [](MockAllocator& a) {
             py::dict d;
             for (const auto& [k, v] : memory_stats_items(a.alloc.stats(), a.alloc.max_split_size())) d[py::str(k)] = v;
             return d;
           })
      .def("reset_peak_memory_stats", [](MockAllocator& a) { a.alloc.reset_peak_stats(); })
      .def("reset_accumulated_memory_stats", [](MockAllocator& a) { a.alloc.reset_accumulated_stats(); })
      .def("set_memory_fraction", [](MockAllocator& a, double f) { a.alloc.set_memory_fraction(f); })
      .def("memory_fraction", [](MockAllocator& a) { return a.alloc.memory_fraction(); })
      .def("set_max_split_size", [](MockAllocator& a, size_t n) { a.alloc.set_max_split_size(n); })
      .def("memory_snapshot", [](MockAllocator& a) { return snapshot_list(a.alloc.snapshot(), 0); });
  m.def("_cuda_memory_snapshot", [](int device) {
    return with_ember_errors([&] { return snapshot_list(cuda_memory_snapshot(device), device); });
  });
  m.def("_cuda_alloc_conf_max_split_size", [](const std::string& conf) {
    return with_ember_errors([&] {
      const size_t n = max_split_size_from_config(conf.c_str());
      return n == SIZE_MAX ? int64_t(-1) : static_cast<int64_t>(n);
    });
  });
}

}  // namespace ember::python
