#include "engine.h"

#include <cmath>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "../core/profiler_op.h"
#include "autograd_ops.h"
#include "ops.h"

namespace ember {

bool is_expandable_to(IntArrayRef shape, IntArrayRef desired) {
  if (shape.size() > desired.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t s = shape[shape.size() - 1 - i], d = desired[desired.size() - 1 - i];
    if (s != d && s != 1) return false;
  }
  return true;
}

Tensor sum_to(const Tensor& grad, IntArrayRef shape) {
  IntArrayRef gs = grad.sizes();
  if (gs.equals(shape)) return grad;
  size_t lead = gs.size() - shape.size();
  DimVector dims;
  for (size_t i = 0; i < gs.size(); ++i) {
    if (i < lead || (shape[i - lead] == 1 && gs[i] != 1)) dims.push_back(static_cast<int64_t>(i));
  }
  Tensor r = grad;
  if (!dims.empty()) r = ag::sum(grad, IntArrayRef(dims), true, std::nullopt);
  // Dropping leading dims: a view of the (contiguous) sum, as PyTorch's sum_to.
  if (lead > 0) return dims.empty() ? ag::reshape(r, shape) : ag::view(r, shape);
  return r;
}

namespace {

struct NodeCmp {
  bool operator()(const Ref<Node>& a, const Ref<Node>& b) const { return a->seq_nr < b->seq_nr; }
};

// Check a node's output gradient against the receiving input's metadata.
Tensor validate(Node& fn, size_t i, Tensor g, const InputMeta& m) {
  if (!m.defined) return g;
  if (!g.sizes().equals(m.shape)) {
    EMBER_CHECK(is_expandable_to(m.shape, g.sizes()), "Function ", fn.name(), " returned an invalid gradient at index ",
                i, " - got ", shape_str(g.sizes()), " but expected shape compatible with ", shape_str(m.shape));
    g = sum_to(g, m.shape);
  }
  if (g.dtype() != m.dtype) g = ag::_to_copy(g, m.dtype);
  return g;
}

void accumulate(Tensor& slot, Tensor g) {
  if (!slot.defined()) slot = std::move(g);
  else slot = ag::add(slot, g, Scalar(int64_t(1)));
}

bool has_nan(const Tensor& t) {
  if (!t.defined() || !t.is_floating()) return false;
  return ember::any(ember::isnan(t)).item().to_bool();
}

}  // namespace

TensorList run_backward(const BackwardArgs& a) {
  AutoGradMode mode(a.create_graph);
  // Root edges and their gradients.
  std::vector<Edge> roots;
  for (size_t i = 0; i < a.roots.size(); ++i) {
    Edge e = gradient_edge(a.roots[i]);
    EMBER_CHECK(e.valid(), "element ", i, " of tensors does not require grad and does not have a grad_fn");
    roots.push_back(std::move(e));
  }
  // Capture targets (autograd.grad / backward(inputs=...)).
  std::vector<Edge> targets;
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    const Tensor& t = a.inputs[i];
    EMBER_CHECK(t.requires_grad(), "One of the differentiated Tensors does not require grad");
    targets.push_back(gradient_edge(t));
  }
  bool capture = !a.inputs.empty();

  // Discover the graph; in capture mode keep only nodes that lead to a target.
  std::unordered_map<Node*, int> deps;
  std::unordered_set<Node*> seen, active;
  std::vector<Node*> order;  // DFS post-order
  {
    std::vector<std::pair<Node*, size_t>> stack;
    for (auto& r : roots)
      if (seen.insert(r.fn.get()).second) stack.emplace_back(r.fn.get(), 0);
    while (!stack.empty()) {
      auto& [n, i] = stack.back();
      if (i < n->next_edges.size()) {
        Node* c = n->next_edges[i++].fn.get();
        if (c && seen.insert(c).second) stack.emplace_back(c, 0);
      } else {
        order.push_back(n);
        stack.pop_back();
      }
    }
  }
  std::unordered_set<Node*> target_nodes;
  for (auto& t : targets) target_nodes.insert(t.fn.get());
  for (Node* n : order) {  // children come before parents in post-order
    bool on = !capture || target_nodes.count(n);
    for (auto& e : n->next_edges)
      if (e.fn && active.count(e.fn.get())) on = true;
    if (on) active.insert(n);
  }
  for (Node* n : order) {
    if (!active.count(n)) continue;
    for (auto& e : n->next_edges)
      if (e.fn && active.count(e.fn.get())) deps[e.fn.get()]++;
  }

  std::unordered_map<Node*, TensorList> buffers;
  auto buffer_of = [&](Node* n) -> TensorList& {
    TensorList& b = buffers[n];
    if (b.size() < std::max<size_t>(n->input_meta.size(), 1)) b.resize(std::max<size_t>(n->input_meta.size(), 1));
    return b;
  };
  std::priority_queue<Ref<Node>, std::vector<Ref<Node>>, NodeCmp> ready;
  std::unordered_set<Node*> queued;
  for (size_t i = 0; i < roots.size(); ++i) {
    Node* n = roots[i].fn.get();
    if (!active.count(n)) continue;
    Tensor g = a.root_grads[i];
    TensorList& b = buffer_of(n);
    accumulate(b[roots[i].input_nr], std::move(g));
  }
  for (auto& r : roots) {
    Node* n = r.fn.get();
    if (active.count(n) && deps[n] == 0 && queued.insert(n).second) ready.push(r.fn);
  }

