// Runtime argument parsing for the generated bindings: each Signature is
// parsed once from its schema string, then matches (args, kwnames) of a
// vectorcall with cheap type checks and converts on demand.
#pragma once
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../core/generator.h"
#include "../core/memory_format.h"
#include "py_common.h"

namespace ember::python {

enum class PType : uint8_t {
  Tensor,
  TensorList,
  Scalar,
  Int,
  IntList,
  Double,
  Bool,
  String,
  Dtype,
  Device,
  MemoryFormat,
  Layout,
  Generator  // Generator?: None or an ember.Generator
};

struct Param {
  PType type;
  bool optional = false;
  bool kw_only = false;
  bool has_default = false;
  bool default_none = false;
  bool varargs = false;        // int[] that may be given as separate positional ints
  bool numbers = false;        // Tensor that also accepts a Python number (wrapped as 0-d)
  bool none_elements = false;  // Tensor?[]: an element may be None (index_put's indices)
  bool single_int = false;     // int[N]: a bare int stands for a list (int[] needs a sequence)
  int list_len = 0;            // N of int[N]: the bare int is repeated N times, as PyTorch's parser does
  bool symint = false;         // SymInt[]: ints <= -2^62 - 1 are c10::SymInt's symbolic range (an error)
  std::string name;
  PyObject* py_name = nullptr;  // interned
  // Parsed default value.
  int64_t def_int = 0;
  double def_double = 0;
  bool def_bool = false;
  Scalar def_scalar;
  DimVector def_list;
  std::string def_str;
  std::string def_text;  // the default as the schema writes it (shown in the parser's messages)
};

constexpr int kMaxParams = 16;

struct ParsedArgs {
  PyObject* obj[kMaxParams];
  PyObject* const* varargs = nullptr;  // int[] given as separate ints
  Py_ssize_t nvarargs = 0;
  int vararg_param = -1;
  PyObject* tf_result = nullptr;  // the __torch_function__ result when parse_overloads returns -1

  ParsedArgs() = default;
  ParsedArgs(const ParsedArgs&) = delete;
  ParsedArgs& operator=(const ParsedArgs&) = delete;
  ~ParsedArgs() {
    for (uint32_t m = made_; m; m &= m - 1) slot(__builtin_ctz(m))->~DimVector();
    for (uint32_t m = held_made_; m; m &= m - 1) held_slot(__builtin_ctz(m))->~Tensor();
  }
  // The buffer holding int[] argument i's values, made on first use: building and destroying
  // a vector for every parameter slot on every call cost ~200 instructions per op.
  DimVector& list(int i) {
    if (!(made_ >> i & 1u)) {
      new (lists_[i]) DimVector();
      made_ |= 1u << i;
    }
    return *slot(i);
  }
  // Tensor argument i when the call gave a Python number: the wrapped 0-d tensor lives here, so
  // Signature::tensor can hand out references (a real tensor argument is borrowed from its object).
  Tensor& held(int i) {
    if (!(held_made_ >> i & 1u)) {
      new (held_[i]) Tensor();
      held_made_ |= 1u << i;
    }
    return *held_slot(i);
  }

 private:
  DimVector* slot(int i) { return std::launder(reinterpret_cast<DimVector*>(lists_[i])); }
  Tensor* held_slot(int i) { return std::launder(reinterpret_cast<Tensor*>(held_[i])); }
  uint32_t held_made_ = 0;
  alignas(Tensor) unsigned char held_[kMaxParams][sizeof(Tensor)];
  uint32_t made_ = 0;
  static_assert(kMaxParams <= 32, "made_ holds one bit per parameter");
  alignas(DimVector) unsigned char lists_[kMaxParams][sizeof(DimVector)];
};

class Signature {
 public:
  // number_mask: bit i set = Tensor parameter i accepts a Python number.
  // all_numbers: a call with only numbers (add(5, 5)) is fine; otherwise one
  // Tensor argument must be a real tensor, as PyTorch's overloads demand.
  // aten: the op is only torch.ops.aten.<name> in PyTorch, whose schema matcher converts the
  // arguments (a bool takes any truthy object, an int a bool; no Python numbers for tensors)
  // and raises RuntimeError when they don't match.
  Signature(const char* schema, bool is_method, uint32_t number_mask, bool all_numbers = false, bool aten = false);
  bool aten() const { return aten_; }
  bool is_method() const { return is_method_; }

