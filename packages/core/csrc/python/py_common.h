// Shared pieces of the binding layer: error translation and object types.
#pragma once
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <exception>

#include "../core/error.h"
#include "../core/tensor.h"

namespace ember::python {

// Thrown when a Python error is already set (the C++ stack just unwinds).
struct python_error : std::exception {};

// Exception classes created at module init (LinAlgError, the no-CUDA error).
extern PyObject* g_linalg_error;
extern PyObject* g_no_cuda_error;

void set_python_error(const ember::Error& e);

}  // namespace ember::python

#define EMBER_PY_TRY try {
#define EMBER_PY_CATCH                                                                              \
  }                                                                                                 \
  catch (const ::ember::python::python_error&) {                                                    \
    return nullptr;                                                                                 \
  }                                                                                                 \
  catch (const ::ember::Error& e) {                                                                 \
    ::ember::python::set_python_error(e);                                                           \
    return nullptr;                                                                                 \
  }                                                                                                 \
  catch (const std::bad_alloc&) {                                                                   \
    ::ember::python::set_python_error(                                                              \
        ::ember::Error(::ember::ErrorKind::OutOfMemory, "DefaultCPUAllocator: not enough memory")); \
    return nullptr;                                                                                 \
  }                                                                                                 \
  catch (const std::exception& e) {                                                                 \
    PyErr_SetString(PyExc_RuntimeError, e.what());                                                  \
    return nullptr;                                                                                 \
  }
#define EMBER_PY_CATCH_INT                         \
  }                                                \
  catch (const ::ember::python::python_error&) {   \
    return -1;                                     \
  }                                                \
  catch (const ::ember::Error& e) {                \
    ::ember::python::set_python_error(e);          \
    return -1;                                     \
  }                                                \
  catch (const std::exception& e) {                \
    PyErr_SetString(PyExc_RuntimeError, e.what()); \
    return -1;                                     \
  }