  TensorList captured(targets.size());
  while (!ready.empty()) {
    Ref<Node> fn = ready.top();
    ready.pop();
    // PyTorch's range per node: its hooks, the node, and the routing (sum_to) of its outputs.
    profiler::Scope eval_prof("autograd::engine::evaluate_function: ", fn->name(), profiler::EventKind::Backward,
                              static_cast<int64_t>(fn->seq_nr));
    TensorList inputs = std::move(buffer_of(fn.get()));
    buffers.erase(fn.get());
    for (auto& [id, nr, hook] : fn->tensor_hooks) {
      if (nr < inputs.size() && inputs[nr].defined()) {
        Tensor r = hook->call(inputs[nr]);
        if (r.defined()) inputs[nr] = std::move(r);
      }
    }
    if (auto* acc = dynamic_cast<AccumulateGrad*>(fn.get()); acc && inputs[0].defined()) {
      for (auto& h : acc->variable.impl()->autograd->hooks) {  // leaf tensor hooks
        Tensor r = h.second->call(inputs[0]);
        if (r.defined()) inputs[0] = std::move(r);
      }
    }
    for (auto& [nr, impl] : fn->retains_grad) {
      if (nr >= inputs.size() || !inputs[nr].defined()) continue;
      AutogradMeta& m = *impl->autograd;
      if (!m.grad.defined()) m.grad = a.create_graph ? inputs[nr] : clone(inputs[nr], std::nullopt);
      else m.grad = ag::add(m.grad, inputs[nr], Scalar(int64_t(1)));
    }
    for (size_t t = 0; t < targets.size(); ++t)
      if (targets[t].fn == fn && targets[t].input_nr < inputs.size()) captured[t] = inputs[targets[t].input_nr];
    for (auto& [id, hook] : fn->pre_hooks) {
      TensorList r = hook->call(inputs);
      if (!r.empty()) inputs = std::move(r);
    }
    // Nodes that only deliver a captured gradient are not run (autograd.grad
    // must not touch .grad), except leaves in backward(inputs=...).
    bool run = !capture;
    for (auto& e : fn->next_edges)
      if (e.fn && active.count(e.fn.get())) run = true;
    if (capture && a.accumulate_grad && dynamic_cast<AccumulateGrad*>(fn.get())) run = true;
    if (!run) continue;

    TensorList outputs;
    try {
      profiler::Scope prof(fn->name(), profiler::EventKind::Backward, static_cast<int64_t>(fn->seq_nr));
      if (prof.on() && profiler::config().record_shapes) {  // the node's inputs: its incoming gradients
        profiler::InputsText in;
        for (const Tensor& g : inputs) in.add(&g);
        profiler::set_top_shapes(in.finish());
      }
      outputs = fn->apply(inputs);
    } catch (...) {
      if (AnomalyMode::enabled && !fn->trace.empty() && g_warn_hook) {
        std::string msg = std::string("Error detected in ") + fn->name() +
                          ". Traceback of forward call that caused the error:\n" + fn->trace;
        g_warn_hook(msg.c_str());
      }
      throw;
    }
    if (!a.keep_graph) fn->release_variables();
    for (auto& [id, hook] : fn->post_hooks) {
      TensorList r = hook->call(outputs, inputs);
      if (!r.empty()) outputs = std::move(r);
    }
    if (dynamic_cast<AccumulateGrad*>(fn.get())) continue;
    EMBER_CHECK(outputs.size() == fn->next_edges.size(), "function ", fn->name(),
                " returned an incorrect number of gradients (expected ", fn->next_edges.size(), ", got ",
                outputs.size(), ")");
    if (AnomalyMode::enabled && AnomalyMode::check_nan) {
      for (size_t i = 0; i < outputs.size(); ++i) {
        if (has_nan(outputs[i])) {
          if (!fn->trace.empty() && g_warn_hook) {
            std::string msg = std::string("Error detected in ") + fn->name() +
                              ". Traceback of forward call that caused the error:\n" + fn->trace;
            g_warn_hook(msg.c_str());
          }
          EMBER_CHECK(false, "Function '", fn->name(), "' returned nan values in its ", i, "th output.");
        }
      }
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Edge& e = fn->next_edges[i];
      if (!e.fn || !active.count(e.fn.get())) continue;
      if (outputs[i].defined()) {
        Tensor g = validate(*fn, i, std::move(outputs[i]),
                            e.fn->input_meta.size() > e.input_nr ? e.fn->input_meta[e.input_nr] : InputMeta{});
        accumulate(buffer_of(e.fn.get())[e.input_nr], std::move(g));
      }
      if (--deps[e.fn.get()] == 0 && queued.insert(e.fn.get()).second) ready.push(e.fn);
    }
  }

  if (capture) {
    for (size_t t = 0; t < targets.size(); ++t) {
      if (!captured[t].defined())
        EMBER_CHECK(a.allow_unused,
                    "One of the differentiated Tensors appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior.");
    }
    if (a.accumulate_grad) {  // backward(inputs=...): non-leaf inputs get .grad too
      for (size_t t = 0; t < targets.size(); ++t) {
        const Tensor& x = a.inputs[t];
        AutogradMeta& m = *x.impl()->autograd;
        if (!m.grad_fn || !captured[t].defined()) continue;
        if (!m.grad.defined()) m.grad = a.create_graph ? captured[t] : clone(captured[t], std::nullopt);
        else m.grad = ag::add(m.grad, captured[t], Scalar(int64_t(1)));
      }
    }
  }
  return captured;
}

}  // namespace ember
