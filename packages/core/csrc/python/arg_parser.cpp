#include "arg_parser.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "kernels/cuda/cuda_runtime_api.h"
#include "ops/core/internal.h"
#include "py_generator.h"
#include "py_tensor.h"
#include "py_torch_function.h"
#include "py_types.h"

namespace ember::python {

namespace {

PType parse_type(std::string t, bool* optional) {
  *optional = !t.empty() && t.back() == '?';
  if (*optional) t.pop_back();
  auto bracket = t.find('[');
  bool list = bracket != std::string::npos;
  std::string base = list ? t.substr(0, bracket) : t;
  if (base == "Tensor" || (list && base == "Tensor?")) return list ? PType::TensorList : PType::Tensor;
  if (base == "int" || base == "SymInt") return list ? PType::IntList : PType::Int;
  if (base == "Scalar") return PType::Scalar;
  if (base == "float") return PType::Double;
  if (base == "bool") return PType::Bool;
  if (base == "str") return PType::String;
  if (base == "ScalarType") return PType::Dtype;
  if (base == "Device") return PType::Device;
  if (base == "MemoryFormat") return PType::MemoryFormat;
  if (base == "Layout") return PType::Layout;
  if (base == "Generator") return PType::Generator;
  throw std::runtime_error("ember: unknown schema type " + t);
}

const char* type_label(PType t) {
  switch (t) {
    case PType::Tensor:
      return "Tensor";
    case PType::TensorList:
      return "tuple of Tensors";
    case PType::Scalar:
      return "Number";
    case PType::Int:
      return "int";
    case PType::IntList:
      return "tuple of ints";
    case PType::Double:
      return "float";
    case PType::Bool:
      return "bool";
    case PType::String:
      return "str";
    case PType::Dtype:
      return "torch.dtype";
    case PType::Device:
      return "torch.device";
    case PType::MemoryFormat:
      return "torch.memory_format";
    case PType::Layout:
      return "torch.layout";
    case PType::Generator:
      return "torch.Generator";
  }
  return "?";
}

void parse_default(Param& p, const std::string& d) {
  p.has_default = true;
  p.def_text = d;
  if (d == "None") {
    p.default_none = true;
    return;
  }
  switch (p.type) {
    case PType::Int:
      p.def_int = std::stoll(d);
      break;
    case PType::Double:
      p.def_double = std::stod(d);
      break;
    case PType::Bool:
      p.def_bool = d == "True";
      break;
    case PType::Scalar:
      if (d == "True" || d == "False") p.def_scalar = Scalar(d == "True");
      else if (d.find_first_of(".e") != std::string::npos) p.def_scalar = Scalar(std::stod(d));
      else p.def_scalar = Scalar(static_cast<int64_t>(std::stoll(d)));
      break;
    case PType::IntList: {
      std::string body = d;
      if (!body.empty() && body.front() == '[') body = body.substr(1, body.size() - 2);
      size_t pos = 0;
      while (pos < body.size()) {
        size_t c = body.find(',', pos);
        std::string item = body.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
        if (item.find_first_not_of(' ') != std::string::npos) p.def_list.push_back(std::stoll(item));
        if (c == std::string::npos) break;
        pos = c + 1;
      }
      break;
    }
    case PType::String:
      p.def_str = d.size() >= 2 ? d.substr(1, d.size() - 2) : d;
      break;
    default:
      p.default_none = true;  // dtype/device/memory format defaults are None-like
  }
}

std::string type_name_of(PyObject* o) {
  if (is_tensor(o)) return "Tensor";
  return Py_TYPE(o)->tp_name;
}

}  // namespace

bool is_number(PyObject* o) {
  return PyLong_Check(o) || PyFloat_Check(o) || PyBool_Check(o) || PyComplex_Check(o) ||
         (!is_tensor(o) && !PyUnicode_Check(o) && !PySequence_Check(o) && PyNumber_Check(o) &&
          PyObject_HasAttrString(o, "dtype"));  // numpy scalars
}

Scalar to_scalar(PyObject* o) {
  if (PyBool_Check(o)) return Scalar(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) {
      // [2^63, 2^64) is PyTorch's uint64 Scalar; beyond, Python's OverflowError
      // ("int too big to convert", "can't convert negative int to unsigned"), as in PyTorch.
      unsigned long long u = PyLong_AsUnsignedLongLong(o);
      if (PyErr_Occurred()) throw python_error();
      return Scalar::from_uint64(u);
    }
    return Scalar(static_cast<int64_t>(v));
  }
  if (PyFloat_Check(o)) return Scalar(PyFloat_AS_DOUBLE(o));
  if (PyComplex_Check(o)) return Scalar(std::complex<double>(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)));
  if (is_tensor(o)) return unpack(o).item();
  // numpy scalars: integers through __index__, the rest through __float__.
  if (PyIndex_Check(o)) {
    PyObject* i = PyNumber_Index(o);
    if (!i) throw python_error();
    Scalar s = to_scalar(i);
    Py_DECREF(i);
    return s;
  }
  double d = PyFloat_AsDouble(o);
  if (d == -1.0 && PyErr_Occurred()) throw python_error();
  return Scalar(d);
}

