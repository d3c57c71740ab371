// Tensor's Python operators (a + b, a += b, a @ b, -a, a == b, ...): the number protocol and
// rich comparison of _C.TensorBase (py_tensor.cpp puts them in the type).
#include "arg_parser.h"
#include "autocast.h"
#include "cuda_support.h"
#include "device_check.h"
#include "entry_ops.h"
#include "ops.h"
#include "py_conj_fallback.h"
#include "py_profiler.h"
#include "py_tensor.h"
#include "py_torch_function.h"
#include "py_types.h"

namespace ember::python {

// Operands of a Python operator: tensors (borrowed from their Python objects, which outlive the
// call), or a number wrapped as a 0-d tensor beside the other (held in hx / hy).
struct Operands {
  Tensor hx, hy;
  const Tensor* x = nullptr;
  const Tensor* y = nullptr;
};
static bool operands(PyObject* a, PyObject* b, Operands& o) {
  auto number = [](PyObject* v) { return PyLong_Check(v) || PyFloat_Check(v) || PyBool_Check(v) || is_number(v); };
  const bool ta = is_tensor(a), tb = is_tensor(b);
  if (!(ta || number(a)) || !(tb || number(b))) return false;
  if (ta) o.x = &unpack(a);
  if (tb) o.y = &unpack(b);
  if (!ta) o.x = &(o.hx = tb ? wrap_number(to_scalar(a), *o.y) : wrap_scalar(to_scalar(a)));
  if (!tb) o.y = &(o.hy = ta ? wrap_number(to_scalar(b), *o.x) : wrap_scalar(to_scalar(b)));
  if (conj_views_alive()) [[unlikely]] {  // the conjugate fallback (INPLACE_OP writes x back)
    o.x = &(o.hx = resolved_operand(*o.x));
    o.y = &(o.hy = resolved_operand(*o.y));
  }
  return true;
}

// An operator's body, the CUDA table's "no CUDA kernel" error renamed after its aten op as the
// generated bindings do (python/cuda_support.h): a handler only, free when nothing throws.
template <class F>
static decltype(auto) naming_op(const char* aten_name, F&& op) {
  try {
    return op();
  } catch (const Error& e) {
    rethrow_naming_op(e, aten_name);
  }
}

#define BINARY_OP(fname, name, rname, opname, expr)       \
  static PyObject* fname(PyObject* a, PyObject* b) {      \
    EMBER_PY_TRY                                          \
    TORCH_FUNCTION_OP(name, rname, a, b, nullptr)         \
    Operands o_;                                          \
    if (!operands(a, b, o_)) Py_RETURN_NOTIMPLEMENTED;    \
    const Tensor &x = *o_.x, &y = *o_.y;                  \
    OpScope prof_(opname, {&x, &y});                      \
    return wrap(naming_op(opname, [&] { return expr; })); \
    EMBER_PY_CATCH                                        \
  }
#define INPLACE_OP(fname, name, opname, expr)          \
  static PyObject* fname(PyObject* a, PyObject* b) {   \
    EMBER_PY_TRY                                       \
    TORCH_FUNCTION_OP(name, nullptr, a, b, nullptr)    \
    Operands o_;                                       \
    if (!operands(a, b, o_)) Py_RETURN_NOTIMPLEMENTED; \
    const Tensor &x = *o_.x, &y = *o_.y;               \
    OpScope prof_(opname, {&x, &y});                   \
    naming_op(opname, [&] { expr; });                  \
    if (!x.same(unpack(a))) write_into(unpack(a), x);  \
    Py_INCREF(a);                                      \
    return a;                                          \
    EMBER_PY_CATCH                                     \
  }

// A number on the left is PyTorch's __radd__ / __rmul__ / __rtruediv__: add(tensor, number),
// mul(tensor, number) and reciprocal(tensor) * number, so the number is the last operand (kept in
// op-math for half; complex32's a + 1 * b is not symmetric where b has an infinite part).
BINARY_OP(nb_add, "add", "add", "aten::add", is_tensor(a) ? entry::add(x, y) : entry::add(y, x))
BINARY_OP(nb_sub, "sub", "__rsub__", "aten::sub", entry::sub(x, y))
BINARY_OP(nb_mul, "mul", "mul", "aten::mul", is_tensor(a) ? entry::mul(x, y) : entry::mul(y, x))
BINARY_OP(nb_truediv, "div", "__rtruediv__", "aten::div",
          is_tensor(a) ? entry::div(x, y) : entry::mul(entry::reciprocal(y), x))
BINARY_OP(nb_floordiv, "__floordiv__", "__rfloordiv__", "aten::floor_divide", entry::floor_divide(x, y))
BINARY_OP(nb_mod, "remainder", "__rmod__", "aten::remainder", entry::remainder(x, y))
BINARY_OP(nb_and, "__and__", "bitwise_and", "aten::bitwise_and", entry::bitwise_and(x, y))
BINARY_OP(nb_or, "__or__", "bitwise_or", "aten::bitwise_or", entry::bitwise_or(x, y))
BINARY_OP(nb_xor, "__xor__", "bitwise_xor", "aten::bitwise_xor", entry::bitwise_xor(x, y))
BINARY_OP(nb_lshift, "__lshift__", "__rlshift__", "aten::bitwise_left_shift", entry::bitwise_left_shift(x, y))
BINARY_OP(nb_rshift, "__rshift__", "__rrshift__", "aten::bitwise_right_shift", entry::bitwise_right_shift(x, y))
INPLACE_OP(nb_iadd, "add_", "aten::add_", entry::add_(x, y))
INPLACE_OP(nb_isub, "sub_", "aten::sub_", entry::sub_(x, y))
INPLACE_OP(nb_imul, "mul_", "aten::mul_", entry::mul_(x, y))
INPLACE_OP(nb_itruediv, "div_", "aten::div_", entry::div_(x, y))
INPLACE_OP(nb_ifloordiv, "floor_divide_", "aten::floor_divide_", entry::floor_divide_(x, y))
INPLACE_OP(nb_imod, "remainder_", "aten::remainder_", entry::remainder_(x, y))
INPLACE_OP(nb_iand, "__iand__", "aten::bitwise_and_", entry::bitwise_and_(x, y))
INPLACE_OP(nb_ior, "__ior__", "aten::bitwise_or_", entry::bitwise_or_(x, y))
INPLACE_OP(nb_ixor, "__ixor__", "aten::bitwise_xor_", entry::bitwise_xor_(x, y))
INPLACE_OP(nb_ilshift, "__ilshift__", "aten::bitwise_left_shift_", entry::bitwise_left_shift_(x, y))
INPLACE_OP(nb_irshift, "__irshift__", "aten::bitwise_right_shift_", entry::bitwise_right_shift_(x, y))

static PyObject* nb_pow(PyObject* a, PyObject* b, PyObject*) {
  EMBER_PY_TRY
  TORCH_FUNCTION_OP("pow", "__rpow__", a, b, nullptr)
  Operands o_;
  if (!operands(a, b, o_)) Py_RETURN_NOTIMPLEMENTED;
  const Tensor &x = *o_.x, &y = *o_.y;
  OpScope prof_("aten::pow", {&x, &y});
  return wrap(naming_op("aten::pow", [&] { return entry::pow(x, y); }));
  EMBER_PY_CATCH
}
static PyObject* nb_ipow(PyObject* a, PyObject* b, PyObject*) {
  EMBER_PY_TRY
  TORCH_FUNCTION_OP("pow_", nullptr, a, b, nullptr)
  Operands o_;
  if (!operands(a, b, o_)) Py_RETURN_NOTIMPLEMENTED;
  const Tensor &x = *o_.x, &y = *o_.y;
  OpScope prof_("aten::pow_", {&x, &y});
  naming_op("aten::pow_", [&] { entry::pow_(x, y); });
  if (!x.same(unpack(a))) write_into(unpack(a), x);
  Py_INCREF(a);
  return a;
  EMBER_PY_CATCH
}
static PyObject* nb_matmul(PyObject* a, PyObject* b) {
  EMBER_PY_TRY
  TORCH_FUNCTION_OP("matmul", "__rmatmul__", a, b, nullptr)
  if (!is_tensor(a) || !is_tensor(b)) Py_RETURN_NOTIMPLEMENTED;
  check_same_device(unpack(a), unpack(b));  // matmul runs no elementwise iterator, which would check
  if (autocast_active()) [[unlikely]] {     // x @ y is aten::matmul: autocast's lower-precision list
    Tensor x = autocast_lower(unpack(a)), y = autocast_lower(unpack(b));
    OpScope prof_("aten::matmul", {&x, &y});
    return wrap(naming_op("aten::matmul", [&] { return entry::matmul(resolved_operand(x), resolved_operand(y)); }));
  }
  const Tensor &x = unpack(a), &y = unpack(b);
  OpScope prof_("aten::matmul", {&x, &y});
  return wrap(naming_op("aten::matmul", [&] { return entry::matmul(resolved_operand(x), resolved_operand(y)); }));
  EMBER_PY_CATCH
}
static PyObject* nb_neg(PyObject* a) {
  EMBER_PY_TRY
  TORCH_FUNCTION_OP("neg", nullptr, a, nullptr, nullptr)
  const Tensor& t = unpack(a);
  EMBER_CHECK(t.dtype() != ScalarType::Bool,
              "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
              "invert a mask, use the `~` or `logical_not()` operator instead.");
  OpScope prof_("aten::neg", {&t});
  return wrap(naming_op("aten::neg", [&] { return entry::neg(resolved_operand(t)); }));
  EMBER_PY_CATCH
}
static PyObject* nb_pos(PyObject* a) {
  Py_INCREF(a);
  return a;
}
static PyObject* nb_abs(PyObject* a) {
  EMBER_PY_TRY
  TORCH_FUNCTION_OP("abs", nullptr, a, nullptr, nullptr)
  const Tensor& t = unpack(a);
  OpScope prof_("aten::abs", {&t});
  return wrap(naming_op("aten::abs", [&] { return entry::abs(resolved_operand(t)); }));
  EMBER_PY_CATCH
}
static PyObject* nb_invert(PyObject* a) {
  EMBER_PY_TRY
  TORCH_FUNCTION_OP("__invert__", nullptr, a, nullptr, nullptr)
  const Tensor& t = unpack(a);
  EMBER_CHECK_NOTIMPL(!t.is_floating(), "\"bitwise_not_cpu\" not implemented for '", legacy_name(t.dtype()), "'");
  OpScope prof_("aten::bitwise_not", {&t});
  return wrap(naming_op("aten::bitwise_not", [&] { return entry::bitwise_not(resolved_operand(t)); }));
  EMBER_PY_CATCH
}
// Python's own check of a __bool__'s answer, on what __torch_function__ gave for Tensor.__bool__.
static int bool_from_handler(PyObject* r) {
  if (!r) return -1;
  const int v = r == Py_True ? 1 : r == Py_False ? 0 : -1;
  if (v < 0) PyErr_Format(PyExc_TypeError, "__bool__ should return bool, returned %.200s", Py_TYPE(r)->tp_name);
  Py_DECREF(r);
  return v;
}
static int nb_bool(PyObject* a) {
  EMBER_PY_TRY
  if (g_torch_function_state) [[unlikely]] {
    PyObject* r;
    if (torch_function_self("__bool__", a, nullptr, 0, &r)) return bool_from_handler(r);
  }
  const Tensor& t = unpack(a);
  EMBER_CHECK(t.numel() != 0, "Boolean value of Tensor with no values is ambiguous");
  EMBER_CHECK(t.numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
  const Scalar s = t.item();
  if (s.is_uint64()) (void)s.to_int();  // PyTorch reads a uint64 through int64 here: past 2^63 overflows
  return s.to_bool() ? 1 : 0;
  EMBER_PY_CATCH_INT
}
static PyObject* nb_int(PyObject* a) {
  EMBER_PY_TRY
  TORCH_FUNCTION_SELF("__int__", a, nullptr, 0)
  const Tensor& t = unpack(a);
  EMBER_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars");
  Scalar s = t.item();
  EMBER_CHECK(!s.is_complex() || s.imag() == 0, "value cannot be converted to type int64_t without overflow");
  if (s.is_float() || s.is_complex()) {
    PyObject* f = PyFloat_FromDouble(s.to_double());
    PyObject* r = PyNumber_Long(f);
    Py_DECREF(f);
    return r;
  }
  return PyLong_FromLongLong(s.to_int());  // a uint64 past 2^63 is PyTorch's overflow error
  EMBER_PY_CATCH
}
static PyObject* nb_float(PyObject* a) {
  EMBER_PY_TRY
  TORCH_FUNCTION_SELF("__float__", a, nullptr, 0)
  const Tensor& t = unpack(a);
  EMBER_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars");
  Scalar s = t.item();
  EMBER_CHECK(!s.is_complex() || s.imag() == 0, "value cannot be converted to type double without overflow");
  return PyFloat_FromDouble(s.to_double());
  EMBER_PY_CATCH
}
static PyObject* nb_index(PyObject* a) {
  EMBER_PY_TRY
  TORCH_FUNCTION_SELF("__index__", a, nullptr, 0)
  const Tensor& t = unpack(a);
  EMBER_CHECK_TYPE(t.numel() == 1 && is_integral(t.dtype(), true),
                   "only integer tensors of a single element can be converted to an index");
  return PyLong_FromLongLong(t.item().to_int());
  EMBER_PY_CATCH
}

PyNumberMethods tensor_as_number = [] {
  PyNumberMethods m{};
  m.nb_add = nb_add;
  m.nb_subtract = nb_sub;
  m.nb_multiply = nb_mul;
  m.nb_true_divide = nb_truediv;
  m.nb_floor_divide = nb_floordiv;
  m.nb_remainder = nb_mod;
  m.nb_power = nb_pow;
  m.nb_matrix_multiply = nb_matmul;
  m.nb_and = nb_and;
  m.nb_or = nb_or;
  m.nb_xor = nb_xor;
  m.nb_lshift = nb_lshift;
  m.nb_rshift = nb_rshift;
  m.nb_inplace_add = nb_iadd;
  m.nb_inplace_subtract = nb_isub;
  m.nb_inplace_multiply = nb_imul;
  m.nb_inplace_true_divide = nb_itruediv;
  m.nb_inplace_floor_divide = nb_ifloordiv;
  m.nb_inplace_remainder = nb_imod;
  m.nb_inplace_power = nb_ipow;
  m.nb_inplace_and = nb_iand;
  m.nb_inplace_or = nb_ior;
  m.nb_inplace_xor = nb_ixor;
  m.nb_inplace_lshift = nb_ilshift;
  m.nb_inplace_rshift = nb_irshift;
  m.nb_negative = nb_neg;
  m.nb_positive = nb_pos;
  m.nb_absolute = nb_abs;
  m.nb_invert = nb_invert;
  m.nb_bool = nb_bool;
  m.nb_int = nb_int;
  m.nb_float = nb_float;
  m.nb_index = nb_index;
  return m;
}();

PyObject* tensor_richcompare(PyObject* a, PyObject* b, int op) {
  EMBER_PY_TRY
  static const char* const methods[] = {"lt", "le", "__eq__", "ne", "gt", "ge"};
  TORCH_FUNCTION_OP(methods[op], nullptr, a, b, nullptr)
  Operands o_;
  if (!operands(a, b, o_)) {
    if (op == Py_EQ) Py_RETURN_FALSE;
    if (op == Py_NE) Py_RETURN_TRUE;
    Py_RETURN_NOTIMPLEMENTED;
  }
  const Tensor &x = *o_.x, &y = *o_.y;
  static const char* const names[] = {"aten::lt", "aten::le", "aten::eq", "aten::ne", "aten::gt", "aten::ge"};
  OpScope prof_(names[op], {&x, &y});  // Py_LT .. Py_GE are 0 .. 5
  return wrap(naming_op(names[op], [&] {
    switch (op) {
      case Py_EQ:
        return entry::eq(x, y);
      case Py_NE:
        return entry::ne(x, y);
      case Py_LT:
        return entry::lt(x, y);
      case Py_LE:
        return entry::le(x, y);
      case Py_GT:
        return entry::gt(x, y);
      default:  // Py_GE (Python passes no other)
        return entry::ge(x, y);
    }
  }));
  EMBER_PY_CATCH
}

}  // namespace ember::python