  // Fill A from the call; returns false (with a reason) when this overload doesn't match.
  bool match(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, ParsedArgs& A,
             std::string* why) const;
  std::string describe() const;  // "(Tensor input, Tensor other, *, Number alpha)"
  // Whether a call with this many arguments (self excluded) could match, types aside.
  bool takes(Py_ssize_t nargs) const { return nargs >= min_args_ && nargs <= max_args_; }

  bool is_none(ParsedArgs& A, int i) const { return !A.obj[i] || A.obj[i] == Py_None; }
  // Borrowed from the argument's Python object (or A's holder for a number): valid while A lives.
  const Tensor& tensor(ParsedArgs& A, int i) const;
  Tensor opt_tensor(ParsedArgs& A, int i) const { return is_none(A, i) ? Tensor() : tensor(A, i); }
  TensorList tensor_list(ParsedArgs& A, int i) const;
  Scalar scalar(ParsedArgs& A, int i) const;
  std::optional<Scalar> opt_scalar(ParsedArgs& A, int i) const;
  int64_t int64(ParsedArgs& A, int i) const;
  std::optional<int64_t> opt_int64(ParsedArgs& A, int i) const;
  IntArrayRef int_list(ParsedArgs& A, int i) const;
  std::optional<IntArrayRef> opt_int_list(ParsedArgs& A, int i) const;
  double dbl(ParsedArgs& A, int i) const;
  std::optional<double> opt_dbl(ParsedArgs& A, int i) const;
  bool boolean(ParsedArgs& A, int i) const;
  std::optional<bool> opt_boolean(ParsedArgs& A, int i) const;
  std::string_view string(ParsedArgs& A, int i) const;
  std::optional<std::string_view> opt_string(ParsedArgs& A, int i) const;
  ScalarType dtype(ParsedArgs& A, int i) const;
  std::optional<ScalarType> opt_dtype(ParsedArgs& A, int i) const;
  std::optional<Device> opt_device(ParsedArgs& A, int i) const;
  MemoryFormat memory_format(ParsedArgs& A, int i) const;
  std::optional<MemoryFormat> opt_memory_format(ParsedArgs& A, int i) const;
  void check_layout(ParsedArgs& A, int i) const;
  // A factory's pin_memory=True: PyTorch's RuntimeError on a machine with no accelerator.
  // pin_memory=: whether the result is to be pinned (True raises PyTorch's error without a GPU)
  bool check_pin_memory(ParsedArgs& A, int i) const;
  // A factory's out= against its dtype= (PyTorch's check_out_type_matches).
  void check_out_dtype(ParsedArgs& A, int dtype, const Tensor& out) const;
  Generator* generator(ParsedArgs& A, int i) const;  // nullptr: None, the default generator

  std::string name;

 private:
  bool type_ok(const Param& p, PyObject* o) const;
  std::vector<Param> params_;
  int npositional_ = 0;
  int min_args_ = 0, max_args_ = 0;
  bool is_method_ = false;
  bool all_numbers_ = false;
  bool aten_ = false;
  // a factory (not a *_like op, not normal): device=None means the thread's default device
  bool factory_ = false;
};

// The calling thread's default device for factories (ember.set_default_device; unset: the CPU).
// Thread-local, as PyTorch's (a device context mode on the thread that set it).
std::optional<Device>& default_factory_device();

// Try each overload in order; raise TypeError listing them if none matches, unless an argument
// is a duck type defining __torch_function__: then -1, its result in A.tf_result.
int parse_overloads(const char* name, Signature* sigs, int n, PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                    PyObject* kwnames, ParsedArgs& A);

// Python number → Scalar (bool, int, float, or a 1-element tensor).
bool is_number(PyObject* o);
Scalar to_scalar(PyObject* o);
// int-like (int, numpy integer, 1-element integer tensor) → int64.
bool is_int_like(PyObject* o);
int64_t to_int64(PyObject* o);

void check_out_count(const TensorList& outs, size_t n, const char* name);

// A bool argument of a hand-parsed binding (null: not given → def): only True or
// False, as PyTorch's parser. position < 0: given by keyword (no position in the message).
bool bool_arg(PyObject* o, bool def, const char* fn, const char* arg, int position = -1);
// A factory's result in pinned host memory (pin_memory=True, checked by check_pin_memory).
Tensor pinned_result(const Tensor& r);

}  // namespace ember::python