bool is_int_like(PyObject* o) {
  if (PyLong_Check(o)) return true;
  if (is_tensor(o)) {
    const Tensor& t = unpack(o);
    return t.numel() == 1 && t.dim() == 0 && is_integral(t.dtype(), false);
  }
  return !PyFloat_Check(o) && PyIndex_Check(o);
}

namespace {
// PyLong → int64 with PyTorch's error for an int out of range.
int64_t unpack_long(PyObject* o) {
  long long v = PyLong_AsLongLong(o);
  if (v == -1 && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) throw python_error();
    PyErr_Clear();
    fail(ErrorKind::Value, "Overflow when unpacking long long");
  }
  return v;
}
}  // namespace

int64_t to_int64(PyObject* o) {
  if (PyLong_Check(o)) return unpack_long(o);
  if (is_tensor(o)) return unpack(o).item().to_int();
  PyObject* i = PyNumber_Index(o);
  if (!i) throw python_error();
  int64_t v;
  try {
    v = unpack_long(i);
  } catch (...) {
    Py_DECREF(i);
    throw;
  }
  Py_DECREF(i);
  return v;
}

Signature::Signature(const char* schema, bool is_method, uint32_t number_mask, bool all_numbers, bool aten)
    : is_method_(is_method), all_numbers_(all_numbers), aten_(aten) {
  std::string s(schema);
  auto lp = s.find('(');
  name = s.substr(0, lp);
  const std::string base = name.substr(0, name.find('.'));
  factory_ = base != "normal" && !(base.size() > 5 && base.compare(base.size() - 5, 5, "_like") == 0);
  std::string args = s.substr(lp + 1, s.rfind(')') - lp - 1);
  // Split on top-level commas.
  std::vector<std::string> parts;
  int depth = 0;
  std::string cur;
  for (char c : args) {
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) parts.push_back(cur);
  bool kw = false;
  for (auto& raw : parts) {
    std::string a = raw.substr(raw.find_first_not_of(' '));
    if (a == "*") {
      kw = true;
      continue;
    }
    std::string decl = a, def;
    auto eq = a.find('=');
    if (eq != std::string::npos) {
      decl = a.substr(0, eq);
      def = a.substr(eq + 1);
    }
    auto sp = decl.find_last_of(' ');
    Param p;
    std::string tname = decl.substr(0, sp);
    p.type = parse_type(tname, &p.optional);
    p.none_elements = tname.rfind("Tensor?[", 0) == 0;
    p.single_int = tname.find("[]") == std::string::npos && p.type == PType::IntList;
    p.symint = tname.rfind("SymInt", 0) == 0;
    if (p.single_int) {
      const auto lb = tname.find('[');
      if (lb != std::string::npos) p.list_len = std::atoi(tname.c_str() + lb + 1);
    }
    p.numbers = p.type == PType::Tensor && (number_mask >> params_.size()) & 1u;
    p.name = decl.substr(sp + 1);
    p.kw_only = kw;
    p.py_name = PyUnicode_InternFromString(p.name.c_str());
    if (eq != std::string::npos) parse_default(p, def);
    // The tensor-options flags of the factories take None for their default, as in PyTorch.
    if (p.type == PType::Bool && kw && p.has_default && (p.name == "requires_grad" || p.name == "pin_memory"))
      p.optional = true;
    if (!kw) ++npositional_;
    params_.push_back(std::move(p));
  }
  // A lone positional int[] may be given as varargs: zeros(2, 3), x.view(2, 3) (PyTorch's
  // rule; x.sum(0, 1) is not sum over (0, 1)).
  size_t first = is_method_ ? 1 : 0;
  if (npositional_ == static_cast<int>(first) + 1 && params_[first].type == PType::IntList)
    params_[first].varargs = true;
  for (size_t i = first; i < params_.size(); ++i)
    min_args_ += !params_[i].has_default;  // an optional without a default is required (may be None), as in PyTorch
  max_args_ = params_.size() > first && params_[first].varargs ? std::numeric_limits<int>::max()
                                                               : static_cast<int>(params_.size() - first);
  if (params_.size() > kMaxParams) throw std::runtime_error("ember: too many parameters in " + name);
}

