// The autograd graph: nodes (one per differentiable op call), the edges that
// point from a node to the nodes of its inputs, saved tensors, and hooks.
// The graph is Python-free; the binding layer implements hooks and custom
// Functions by subclassing the hook and Node types.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "../core/tensor.h"
#include "../ops/core/checks.h"  // check_inplace: the in-place rules wrappers run
#include "grad_mode.h"

namespace ember {

struct Node;

// Where a gradient goes: input slot `input_nr` of node `fn`.
struct Edge {
  Ref<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return static_cast<bool>(fn); }
};

// Shape and dtype of a forward output: the gradient arriving for it must match.
struct InputMeta {
  DimVector shape;
  ScalarType dtype = ScalarType::Float32;
  bool defined = false;
};

// Hooks. The binding layer implements them in Python.
struct TensorHook : RefCounted {
  // Returns a replacement gradient, or an undefined tensor to keep it.
  virtual Tensor call(const Tensor& grad) = 0;
};
struct PreHook : RefCounted {
  // Returns replacement gradients (empty list: keep them).
  virtual TensorList call(const TensorList& grad_outputs) = 0;
};
struct PostHook : RefCounted {
  virtual TensorList call(const TensorList& grad_inputs, const TensorList& grad_outputs) = 0;
};

struct Node : RefCounted {
  uint64_t seq_nr;
  std::vector<Edge> next_edges;       // one per forward input
  std::vector<InputMeta> input_meta;  // one per forward output
  std::vector<std::pair<int64_t, Ref<PreHook>>> pre_hooks;
  std::vector<std::pair<int64_t, Ref<PostHook>>> post_hooks;
  // Hooks of non-leaf tensors, keyed by the tensor's output_nr.
  std::vector<std::tuple<int64_t, uint32_t, Ref<TensorHook>>> tensor_hooks;
  // Non-leaf tensors that retain their grad (weak: the tensor unregisters on death).
  std::vector<std::pair<uint32_t, TensorImpl*>> retains_grad;
  std::string trace;          // forward stack, recorded in anomaly mode
  PyObject* pyobj = nullptr;  // weak: the Python wrapper, if one exists

  Node();
  ~Node() override;
  virtual const char* name() const = 0;
  // Gradients of the forward outputs in, gradients of the forward inputs out.
  virtual TensorList apply(TensorList& grads) = 0;
  // Free saved tensors (after a backward without retain_graph).
  virtual void release_variables() {}
  // Python Function nodes own a Python object; the binding layer uses this.
  virtual PyObject* py_function() const { return nullptr; }

  bool should_compute(size_t i) const { return i < next_edges.size() && next_edges[i].valid(); }
  uint32_t add_input_meta(const Tensor& t);
  void add_input_meta_undefined() { input_meta.emplace_back(); }
  void set_next_edges(std::initializer_list<const Tensor*> inputs);
  void add_next_edge(const Tensor* t);
};

// The edge a gradient for `t` should flow along (its grad_fn, or its leaf accumulator).
Edge gradient_edge(const Tensor& t);

// Accumulates into a leaf's .grad. Holds the leaf; the leaf points back weakly.
struct AccumulateGrad final : Node {
  Tensor variable;
  explicit AccumulateGrad(Tensor v);
  ~AccumulateGrad() override;
  const char* name() const override { return "torch::autograd::AccumulateGrad"; }
  TensorList apply(TensorList& grads) override;
};

// A node that raises when reached: for outputs whose derivative is missing.
struct NotImplementedBackward final : Node {
  const char* op;
  explicit NotImplementedBackward(const char* op_name) : op(op_name) {}
  const char* name() const override { return "NotImplemented"; }
  TensorList apply(TensorList& grads) override;
};

// What saved_tensors_hooks' pack returned; unpack() gives the tensor back.
struct PackedSaved : RefCounted {
  virtual Tensor unpack() = 0;
};
// Set while saved_tensors_hooks are active (the binding layer implements it).
extern Ref<PackedSaved> (*g_pack_hook)(const Tensor&);

// A tensor kept for the backward pass, checked against in-place changes.
class SavedVariable {
 public:
  SavedVariable() = default;
  void save(const Tensor& t, bool is_output);
  // `owner` is the node doing the unpacking (outputs get it back as grad_fn).
  Tensor unpack(Node* owner) const;
  void reset() {
    data_ = Tensor();
    packed_.reset();
    released_ = true;
  }
  bool defined() const { return was_defined_; }

 private:
  Tensor data_;
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool was_defined_ = false;
  bool released_ = false;
  bool requires_grad_ = false;
  Ref<PackedSaved> packed_;  // set when a pack hook took the tensor
};

// Attach `node` as the creator of a forward output.
void set_history(const Tensor& out, const Ref<Node>& node);
// In-place ops: the modified tensor's creator becomes `node` (views: CopySlices).
void rebase_history(const Tensor& self, const Ref<Node>& node);
// Run `change` (which replaces self's grad_fn) keeping a retain_grad() registration.
void move_retains_grad(const Tensor& self, const std::function<void()>& change);
// Tensor.retain_grad(): keep the gradient of a non-leaf in its .grad.
void retain_grad(const Tensor& t);
// An in-place op that overwrote self without depending on its old values (a random sampler; yaml
// grad: overwritten): self's creator becomes a node of that name that sends no gradient back.
void mark_overwritten(const Tensor& self, const char* node_name);
// Raise PyTorch's error for an out= call whose inputs require grad.
void check_out_no_grad(const char* op, std::initializer_list<const Tensor*> inputs);
bool any_requires_grad(std::initializer_list<const Tensor*> ts);
inline bool is_differentiable(const Tensor& t) { return t.defined() && is_floating_or_complex(t.dtype()); }

// Called when a node is created in anomaly mode, to record the forward stack.
extern std::string (*g_anomaly_trace_hook)();

}  // namespace ember
