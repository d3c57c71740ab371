// Op events for ops called from C++ (inside other ops, backward formulas and the engine):
// the generated ag:: wrappers open one per call. Inactive profiler: one branch per op.
#pragma once
#include <initializer_list>
#include <string>

#include "profiler.h"
#include "tensor.h"

namespace ember::profiler {

// An op's inputs as recorded with record_shapes: the Python literal
// "([dims...], [types...], [strides...])", one entry per argument (PyTorch's Input Dims,
// Input type and Input Strides; [] / '' for undefined tensors and other arguments).
class InputsText {
 public:
  void add(const Tensor* t);         // a tensor argument (nullptr / undefined: None)
  void add_other(const char* type);  // a non-tensor argument ("Scalar", "ScalarList", "")
  std::string finish();

 private:
  void sep();
  std::string dims_ = "[", types_ = "[", strides_ = "[";
  bool first_ = true;
};

std::string shapes_of(std::initializer_list<const Tensor*> ts);

// Opens the nested op's range (false: the binding's own event was claimed, nothing opened).
// In grad mode the op may create a graph node, so it carries the next sequence number.
bool open_nested_op(const char* name, std::initializer_list<const Tensor*> ts);

// Installed by the Python layer: attaches the Python stack to the range just opened (with_stack).
using AnnotateHook = void (*)();
void set_annotate_hook(AnnotateHook h);

class NestedOpScope {
 public:
  NestedOpScope(const char* name, std::initializer_list<const Tensor*> ts)
      : on_(active() && open_nested_op(name, ts)) {}
  ~NestedOpScope() {
    if (on_) pop();
  }
  NestedOpScope(const NestedOpScope&) = delete;
  NestedOpScope& operator=(const NestedOpScope&) = delete;

 private:
  bool on_;
};

// An op body calling another op as aten redispatches below autograd: the callee's event nests in
// the caller's and no graph node is made (body() runs the raw op). One branch while no profiler runs.
template <class F>
decltype(auto) nested_op(const char* name, std::initializer_list<const Tensor*> ts, F&& body) {
  NestedOpScope scope(name, ts);
  return body();
}

}  // namespace ember::profiler