std::string Signature::describe() const {
  // PyTorch lists a factory's out= before its tensor options (dtype, layout, device, ...)
  std::vector<size_t> order;
  for (size_t i = is_method_ ? 1 : 0; i < params_.size(); ++i) order.push_back(i);
  // (a factory: one with a device; sum's dtype= is an argument of its own, listed before out=)
  bool factory = false;
  for (const Param& p : params_) factory |= p.name == "device" || p.name == "layout";
  if (factory && !order.empty() && params_[order.back()].name == "out") {
    for (size_t k = 0; k + 1 < order.size(); ++k) {
      const std::string& n = params_[order[k]].name;
      if (n == "dtype" || n == "layout" || n == "device" || n == "pin_memory" || n == "requires_grad") {
        order.insert(order.begin() + static_cast<std::ptrdiff_t>(k), order.back());
        order.pop_back();
        break;
      }
    }
  }
  std::string s = "(";
  bool kw = false;
  for (size_t i : order) {
    const Param& p = params_[i];
    if (s.size() > 1) s += ", ";
    if (p.kw_only && !kw) {
      s += "*, ";
      kw = true;
    }
    s += type_label(p.type);
    s += " " + p.name;
    // defaults as PyTorch's parser shows them (out= is always optional)
    if (p.has_default) s += " = " + p.def_text;
    else if (p.name == "out") s += " = None";
  }
  return s + ")";
}

namespace {
// An int the schema matcher takes: int-like (bool included) and within int64.
bool aten_int_ok(PyObject* o) {
  if (!is_int_like(o)) return false;
  if (!PyLong_Check(o)) return true;
  int overflow = 0;
  PyLong_AsLongLongAndOverflow(o, &overflow);
  return overflow == 0;
}
// pybind11's bool conversion, which torch.ops uses: None is False, else the type's __bool__.
bool has_truth(PyObject* o) {
  return o == Py_None || PyBool_Check(o) || (Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_bool);
}
}  // namespace

