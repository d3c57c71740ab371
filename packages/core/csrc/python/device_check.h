// PyTorch's check that an op's tensor arguments share one device, for the ops whose bodies do not
// run the elementwise iterator (which checks its operands itself): the common device is the first
// one that is not the CPU, and a CPU 0-d tensor (a number, in effect) may join any device. The
// generated bindings call it with the positions of their Tensor and Tensor[] arguments (out= too).
#pragma once
#include <initializer_list>
#include <optional>

#include "arg_parser.h"
#include "py_tensor.h"

namespace ember::python {

template <class F>
void for_each_tensor_arg(const ParsedArgs& A, std::initializer_list<int> idx, const F& f) {
  for (int i : idx) {
    PyObject* o = A.obj[i];
    if (!o) continue;
    if (is_tensor(o)) {
      f(unpack(o));
    } else if (PyList_Check(o) || PyTuple_Check(o)) {
      PyObject** items = PySequence_Fast_ITEMS(o);
      for (Py_ssize_t k = 0, n = PySequence_Fast_GET_SIZE(o); k < n; ++k)
        if (is_tensor(items[k])) f(unpack(items[k]));
    }
  }
}

// for_each(f) calls f on each tensor argument.
template <class ForEach>
void check_one_device(const ForEach& for_each) {
  Device common = cpu_device();
  std::optional<Device> first;
  for_each([&](const Tensor& t) {
    if (!first) first = t.device();
    if (common.is_cpu()) common = t.device();
  });
  if (common.is_cpu()) return;  // all on the CPU: the usual case, one pass
  for_each([&](const Tensor& t) {
    if (t.device() != common && !(t.dim() == 0 && t.device().is_cpu())) fail_two_devices(common, t.device(), *first);
  });
}

inline void check_same_device(const ParsedArgs& A, std::initializer_list<int> idx) {
  check_one_device([&](const auto& f) { for_each_tensor_arg(A, idx, f); });
}

// The operators that skip the generated bindings (x @ y) check their operands here.
inline void check_same_device(const Tensor& a, const Tensor& b) {
  check_one_device([&](const auto& f) {
    f(a);
    f(b);
  });
}

}  // namespace ember::python
