// ember.cuda's link to the CUDA backend (kernels/cuda/cuda_runtime_api.h) and Tensor.to(device)'s
// copy; ember/cuda/__init__.py and ember/_device_move.py give them PyTorch's Python shape.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "kernels/cuda/cuda_runtime_api.h"
#include "kernels/device_transfer.h"
#include "ops/core/internal.h"
#include "py_generator.h"
#include "py_tensor.h"
#include "py_types.h"
#include "pybind_errors.h"

namespace py = pybind11;

namespace ember::python {

namespace {
// dlopen's fallback for the CUDA libraries ember opens at run time (cuBLAS): NVIDIA's pip packages
// on sys.path, through ember.cuda._libraries.locate ("" when not there or on any Python error).
std::string locate_in_python_packages(const std::string& soname) {
  const py::gil_scoped_acquire gil;
  try {
    return py::module_::import("ember.cuda._libraries").attr("locate")(soname).cast<std::string>();
  } catch (py::error_already_set&) {
    return "";
  }
}
// Streams and events by their handles (ember/cuda/streams.py wraps them as torch.cuda's classes).
void init_cuda_streams(py::module_& m) {
  m.def("_cuda_stream_from_pool",
        [](int d, int priority) { return with_ember_errors([&] { return cuda_stream_from_pool(d, priority); }); });
  m.def("_cuda_current_stream", [](int d) { return with_ember_errors([&] { return cuda_current_stream(d); }); });
  m.def("_cuda_set_current_stream",
        [](int d, int64_t s) { with_ember_errors([&] { cuda_set_current_stream(d, s); }); });
  m.def("_cuda_stream_query",
        [](int d, int64_t s) { return with_ember_errors([&] { return cuda_stream_query(d, s); }); });
  // the GIL is released inside the error scope, so it is held again when an error is set
  m.def("_cuda_stream_synchronize", [](int d, int64_t s) {
    with_ember_errors([&] {
      const py::gil_scoped_release nogil;
      cuda_stream_synchronize(d, s);
    });
  });
  m.def("_cuda_stream_wait_event",
        [](int d, int64_t s, int64_t e) { with_ember_errors([&] { cuda_stream_wait_event(d, s, e); }); });
  m.def("_cuda_stream_priority_range", [] { return with_ember_errors([] { return cuda_stream_priority_range(); }); });
  m.def("_cuda_event_create", [](int d, bool timing, bool blocking, bool interprocess) {
    return with_ember_errors([&] { return cuda_event_create(d, timing, blocking, interprocess); });
  });
  m.def("_cuda_event_destroy", [](int d, int64_t e) { cuda_event_destroy(d, e); });
  m.def("_cuda_event_record",
        [](int d, int64_t e, int64_t s) { with_ember_errors([&] { cuda_event_record(d, e, s); }); });
  m.def("_cuda_event_query", [](int64_t e) { return with_ember_errors([&] { return cuda_event_query(e); }); });
  m.def("_cuda_event_synchronize", [](int64_t e) {
    with_ember_errors([&] {
      const py::gil_scoped_release nogil;
      cuda_event_synchronize(e);
    });
  });
  m.def("_cuda_event_elapsed_ms",
        [](int64_t a, int64_t b) { return with_ember_errors([&] { return cuda_event_elapsed_ms(a, b); }); });
  m.def("_cuda_record_stream", [](py::handle t, int64_t s) {
    if (!is_tensor(t.ptr())) throw py::type_error("record_stream: expected a Tensor");
    const Tensor& x = unpack(t.ptr());
    with_ember_errors([&] { cuda_record_stream(x.storage().data, x.device().index, s); });
  });
  m.def("_cuda_mem_get_info", [](int d) { return with_ember_errors([&] { return cuda_mem_get_info(d); }); });
}
}  // namespace

void init_cuda(py::module_& m) {
  cuda::set_library_locator(&locate_in_python_packages);
  m.def("_cuda_device_count", &cuda_device_count);
  m.def("_cuda_set_allow_tf32", &cuda::set_allow_tf32);
  m.def("_cuda_set_conv_allow_tf32", &cuda::set_conv_allow_tf32);
  m.def("_cuda_is_initialized", &cuda_is_initialized);
  m.def("_cuda_empty_cache", &cuda_empty_cache);
  m.def("_cuda_current_device", [] { return with_ember_errors([] { return cuda_device_index(-1); }); });
  m.def("_cuda_set_device", [](int i) { with_ember_errors([&] { cuda_set_device(i); }); });
  m.def("_cuda_synchronize", [](int i) { with_ember_errors([&] { cuda_synchronize(i); }); });
  m.def("_cuda_device_properties", [](int i) {
    return with_ember_errors([&] {
      const CudaDeviceProperties p = cuda_device_properties(i);
      return py::make_tuple(p.name, p.major, p.minor, p.multi_processor_count, p.total_memory);
    });
  });
  m.def("_cuda_memory_stats", [](int i) {
    return with_ember_errors([&] {
      py::dict d;
      for (const auto& [k, v] : cuda_memory_stats(i)) d[py::str(k)] = v;
      return d;
    });
  });
  m.def("_cuda_reset_peak_memory_stats", [](int i) { with_ember_errors([&] { cuda_reset_peak_memory_stats(i); }); });
  m.def("_cuda_reset_accumulated_memory_stats",
        [](int i) { with_ember_errors([&] { cuda_reset_accumulated_memory_stats(i); }); });
  m.def("_cuda_set_memory_fraction",
        [](double f, int i) { with_ember_errors([&] { cuda_set_memory_fraction(f, i); }); });
  m.def("_cuda_get_memory_fraction",
        [](int i) { return with_ember_errors([&] { return cuda_get_memory_fraction(i); }); });
  m.def("_cuda_can_device_access_peer",
        [](int d, int p) { return with_ember_errors([&] { return cuda_can_device_access_peer(d, p); }); });
  m.def("_cuda_arch_list", &cuda_arch_list);
  m.def("_cuda_toolkit_version", &cuda_toolkit_version);
  m.def("_cuda_error_string", &cuda_error_string);
  m.def("_cuda_host_memory_stats", &pinned_memory_stats);
  m.def("_cuda_reset_peak_host_memory_stats", &pinned_reset_peak_stats);
  m.def("_cuda_reset_accumulated_host_memory_stats", &pinned_reset_accumulated_stats);
  m.def("_cuda_set_sync_debug_mode", [](int mode) { with_ember_errors([&] { cuda_set_sync_debug_mode(mode); }); });
  m.def("_cuda_get_sync_debug_mode", [] { return with_ember_errors([] { return cuda_get_sync_debug_mode(); }); });
  m.def("_cuda_nvtx_range_push", &cuda_nvtx_range_push);
  m.def("_cuda_nvtx_range_pop", &cuda_nvtx_range_pop);
  m.def("_cuda_nvtx_range_start", &cuda_nvtx_range_start);
  m.def("_cuda_nvtx_range_end", &cuda_nvtx_range_end);
  m.def("_cuda_nvtx_mark", &cuda_nvtx_mark);
  m.def(
      "_cuda_default_generator",
      [](int i) {
        return with_ember_errors(
            [&] { return py::reinterpret_steal<py::object>(cuda_default_generator_object(cuda_device_index(i))); });
      },
      "Device i's default CUDA generator (-1: the current device's).");
  m.def(
      "_to_device",
      [](py::handle t, py::handle device, bool non_blocking) {
        if (!is_tensor(t.ptr())) throw py::type_error("_to_device: expected a Tensor");
        const Device d = parse_device(device.ptr());
        return with_ember_errors(
            [&] { return py::reinterpret_steal<py::object>(wrap(to_device(unpack(t.ptr()), d, non_blocking))); });
      },
      py::arg("t"), py::arg("device"), py::arg("non_blocking") = false,
      "A copy of the tensor on `device` (Tensor.to(device)'s move; autograd is in ember/_device_move.py).");
  m.def("_pin_memory", [](py::handle t) {
    if (!is_tensor(t.ptr())) throw py::type_error("pin_memory: expected a Tensor");
    return with_ember_errors([&] { return py::reinterpret_steal<py::object>(wrap(pin_memory(unpack(t.ptr())))); });
  });
  m.def("_is_pinned", [](py::handle t) {
    if (!is_tensor(t.ptr())) throw py::type_error("is_pinned: expected a Tensor");
    return tensor_is_pinned(unpack(t.ptr()));
  });
  init_cuda_streams(m);
}

}  // namespace ember::python