namespace {
// Note [0-d tensors as numbers]: PyTorch's parser takes a 0-d tensor where a number is expected
// (linspace(torch.tensor(0.), ...), x.narrow(1, torch.tensor(1), 2)). ember accepts one only in a
// second matching pass, after no overload took the plain arguments, so Tensor overloads (clamp, max,
// pow) still win exactly as before and ordinary calls pay nothing.
thread_local bool g_tensors_as_numbers = false;

bool zero_dim_number_ok(const Param& p, PyObject* o) {
  if (!is_tensor(o)) return false;
  const Tensor& t = unpack(o);
  if (t.dim() != 0) return false;
  switch (p.type) {
    case PType::Scalar:
      return true;
    case PType::Double:
      return t.dtype() != ScalarType::Bool;
    case PType::Int:
      return is_integral(t.dtype(), false);
    default:
      return false;
  }
}
}  // namespace

bool Signature::type_ok(const Param& p, PyObject* o) const {
  if (g_tensors_as_numbers && zero_dim_number_ok(p, o)) return true;
  if (aten_) {
    switch (p.type) {
      case PType::Bool:
        return has_truth(o);
      case PType::Int:
        if (o != Py_None) return !is_tensor(o) && aten_int_ok(o);
        break;
      case PType::IntList:
        if (o == Py_None) break;
        if (is_int_like(o)) return p.single_int && !is_tensor(o) && aten_int_ok(o);
        if (!PyTuple_Check(o) && !PyList_Check(o)) return false;
        for (Py_ssize_t i = 0, n = PySequence_Fast_GET_SIZE(o); i < n; ++i)
          if (!aten_int_ok(PySequence_Fast_GET_ITEM(o, i))) return false;
        return true;
      case PType::Double:
        if (o != Py_None) return PyFloat_Check(o) || PyLong_Check(o) || (is_number(o) && !PyComplex_Check(o));
        break;
      default:
        break;
    }
  }
  if (o == Py_None) return p.optional || (p.has_default && p.default_none);
  switch (p.type) {
    case PType::Tensor:
      return is_tensor(o) || (p.numbers && is_number(o));
    case PType::TensorList: {
      if (!PyTuple_Check(o) && !PyList_Check(o)) return false;
      Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* e = PySequence_Fast_GET_ITEM(o, i);
        if (!is_tensor(e) && !(p.none_elements && e == Py_None)) return false;
      }
      return true;
    }
    // Tensors are not Scalars or ints here: overloads taking Tensor must win (clamp, max).
    case PType::Scalar:
      return !is_tensor(o) && is_number(o);
    case PType::Int:
      return !is_tensor(o) && is_int_like(o) && !PyBool_Check(o);
    case PType::IntList: {
      if (is_int_like(o) && !PyBool_Check(o)) return p.single_int && !is_tensor(o);
      if (!PyTuple_Check(o) && !PyList_Check(o)) return false;
      Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      for (Py_ssize_t i = 0; i < n; ++i)
        if (!is_int_like(PySequence_Fast_GET_ITEM(o, i))) return false;
      return true;
    }
    case PType::Double:
      return PyFloat_Check(o) || PyLong_Check(o) || (is_number(o) && !PyBool_Check(o) && !PyComplex_Check(o));
    case PType::Bool:
      return PyBool_Check(o);
    case PType::String:
      return PyUnicode_Check(o);
    case PType::Dtype:
      return is_dtype_like(o);
    case PType::Device:
      return is_device_like(o);
    case PType::MemoryFormat:
      return Py_TYPE(o) == MemoryFormatType;
    case PType::Layout:
      return Py_TYPE(o) == LayoutType;
    case PType::Generator:
      return PyObject_TypeCheck(o, GeneratorType);
  }
  return false;
}

