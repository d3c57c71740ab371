// ember's errors from pybind11-bound functions with their Python types (OutOfMemoryError,
// CudaNotCompiledError, ...), as the generated bindings raise them; pybind11 alone would make
// every one a RuntimeError.
#pragma once
#include <pybind11/pybind11.h>

#include "core/error.h"
#include "py_common.h"

namespace ember::python {

template <class F>
auto with_ember_errors(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    set_python_error(e);
    throw pybind11::error_already_set();
  }
}

}  // namespace ember::python
