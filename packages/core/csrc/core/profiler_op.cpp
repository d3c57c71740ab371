#include "profiler_op.h"

#include "grad_mode.h"

namespace ember::profiler {

namespace {
AnnotateHook g_annotate = nullptr;

void append_list(std::string& s, IntArrayRef v) {
  s += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  s += ']';
}
}  // namespace

void InputsText::sep() {
  if (!first_) {
    dims_ += ", ";
    types_ += ", ";
    strides_ += ", ";
  }
  first_ = false;
}

void InputsText::add(const Tensor* t) {
  if (!t || !t->defined()) return add_other("");
  sep();
  append_list(dims_, t->sizes());
  types_ += '\'';
  types_ += c_type_name(t->dtype());
  types_ += '\'';
  append_list(strides_, t->strides());
}

void InputsText::add_other(const char* type) {
  sep();
  dims_ += "[]";
  types_ += '\'';
  types_ += type;
  types_ += '\'';
  strides_ += "[]";
}

std::string InputsText::finish() { return "(" + dims_ + "], " + types_ + "], " + strides_ + "])"; }

std::string shapes_of(std::initializer_list<const Tensor*> ts) {
  InputsText in;
  for (const Tensor* t : ts) {
    if (t) in.add(t);
    else in.add_other("Scalar");
  }
  return in.finish();
}

void set_annotate_hook(AnnotateHook h) { g_annotate = h; }

bool open_nested_op(const char* name, std::initializer_list<const Tensor*> ts) {
  if (!open_nested(name, GradMode::is_enabled() ? peek_seq() : -1)) return false;
  if (config().record_shapes) set_top_shapes(shapes_of(ts));
  if (config().with_stack && g_annotate) g_annotate();
  return true;
}

}  // namespace ember::profiler