bool Signature::match(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, ParsedArgs& A,
                      std::string* why) const {
  size_t np = params_.size();
  for (size_t i = 0; i < np; ++i) A.obj[i] = nullptr;
  A.varargs = nullptr;
  A.nvarargs = 0;
  A.vararg_param = -1;
  size_t k = 0;
  if (is_method_) A.obj[k++] = self;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    if (k >= static_cast<size_t>(npositional_)) {
      // Python's wording: "takes 1 positional argument", "takes from 1 to 3 positional arguments"
      const int total = npositional_ - (is_method_ ? 1 : 0);
      int required = 0;
      for (int j = is_method_ ? 1 : 0; j < npositional_; ++j) required += !params_[j].has_default;
      *why = name + "() takes " +
             (required == total ? std::to_string(total)
                                : "from " + std::to_string(required) + " to " + std::to_string(total)) +
             (total == 1 && required == total ? " positional argument" : " positional arguments") + " but " +
             std::to_string(nargs) + (nargs == 1 ? " was given" : " were given");
      return false;
    }
    const Param& p = params_[k];
    // One Python int for an int[N] is the bare-int form (PyTorch: an overflow is its ValueError,
    // not the varargs list's TypeError): x.var(2**63).
    const bool single_vararg = is_int_like(args[i]) && (!p.single_int || is_tensor(args[i]));
    if (p.varargs && (nargs - i > 1 || single_vararg) && !PyTuple_Check(args[i]) && !PyList_Check(args[i])) {
      A.varargs = args + i;
      A.nvarargs = nargs - i;
      A.vararg_param = static_cast<int>(k);
      A.obj[k] = Py_Ellipsis;  // marker: read from varargs
      for (Py_ssize_t j = i; j < nargs; ++j)
        if (!is_int_like(args[j]) || PyBool_Check(args[j])) {
          *why = name + "(): argument '" + p.name + "' must be tuple of ints, but found element of type " +
                 type_name_of(args[j]) + " at pos " + std::to_string(j - i);
          return false;
        }
      k = np;
      break;
    }
    A.obj[k++] = args[i];
  }
  // Parameters before this one came positionally (messages give their position).
  size_t pos_end = A.vararg_param >= 0 ? static_cast<size_t>(A.vararg_param) + 1 : k;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t j = 0; j < nkw; ++j) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, j);
    size_t idx = np;
    for (size_t i = 0; i < np; ++i)
      if (params_[i].py_name == key) {
        idx = i;
        break;
      }
    if (idx == np)
      for (size_t i = 0; i < np; ++i)
        if (PyUnicode_Compare(params_[i].py_name, key) == 0) {
          idx = i;
          break;
        }
    if (idx == np || (is_method_ && idx == 0)) {
      *why = name + "() got an unexpected keyword argument '" + PyUnicode_AsUTF8(key) + "'";
      return false;
    }
    if (A.obj[idx]) {
      *why = name + "() got multiple values for argument '" + params_[idx].name + "'";
      return false;
    }
    A.obj[idx] = args[nargs + j];
  }
  for (size_t i = 0; i < np; ++i) {
    const Param& p = params_[i];
    PyObject* o = A.obj[i];
    if (!o) {
      if (!p.has_default) {
        // every missing one from here on, in PyTorch's words (its plural and singular swapped)
        std::string names;
        int missing = 0;
        for (size_t j = i; j < np; ++j) {
          if (A.obj[j] || params_[j].has_default) continue;
          names += (missing++ ? ", \"" : "\"") + params_[j].name + "\"";
        }
        *why = name + "() missing " + std::to_string(missing) + " required positional argument" +
               (missing == 1 ? "s: " : ": ") + names;
        return false;
      }
      continue;
    }
    if (static_cast<int>(i) == A.vararg_param) continue;
    if (!type_ok(p, o)) {
      *why = name + "(): argument '" + p.name + "'";
      if (i < pos_end) *why += " (position " + std::to_string(i + 1 - (is_method_ ? 1 : 0)) + ")";
      *why += std::string(" must be ") + type_label(p.type) + ", not " + type_name_of(o);
      return false;
    }
  }
  if (!all_numbers_ && !is_method_) {
    bool any_number_param = false, any_tensor = false;
    for (size_t i = 0; i < np; ++i) {
      if (params_[i].type != PType::Tensor || !A.obj[i] || A.obj[i] == Py_None) continue;
      any_number_param |= params_[i].numbers;
      any_tensor |= is_tensor(A.obj[i]);
    }
    if (any_number_param && !any_tensor) {
      *why = name + "(): expected at least one Tensor argument, got only numbers";
      return false;
    }
  }
  return true;
}

