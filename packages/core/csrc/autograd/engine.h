// The backward engine: counts dependencies from the roots, then runs nodes in
// reverse topological order (highest sequence number first among the ready
// ones), summing gradients per node input. Runs on the calling thread.
#pragma once
#include "node.h"

namespace ember {

struct BackwardArgs {
  TensorList roots;       // outputs to differentiate
  TensorList root_grads;  // d(loss)/d(root), one per root (defined)
  TensorList inputs;      // empty: accumulate into every leaf's .grad
  bool keep_graph = false;
  bool create_graph = false;
  bool accumulate_grad = true;  // false for autograd.grad (return instead)
  bool allow_unused = false;
};

// Returns the gradients of `inputs` (for autograd.grad); undefined where unused.
TensorList run_backward(const BackwardArgs& args);

// Reduce `grad` by summation to `shape` (the inverse of broadcasting).
Tensor sum_to(const Tensor& grad, IntArrayRef shape);
bool is_expandable_to(IntArrayRef shape, IntArrayRef desired);

}  // namespace ember
