// Op events for the profiler at the binding layer, where the op's name and its
// Python arguments are at hand. Inactive profiler: one branch per op.
#pragma once
#include <initializer_list>

#include "../core/profiler_op.h"
#include "py_common.h"

namespace ember::python {

std::string shapes_of(PyObject* self, PyObject* const* args, Py_ssize_t nargs);
std::string shapes_of(std::initializer_list<const Tensor*> ts);
// with_stack / with_flops extras for the op just pushed (needs the GIL; a no-op without it).
void annotate_op(PyObject* self, PyObject* const* args, Py_ssize_t nargs);
void annotate_op(std::initializer_list<const Tensor*> ts);

// Pushes an op event with its arguments' shapes and with_stack / with_flops extras (profiler active).
inline void push_op(const char* name, PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  profiler::push_binding_op(name, profiler::config().record_shapes ? shapes_of(self, args, nargs) : std::string(),
                            profiler::peek_seq());
  if (profiler::config().with_stack || profiler::config().with_flops) annotate_op(self, args, nargs);
}

class OpScope {
 public:
  OpScope(const char* name, PyObject* self, PyObject* const* args, Py_ssize_t nargs) : on_(profiler::active()) {
    if (on_) push_op(name, self, args, nargs);
  }
  OpScope(const char* name, std::initializer_list<const Tensor*> ts) : on_(profiler::active()) {
    if (on_)
      profiler::push_binding_op(name, profiler::config().record_shapes ? shapes_of(ts) : std::string(),
                                profiler::peek_seq());
    if (on_ && profiler::config().with_stack) annotate_op(ts);
  }
  ~OpScope() {
    if (on_) profiler::pop();
  }
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;

 private:
  bool on_;
};

void init_profiler(PyObject* module);

}  // namespace ember::python