int parse_overloads(const char* name, Signature* sigs, int n, PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                    PyObject* kwnames, ParsedArgs& A) {
  std::string why;
  for (int i = 0; i < n; ++i)
    if (sigs[i].match(self, args, nargs, kwnames, A, &why)) return i;
  if (!sigs[0].aten()) {  // Note [0-d tensors as numbers]
    struct Pass {         // reset even when a match throws
      Pass() { g_tensors_as_numbers = true; }
      ~Pass() { g_tensors_as_numbers = false; }
    } pass;
    std::string ignored;
    for (int i = 0; i < n; ++i)
      if (sigs[i].match(self, args, nargs, kwnames, A, &ignored)) return i;
  }
  if (torch_function_duck(sigs[0].is_method(), name, self, args, nargs, kwnames, &A.tf_result)) return -1;
  // As PyTorch: when one overload alone takes this many arguments, its own complaint is the message.
  Py_ssize_t given = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  int plausible = -1, nplausible = 0;
  for (int i = 0; i < n; ++i)
    if (sigs[i].takes(given)) {
      plausible = i;
      ++nplausible;
    }
  if (n == 1 || nplausible == 1) {
    if (n > 1) sigs[plausible].match(self, args, nargs, kwnames, A, &why);
    if (sigs[0].aten())  // torch.ops.aten's schema matcher: a RuntimeError
      fail(ErrorKind::Runtime, "Overloaded torch operator invoked from Python failed to match any schema:\n", why);
    PyErr_SetString(PyExc_TypeError, why.c_str());
    throw python_error();
  }
  std::string msg = std::string(name) + "() received an invalid combination of arguments - got (";
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    if (i) msg += ", ";
    msg += type_name_of(args[i]);
  }
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t j = 0; j < nkw; ++j) {
    if (nargs || j) msg += ", ";
    msg += std::string(PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, j))) + "=" + type_name_of(args[nargs + j]);
  }
  msg += "), but expected one of:\n";
  for (int i = 0; i < n; ++i) msg += " * " + sigs[i].describe() + "\n";
  PyErr_SetString(PyExc_TypeError, msg.c_str());
  throw python_error();
}

// ---- accessors ----

const Tensor& Signature::tensor(ParsedArgs& A, int i) const {
  PyObject* o = A.obj[i];
  if (is_tensor(o)) return unpack(o);
  Scalar s = to_scalar(o);
  if (!s.is_uint64()) return A.held(i) = wrap_scalar(s);
  const Tensor* beside[kMaxParams];
  int n = 0;
  // the inputs beside it: an out= tensor takes no part in the result's type (an int input with a float
  // out= computes in int64, the number taken modulo 2^64, as PyTorch's)
  for (size_t j = 0; j < params_.size(); ++j)
    if (A.obj[j] && A.obj[j] != Py_Ellipsis && is_tensor(A.obj[j]) && params_[j].name != "out")
      beside[n++] = &unpack(A.obj[j]);
  return A.held(i) = wrap_number(s, beside, n);
}

TensorList Signature::tensor_list(ParsedArgs& A, int i) const {
  PyObject* o = A.obj[i];
  TensorList r;
  if (!o || o == Py_None) return r;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  r.reserve(n);
  for (Py_ssize_t j = 0; j < n; ++j) {
    PyObject* e = PySequence_Fast_GET_ITEM(o, j);
    r.push_back(e == Py_None ? Tensor() : unpack(e));  // None: a Tensor?[] element left out
  }
  return r;
}

