#include "node.h"

#include <algorithm>
#include <atomic>

#include "autograd_ops.h"
#include "core/profiler_op.h"
#include "ops.h"
#include "ops/core/internal.h"
#include "view_grad.h"

namespace ember {

// TensorImpl's destructor lives here (declared in core/tensor.h), beside the graph types it
// needs: a non-leaf that retained its grad is registered (weakly) on its grad_fn.
TensorImpl::~TensorImpl() {
  if (conj) g_conj_views.fetch_sub(1, std::memory_order_relaxed);
  if (autograd && autograd->retains_grad && autograd->grad_fn) {
    auto& rg = autograd->grad_fn->retains_grad;
    for (auto it = rg.begin(); it != rg.end(); ++it) {
      if (it->second == this) {
        rg.erase(it);
        break;
      }
    }
  }
}

std::string (*g_anomaly_trace_hook)() = nullptr;
Ref<PackedSaved> (*g_pack_hook)(const Tensor&) = nullptr;

namespace {
std::atomic<uint64_t> g_next_seq{0};

// Nodes of a long chain would free each other recursively (and overflow the
// stack); dying nodes hand their edges to this list, drained by the outermost.
thread_local std::vector<Ref<Node>>* t_dying = nullptr;
}  // namespace

Node::Node() : seq_nr(g_next_seq.fetch_add(1, std::memory_order_relaxed)) {
  if (AnomalyMode::enabled && g_anomaly_trace_hook) trace = g_anomaly_trace_hook();
}

Node::~Node() {
  if (t_dying) {
    for (Edge& e : next_edges)
      if (e.fn) t_dying->push_back(std::move(e.fn));
    return;
  }
  std::vector<Ref<Node>> dying;
  t_dying = &dying;
  for (Edge& e : next_edges)
    if (e.fn) dying.push_back(std::move(e.fn));
  next_edges.clear();
  while (!dying.empty()) {
    Ref<Node> n = std::move(dying.back());
    dying.pop_back();
    n.reset();  // may push more edges onto `dying`
  }
  t_dying = nullptr;
}

uint32_t Node::add_input_meta(const Tensor& t) {
  InputMeta m;
  m.shape = t.impl()->sizes;
  m.dtype = t.dtype();
  m.defined = true;
  input_meta.push_back(std::move(m));
  return static_cast<uint32_t>(input_meta.size() - 1);
}

void Node::add_next_edge(const Tensor* t) { next_edges.push_back(t && t->defined() ? gradient_edge(*t) : Edge{}); }

void Node::set_next_edges(std::initializer_list<const Tensor*> inputs) {
  next_edges.reserve(inputs.size());
  for (const Tensor* t : inputs) add_next_edge(t);
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* m = t.impl()->autograd.get();
  if (!m) return {};
  if (m->grad_fn) return {m->grad_fn, m->output_nr};
  if (!m->requires_grad) return {};
  if (m->grad_accumulator) return {Ref<Node>(m->grad_accumulator), 0};
  auto acc = make_ref<AccumulateGrad>(Tensor(t.ref()));
  m->grad_accumulator = acc.get();
  return {acc, 0};
}

// ---------------------------------------------------------------- leaves

AccumulateGrad::AccumulateGrad(Tensor v) : variable(std::move(v)) {
  seq_nr = UINT64_MAX;  // run as soon as ready: frees grads early
  add_input_meta(variable);
}

AccumulateGrad::~AccumulateGrad() {
  AutogradMeta* m = variable.impl()->autograd.get();
  if (m && m->grad_accumulator == this) m->grad_accumulator = nullptr;
}

TensorList AccumulateGrad::apply(TensorList& grads) {
  Tensor g = std::move(grads[0]);
  if (!g.defined()) return {};
  AutogradMeta& m = *variable.impl()->autograd;  // (its grad hooks ran in the engine)
  // grad_dtype: the tensor's own dtype by default, a set dtype, or (None) whatever arrives
  const ScalarType want = m.grad_dtype >= 0                             ? static_cast<ScalarType>(m.grad_dtype)
                          : m.grad_dtype == AutogradMeta::kGradDtypeAny ? g.dtype()
                                                                        : variable.dtype();
  if (!m.grad.defined()) {
    // Steal the buffer when nobody else sees it and its layout matches the
    // variable's (the "grad layout contract"); otherwise copy into that layout.
    // A view that nothing else can reach (its base and storage are held only by it and the
    // base) is as good as a fresh tensor: e.g. t() of a weight gradient made transposed.
    TensorImpl* gi = g.impl();
    if (gi->base && g.ref().use_count() == 1 && gi->base.use_count() == 1 && !gi->base->pyobj && !gi->pyobj &&
        gi->storage.use_count() == 2)
      drop_view(gi);
    bool layout_ok = g.strides().equals(variable.strides()) && !gi->base && !gi->autograd;
    if (GradMode::is_enabled() && (g.dtype() == want || m.grad_dtype == AutogradMeta::kGradDtypeOwn)) {
      m.grad = g;
    } else if (!GradMode::is_enabled() && g.ref().use_count() == 1 && layout_ok && g.dtype() == want) {
      // as aten: the buffer kept through a detached tensor object (its detach is an op event)
      m.grad = profiler::nested_op("aten::detach", {&g}, [&] { return ember::detach(g); });
    } else {
      Tensor c = empty_with_layout_of(variable, want, std::nullopt);
      copy_(c, g, false);
      m.grad = std::move(c);
    }
  } else if (!GradMode::is_enabled() && !m.grad.requires_grad()) {
    add_(m.grad, g, Scalar(int64_t(1)));
  } else {
    m.grad = ag::add(m.grad, g, Scalar(int64_t(1)));
  }
  for (auto& h : m.post_acc_hooks) h.second->call(variable);
  return {};
}

TensorList NotImplementedBackward::apply(TensorList&) {
  EMBER_CHECK_NOTIMPL(false, "the derivative for '", op, "' is not implemented.");
  return {};
}

// ---------------------------------------------------------------- saved tensors

void SavedVariable::save(const Tensor& t, bool is_output) {
  released_ = false;
  was_defined_ = t.defined();
  if (!was_defined_) return;
  EMBER_CHECK(!t.impl()->is_inference,
              "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
              "mode in computation tracked by autograd. To work around this, you can make a clone to get a normal "
              "tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.");
  version_ = t.version();
  is_output_ = is_output;
  requires_grad_ = t.requires_grad();
  if (is_output) {
    // Saving the output itself would make a cycle (output -> node -> output).
    data_ = make_view(t, t.sizes(), t.strides(), t.offset());
    data_.impl()->base = t.impl()->base;
    data_.impl()->creation_meta = t.impl()->creation_meta;
    output_nr_ = t.impl()->autograd ? t.impl()->autograd->output_nr : 0;
  } else {
    data_ = t;
  }
  if (g_pack_hook) {
    packed_ = g_pack_hook(data_);
    data_ = Tensor();
  }
}

static std::string tensor_desc(const Tensor& t) {
  return std::string("[torch.") + legacy_name(t.dtype()) + "Tensor " + shape_str(t.sizes()) + "]";
}

Tensor SavedVariable::unpack(Node* owner) const {
  EMBER_CHECK(!released_,
              "Trying to backward through the graph a second time (or directly access saved tensors after they "
              "have already been freed). Saved intermediate values of the graph are freed when you call "
              ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
              "graph a second time or if you need to access saved tensors after calling backward.");
  if (!was_defined_) return Tensor();
  if (packed_) {
    Tensor t = packed_->unpack();
    if (is_output_ && requires_grad_ && owner && GradMode::is_enabled()) {
      Tensor a = make_view(t, t.sizes(), t.strides(), t.offset());
      a.impl()->autograd = std::make_unique<AutogradMeta>();
      a.impl()->autograd->grad_fn = Ref<Node>(owner);
      a.impl()->autograd->output_nr = output_nr_;
      return a;
    }
    return t;
  }
  if (data_.version() != version_) {
    std::string which;
    const AutogradMeta* m = data_.impl()->autograd.get();
    // PyTorch names the forward op: ExpBackward0 -> Exp
    auto op_name = [](std::string n) {
      const size_t b = n.rfind("Backward");
      if (b != std::string::npos && n.find_first_not_of("0123456789", b + 8) == std::string::npos) n.resize(b);
      return n;
    };
    if (is_output_ && owner)
      which = std::string(", which is output ") + std::to_string(output_nr_) + " of " + op_name(owner->name()) + ",";
    else if (m && m->grad_fn)
      which =
          std::string(", which is output ") + std::to_string(m->output_nr) + " of " + op_name(m->grad_fn->name()) + ",";
    EMBER_CHECK(false,
                "one of the variables needed for gradient computation has been modified by an inplace "
                "operation: ",
                tensor_desc(data_), which, " is at version ", data_.version(), "; expected version ", version_,
                AnomalyMode::enabled
                    ? " instead. Hint: the backtrace further above shows the operation that failed to compute its "
                      "gradient. The variable in question was changed in there or anywhere later. Good luck!"
                    : " instead. Hint: enable anomaly detection to find the operation that failed to compute its "
                      "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).");
  }
  if (is_output_ && requires_grad_ && owner && GradMode::is_enabled()) {
    // Higher-order graphs need the output with its creator attached again.
    Tensor t = make_view(data_, data_.sizes(), data_.strides(), data_.offset());
    t.impl()->autograd = std::make_unique<AutogradMeta>();
    t.impl()->autograd->grad_fn = Ref<Node>(owner);
    t.impl()->autograd->output_nr = output_nr_;
    return t;
  }
  return data_;
}

// ---------------------------------------------------------------- history

bool any_requires_grad(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    if (t && t->defined() && t->requires_grad()) return true;
  return false;
}

void set_history(const Tensor& out, const Ref<Node>& node) {
  TensorImpl* impl = out.impl();
  if (!impl->autograd) impl->autograd = std::make_unique<AutogradMeta>();
  impl->autograd->grad_fn = node;
  impl->autograd->output_nr = node->add_input_meta(out);
}

void check_out_no_grad(const char* op, std::initializer_list<const Tensor*> inputs) {
  if (!GradMode::is_enabled()) return;
  EMBER_CHECK(!any_requires_grad(inputs), op,
              "(): functions with out=... arguments don't support automatic "
              "differentiation, but one of the arguments requires grad.");
}

void rebase_history(const Tensor& self, const Ref<Node>& node) {
  TensorImpl* impl = self.impl();
  if (impl->base && impl->base.get() != impl) {
    rebase_view_history(self, node);
    return;
  }
  move_retains_grad(self, [&] { set_history(self, node); });
}

void move_retains_grad(const Tensor& self, const std::function<void()>& change) {
  AutogradMeta* m = self.impl()->autograd.get();
  if (m && m->retains_grad && m->grad_fn) {
    auto& rg = m->grad_fn->retains_grad;
    rg.erase(std::remove_if(rg.begin(), rg.end(), [&](auto& p) { return p.second == self.impl(); }), rg.end());
  }
  change();
  m = self.impl()->autograd.get();
  if (m && m->retains_grad && m->grad_fn) m->grad_fn->retains_grad.emplace_back(m->output_nr, self.impl());
}

namespace {
struct OverwrittenBackward final : Node {
  std::string nm;
  const char* name() const override { return nm.c_str(); }
  TensorList apply(TensorList&) override { return TensorList(next_edges.size()); }
};
}  // namespace

void mark_overwritten(const Tensor& self, const char* node_name) {
  if (!GradMode::is_enabled() || !self.requires_grad()) return;
  auto n = make_ref<OverwrittenBackward>();
  n->nm = node_name;
  n->add_next_edge(&self);
  rebase_history(self, n);
}

}  // namespace ember

namespace ember::profiler {
int64_t peek_seq() { return static_cast<int64_t>(g_next_seq.load(std::memory_order_relaxed)); }
}  // namespace ember::profiler

namespace ember {

void retain_grad(const Tensor& t) {
  EMBER_CHECK(t.requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  AutogradMeta& m = *t.impl()->autograd;
  if (!m.grad_fn || m.retains_grad) return;
  m.retains_grad = true;
  m.grad_fn->retains_grad.emplace_back(m.output_nr, t.impl());
}

AutogradMeta::AutogradMeta() = default;
AutogradMeta::~AutogradMeta() = default;

}  // namespace ember