Scalar Signature::scalar(ParsedArgs& A, int i) const {
  PyObject* o = A.obj[i];
  return o ? to_scalar(o) : params_[i].def_scalar;
}
std::optional<Scalar> Signature::opt_scalar(ParsedArgs& A, int i) const {
  if (is_none(A, i)) {
    if (!A.obj[i] && params_[i].has_default && !params_[i].default_none) return params_[i].def_scalar;
    return std::nullopt;
  }
  return to_scalar(A.obj[i]);
}
int64_t Signature::int64(ParsedArgs& A, int i) const { return A.obj[i] ? to_int64(A.obj[i]) : params_[i].def_int; }
std::optional<int64_t> Signature::opt_int64(ParsedArgs& A, int i) const {
  if (is_none(A, i)) return std::nullopt;
  return to_int64(A.obj[i]);
}
IntArrayRef Signature::int_list(ParsedArgs& A, int i) const {
  PyObject* o = A.obj[i];
  if (!o) return params_[i].def_list;
  DimVector& v = A.list(i);
  v.clear();
  // An element out of int64's range: PyTorch's TypeError naming the argument and position.
  auto element = [&](PyObject* item, Py_ssize_t j) {
    try {
      return to_int64(item);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Value) throw;
      fail(ErrorKind::Type, name, "(): argument '", params_[i].name, "' failed to unpack the object at pos ", j + 1,
           " with error \"", e.what(), "\"");
    }
  };
  if (i == A.vararg_param) {
    for (Py_ssize_t j = 0; j < A.nvarargs; ++j) v.push_back(element(A.varargs[j], j));
  } else if (PyTuple_Check(o) || PyList_Check(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    for (Py_ssize_t j = 0; j < n; ++j) v.push_back(element(PySequence_Fast_GET_ITEM(o, j), j));
  } else {
    // A bare int for int[N] is N copies (PyTorch's parser); a kernel sees a full-length list.
    const int64_t x = to_int64(o);
    for (int k = 0; k < std::max(params_[i].list_len, 1); ++k) v.push_back(x);
  }
  // c10::SymInt keeps ints below -2^62 for its symbolic nodes: a kernel taking concrete sizes
  // refuses them (PyTorch's RuntimeError, raised as the op is entered). The bindings parse their
  // arguments last to first (the generated call's, as PyTorch's), so the lists before this one
  // are parsed yet: their overflow TypeError comes first.
  if (params_[i].symint)
    for (int64_t x : v)
      if (x <= -(int64_t(1) << 62) - 1) {
        for (int j = i - 1; j >= 0; --j)
          if (params_[j].type == PType::IntList && !is_none(A, j)) (void)int_list(A, j);  // its own error first
        fail(ErrorKind::Runtime, "SymIntArrayRef expected to contain only concrete integers");
      }
  return v;
}
std::optional<IntArrayRef> Signature::opt_int_list(ParsedArgs& A, int i) const {
  if (is_none(A, i)) {
    if (!A.obj[i] && params_[i].has_default && !params_[i].default_none) return IntArrayRef(params_[i].def_list);
    return std::nullopt;
  }
  return int_list(A, i);
}
double Signature::dbl(ParsedArgs& A, int i) const {
  if (!A.obj[i]) return params_[i].def_double;
  double d = PyFloat_AsDouble(A.obj[i]);
  if (d == -1.0 && PyErr_Occurred()) throw python_error();
  return d;
}
std::optional<double> Signature::opt_dbl(ParsedArgs& A, int i) const {
  if (is_none(A, i)) return std::nullopt;
  return dbl(A, i);
}
bool Signature::boolean(ParsedArgs& A, int i) const {
  PyObject* o = A.obj[i];
  if (!o) return params_[i].def_bool;
  if (aten_ && o != Py_True && o != Py_False) {  // any truthy object; None is False
    if (o == Py_None) return false;
    int r = PyObject_IsTrue(o);
    if (r < 0) throw python_error();
    return r != 0;
  }
  return o == Py_None ? params_[i].def_bool : o == Py_True;
}
std::optional<bool> Signature::opt_boolean(ParsedArgs& A, int i) const {
  if (is_none(A, i)) return std::nullopt;
  return boolean(A, i);
}
std::string_view Signature::string(ParsedArgs& A, int i) const {
  if (!A.obj[i]) return params_[i].def_str;
  Py_ssize_t n;
  const char* s = PyUnicode_AsUTF8AndSize(A.obj[i], &n);
  if (!s) throw python_error();
  return std::string_view(s, static_cast<size_t>(n));
}
std::optional<std::string_view> Signature::opt_string(ParsedArgs& A, int i) const {
  if (is_none(A, i)) return std::nullopt;
  return string(A, i);
}
ScalarType Signature::dtype(ParsedArgs& A, int i) const { return parse_dtype(A.obj[i]); }
std::optional<ScalarType> Signature::opt_dtype(ParsedArgs& A, int i) const {
  if (is_none(A, i)) return std::nullopt;
  return parse_dtype(A.obj[i]);
}
std::optional<Device>& default_factory_device() {
  thread_local std::optional<Device> d;
  return d;
}

std::optional<Device> Signature::opt_device(ParsedArgs& A, int i) const {
  if (is_none(A, i)) return factory_ ? default_factory_device() : std::nullopt;
  return parse_device(A.obj[i]);
}
MemoryFormat Signature::memory_format(ParsedArgs& A, int i) const {
  auto m = opt_memory_format(A, i);
  return m ? *m : MemoryFormat::Contiguous;
}
std::optional<MemoryFormat> Signature::opt_memory_format(ParsedArgs& A, int i) const {
  if (is_none(A, i)) return std::nullopt;
  return static_cast<MemoryFormat>(reinterpret_cast<PyEnumConst*>(A.obj[i])->value);
}
void Signature::check_layout(ParsedArgs& A, int i) const {
  if (is_none(A, i)) return;
  EMBER_CHECK(reinterpret_cast<PyEnumConst*>(A.obj[i])->value == 0, name, "(): only the strided layout is supported");
}

bool Signature::check_pin_memory(ParsedArgs& A, int i) const {
  if (!boolean(A, i)) return false;
  EMBER_CHECK(cuda_is_compiled() && cuda_device_count() > 0,
              "pin_memory=True requires a CUDA or other accelerator backend; no "
              "pinned memory allocator is available on this system.");
  return true;
}

Tensor pinned_result(const Tensor& r) {
  EMBER_CHECK(r.device().is_cpu(), "Only dense CPU tensors can be pinned");
  return pin_memory(r);
}

void Signature::check_out_dtype(ParsedArgs& A, int dtype, const Tensor& out) const {
  auto dt = opt_dtype(A, dtype);
  EMBER_CHECK(!dt || *dt == out.dtype(), "dtype ", legacy_name(*dt), " does not match dtype of out parameter (",
              legacy_name(out.dtype()), ")");
}

Generator* Signature::generator(ParsedArgs& A, int i) const {
  return is_none(A, i) ? nullptr : reinterpret_cast<PyGenerator*>(A.obj[i])->gen.get();
}

bool bool_arg(PyObject* o, bool def, const char* fn, const char* arg, int position) {
  if (!o) return def;
  if (!PyBool_Check(o)) {
    std::string where = position >= 0 ? " (position " + std::to_string(position) + ")" : "";
    fail(ErrorKind::Type, fn, "(): argument '", arg, "'", where, " must be bool, not ", type_name_of(o));
  }
  return o == Py_True;
}

void check_out_count(const TensorList& outs, size_t n, const char* name) {
  EMBER_CHECK_TYPE(outs.size() == n, name, "(): argument 'out' must be tuple of ", n, " Tensors, got ", outs.size());
}

}  // namespace ember::python
