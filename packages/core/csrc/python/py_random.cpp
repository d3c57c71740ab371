// Bindings of the sampling functions (ember.rand, randint, normal, ...) and of
// the in-place Tensor samplers (uniform_, random_, ...). Hand-written, not
// generated: every one takes generator=, which ops.yaml's schemas cannot
// express. The argument parsing itself is the generated layer's Signature.
#include <vector>

#include "arg_parser.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/random/random.h"
#include "py_generator.h"
#include "py_tensor.h"
#include "py_types.h"

namespace ember::python {

namespace {

// One call: generator= is taken out of the keywords before Signature sees
// them. Kept alive for the whole call, since ParsedArgs may point into stack_.
// `positional` >= 0: the generator may also come positionally at that index
// (poisson(input, generator)).
class RandomCall {
 public:
  RandomCall(const char* name, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, Py_ssize_t positional = -1)
      : name_(name), args_(args), nargs_(nargs), kwnames_(kwnames) {
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (positional >= 0 && nargs > positional) {
      gen = generator_arg(args[positional], name);
      stack_.assign(args, args + nargs + nkw);
      stack_.erase(stack_.begin() + positional);
      args_ = stack_.data();
      nargs_ = nargs - 1;
      for (Py_ssize_t j = 0; j < nkw; ++j)
        EMBER_CHECK_TYPE(PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, j), "generator") != 0, name,
                         "() got multiple values for argument 'generator'");
      return;
    }
    for (Py_ssize_t j = 0; j < nkw; ++j) {
      if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, j), "generator") != 0) continue;
      gen = generator_arg(args[nargs + j], name);
      stack_.assign(args, args + nargs);
      kw_ = PyTuple_New(nkw - 1);
      if (!kw_) throw python_error();
      for (Py_ssize_t k = 0, o = 0; k < nkw; ++k) {
        if (k == j) continue;
        PyObject* key = PyTuple_GET_ITEM(kwnames, k);
        Py_INCREF(key);
        PyTuple_SET_ITEM(kw_, o++, key);
        stack_.push_back(args[nargs + k]);
      }
      args_ = stack_.data();
      kwnames_ = nkw > 1 ? kw_ : nullptr;
      break;
    }
  }
  ~RandomCall() { Py_XDECREF(kw_); }
  RandomCall(const RandomCall&) = delete;
  RandomCall& operator=(const RandomCall&) = delete;

  int parse(Signature* sigs, int n, PyObject* self = nullptr) {
    return parse_overloads(name_, sigs, n, self, args_, nargs_, kwnames_, A);
  }

  Generator* gen = nullptr;
  ParsedArgs A;

 private:
  const char* name_;
  PyObject* const* args_;
  Py_ssize_t nargs_;
  PyObject* kwnames_;
  std::vector<PyObject*> stack_;
  PyObject* kw_ = nullptr;
};

// int arguments: a Python int beyond int64 is PyTorch's ValueError, not OverflowError.
int64_t int_arg(const Signature& S, ParsedArgs& A, int i) {
  try {
    return S.int64(A, i);
  } catch (const python_error&) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) throw;
    PyErr_Clear();
    fail(ErrorKind::Value, "Overflow when unpacking long long");
  }
}
std::optional<int64_t> opt_int_arg(const Signature& S, ParsedArgs& A, int i) {
  if (S.is_none(A, i)) return std::nullopt;
  return int_arg(S, A, i);
}

// random_ warns through Python (bounds beyond a float's precision); with warnings
// turned into errors the warning is a pending exception, raised here.
void raise_pending_warning() {
  if (PyErr_Occurred()) throw python_error();
}

PyObject* return_self(PyObject* self) {
  Py_INCREF(self);
  return self;
}

// ---- factories -------------------------------------------------------------

// Where the tensor-options arguments sit in a factory's schema.
struct Options {
  int out, dtype, layout, device, pin, requires_grad;
};

void check_common(const Signature& S, ParsedArgs& A, const Options& ix) {
  S.check_layout(A, ix.layout);
  EMBER_CHECK(!S.boolean(A, ix.pin),
              "pin_memory=True requires a CUDA or other accelerator backend; no "
              "pinned memory allocator is available on this system.");
  auto dev = S.opt_device(A, ix.device);
  check_device_available(dev ? *dev : cpu_device());
}

// Allocate (or resize out=), sample into it with fill(t), apply requires_grad.
template <class Fill>
PyObject* factory(const Signature& S, ParsedArgs& A, IntArrayRef size, const Options& ix, ScalarType default_dtype,
                  const Fill& fill) {
  check_common(S, A, ix);
  auto dtype = S.opt_dtype(A, ix.dtype);
  const bool rg = S.boolean(A, ix.requires_grad);
  if (ix.out >= 0 && !S.is_none(A, ix.out)) {
    Tensor out = S.tensor(A, ix.out);
    EMBER_CHECK(!dtype || *dtype == out.dtype(), "dtype ", legacy_name(dtype ? *dtype : out.dtype()),
                " does not match dtype of out parameter (", legacy_name(out.dtype()), ")");
    resize_out(out, size);
    fill(out);
    apply_requires_grad(out, rg);
    return return_self(A.obj[ix.out]);
  }
  Tensor t = empty(size, dtype ? *dtype : default_dtype);
  fill(t);
  apply_requires_grad(t, rg);
  return wrap(std::move(t));
}

// The *_like factories: empty_like(input, ...) then fill.
template <class Fill>
PyObject* factory_like(const Signature& S, ParsedArgs& A, const Options& ix, int memory_format, const Fill& fill) {
  check_common(S, A, ix);
  const Tensor& input = S.tensor(A, 0);
  Tensor t =
      empty_like(input, S.opt_dtype(A, ix.dtype), S.opt_device(A, ix.device), S.opt_memory_format(A, memory_format));
  fill(t);
  apply_requires_grad(t, S.boolean(A, ix.requires_grad));
  return wrap(std::move(t));
}

#define FACTORY_OPTS                                                   \
  "*, Tensor? out=None, ScalarType? dtype=None, Layout? layout=None, " \
  "Device? device=None, bool pin_memory=False, bool requires_grad=False"
#define LIKE_OPTS                                                         \
  "*, ScalarType? dtype=None, Layout? layout=None, Device? device=None, " \
  "bool pin_memory=False, bool requires_grad=False, MemoryFormat? memory_format=None"
// Options of a schema whose FACTORY_OPTS start at position i.
constexpr Options factory_at(int i) { return {i, i + 1, i + 2, i + 3, i + 4, i + 5}; }
// Options of a *_like schema whose LIKE_OPTS start at position i (memory_format at i + 5).
constexpr Options like_at(int i) { return {-1, i, i + 1, i + 2, i + 3, i + 4}; }

#define EMBER_RANDOM_FN(fn) PyObject* fn(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames)
#define EMBER_RANDOM_METHOD(fn) PyObject* fn(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames)

EMBER_RANDOM_FN(f_rand) {
  EMBER_PY_TRY
  static Signature sigs[] = {Signature("rand(int[] size, " FACTORY_OPTS ")", false, 0)};
  RandomCall c("rand", args, nargs, kwnames);
  c.parse(sigs, 1);
  return factory(sigs[0], c.A, sigs[0].int_list(c.A, 0), factory_at(1), default_dtype(),
                 [&](const Tensor& t) { uniform_(t, 0, 1, c.gen); });
  EMBER_PY_CATCH
}

EMBER_RANDOM_FN(f_randn) {
  EMBER_PY_TRY
  static Signature sigs[] = {Signature("randn(int[] size, " FACTORY_OPTS ")", false, 0)};
  RandomCall c("randn", args, nargs, kwnames);
  c.parse(sigs, 1);
  return factory(sigs[0], c.A, sigs[0].int_list(c.A, 0), factory_at(1), default_dtype(),
                 [&](const Tensor& t) { normal_(t, 0, 1, c.gen); });
  EMBER_PY_CATCH
}

EMBER_RANDOM_FN(f_randint) {
  EMBER_PY_TRY
  static Signature sigs[] = {Signature("randint(int high, int[] size, " FACTORY_OPTS ")", false, 0),
                             Signature("randint(int low, int high, int[] size, " FACTORY_OPTS ")", false, 0)};
  RandomCall c("randint", args, nargs, kwnames);
  int k = c.parse(sigs, 2);
  const Signature& S = sigs[k];
  int64_t low = k == 0 ? 0 : int_arg(S, c.A, 0), high = int_arg(S, c.A, k);
  return factory(S, c.A, S.int_list(c.A, k + 1), factory_at(k + 2), ScalarType::Int64, [&](const Tensor& t) {
    random_(t, low, high, c.gen);
    raise_pending_warning();
  });
  EMBER_PY_CATCH
}

EMBER_RANDOM_FN(f_randperm) {
  EMBER_PY_TRY
  static Signature sigs[] = {Signature("randperm(int n, " FACTORY_OPTS ")", false, 0)};
  RandomCall c("randperm", args, nargs, kwnames);
  c.parse(sigs, 1);
  const Signature& S = sigs[0];
  const Options ix = factory_at(1);
  check_common(S, c.A, ix);
  const int64_t n = int_arg(S, c.A, 0);
  auto dtype = S.opt_dtype(c.A, ix.dtype);
  const bool rg = S.boolean(c.A, ix.requires_grad);
  if (!S.is_none(c.A, ix.out)) {
    Tensor out = S.tensor(c.A, ix.out);
    EMBER_CHECK(!dtype || *dtype == out.dtype(), "dtype ", legacy_name(dtype ? *dtype : out.dtype()),
                " does not match dtype of out parameter (", legacy_name(out.dtype()), ")");
    randperm(n, out.dtype(), c.gen, &out);
    apply_requires_grad(out, rg);
    return return_self(c.A.obj[ix.out]);
  }
  Tensor t = randperm(n, dtype ? *dtype : ScalarType::Int64, c.gen, nullptr);
  apply_requires_grad(t, rg);
  return wrap(std::move(t));
  EMBER_PY_CATCH
}

EMBER_RANDOM_FN(f_rand_like) {
  EMBER_PY_TRY
  static Signature sigs[] = {Signature("rand_like(Tensor input, " LIKE_OPTS ")", false, 0)};
  RandomCall c("rand_like", args, nargs, kwnames);
  c.parse(sigs, 1);
  return factory_like(sigs[0], c.A, like_at(1), 6, [&](const Tensor& t) { uniform_(t, 0, 1, c.gen); });
  EMBER_PY_CATCH
}

EMBER_RANDOM_FN(f_randn_like) {
  EMBER_PY_TRY
  static Signature sigs[] = {Signature("randn_like(Tensor input, " LIKE_OPTS ")", false, 0)};
  RandomCall c("randn_like", args, nargs, kwnames);
  c.parse(sigs, 1);
  return factory_like(sigs[0], c.A, like_at(1), 6, [&](const Tensor& t) { normal_(t, 0, 1, c.gen); });
  EMBER_PY_CATCH
}

EMBER_RANDOM_FN(f_randint_like) {
  EMBER_PY_TRY
  static Signature sigs[] = {Signature("randint_like(Tensor input, int high, " LIKE_OPTS ")", false, 0),
                             Signature("randint_like(Tensor input, int low, int high, " LIKE_OPTS ")", false, 0)};
  RandomCall c("randint_like", args, nargs, kwnames);
  int k = c.parse(sigs, 2);
  const Signature& S = sigs[k];
  int64_t low = k == 0 ? 0 : int_arg(S, c.A, 1), high = int_arg(S, c.A, k + 1);
  return factory_like(S, c.A, like_at(k + 2), k + 7, [&](const Tensor& t) {
    random_(t, low, high, c.gen);
    raise_pending_warning();
  });
  EMBER_PY_CATCH
}

EMBER_RANDOM_FN(f_normal) {
  EMBER_PY_TRY
  static Signature sigs[] = {Signature("normal(Tensor mean, Tensor std, *, Tensor? out=None)", false, 0),
                             Signature("normal(Tensor mean, float std=1, *, Tensor? out=None)", false, 0),
                             Signature("normal(float mean, Tensor std, *, Tensor? out=None)", false, 0),
                             Signature("normal(float mean, float std, int[] size, " FACTORY_OPTS ")", false, 0)};
  RandomCall c("normal", args, nargs, kwnames);
  int k = c.parse(sigs, 4);
  const Signature& S = sigs[k];
  ParsedArgs& A = c.A;
  if (k == 3) {
    const double mean = S.dbl(A, 0), std = S.dbl(A, 1);
    EMBER_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
    return factory(S, A, S.int_list(A, 2), factory_at(3), default_dtype(),
                   [&](const Tensor& t) { normal_(t, mean, std, c.gen); });
  }
  Tensor out = S.opt_tensor(A, 2);
  const Tensor* outp = out.defined() ? &out : nullptr;
  Tensor r = k == 0   ? normal(S.tensor(A, 0), S.tensor(A, 1), c.gen, outp)
             : k == 1 ? normal(S.tensor(A, 0), S.dbl(A, 1), c.gen, outp)
                      : normal(S.dbl(A, 0), S.tensor(A, 1), c.gen, outp);
  if (outp) return return_self(A.obj[2]);
  return wrap(std::move(r));
  EMBER_PY_CATCH
}

EMBER_RANDOM_FN(f_bernoulli) {
  EMBER_PY_TRY
  static Signature sigs[] = {Signature("bernoulli(Tensor input, *, Tensor? out=None)", false, 0),
                             Signature("bernoulli(Tensor input, float p)", false, 0)};
  RandomCall c("bernoulli", args, nargs, kwnames);
  int k = c.parse(sigs, 2);
  const Signature& S = sigs[k];
  const Tensor& input = S.tensor(c.A, 0);
  if (k == 1) {
    Tensor t = empty(input.sizes(), input.dtype());
    return wrap(bernoulli_(t, S.dbl(c.A, 1), c.gen));
  }
  if (!S.is_none(c.A, 1)) {
    Tensor out = S.tensor(c.A, 1);
    bernoulli(input, c.gen, &out);
    return return_self(c.A.obj[1]);
  }
  return wrap(bernoulli(input, c.gen, nullptr));
  EMBER_PY_CATCH
}

EMBER_RANDOM_FN(f_multinomial) {
  EMBER_PY_TRY
  static Signature sigs[] = {
      Signature("multinomial(Tensor input, int num_samples, bool replacement=False, *, Tensor? out=None)", false, 0)};
  RandomCall c("multinomial", args, nargs, kwnames);
  c.parse(sigs, 1);
  const Signature& S = sigs[0];
  Tensor out = S.opt_tensor(c.A, 3);
  Tensor r =
      multinomial(S.tensor(c.A, 0), int_arg(S, c.A, 1), S.boolean(c.A, 2), c.gen, out.defined() ? &out : nullptr);
  if (out.defined()) return return_self(c.A.obj[3]);
  return wrap(std::move(r));
  EMBER_PY_CATCH
}

EMBER_RANDOM_FN(f_poisson) {
  EMBER_PY_TRY
  static Signature sigs[] = {Signature("poisson(Tensor input)", false, 0)};
  RandomCall c("poisson", args, nargs, kwnames, /*positional=*/1);
  c.parse(sigs, 1);
  return wrap(poisson(sigs[0].tensor(c.A, 0), c.gen));
  EMBER_PY_CATCH
}

// ---- Tensor methods --------------------------------------------------------

// The in-place samplers with two float parameters (and their defaults).
template <Tensor (*Op)(const Tensor&, double, double, Generator*)>
PyObject* two_param_method(const char* name, Signature& S, PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                           PyObject* kwnames) {
  RandomCall c(name, args, nargs, kwnames);
  c.parse(&S, 1, self);
  Op(unpack(self), S.dbl(c.A, 1), S.dbl(c.A, 2), c.gen);
  return return_self(self);
}

EMBER_RANDOM_METHOD(m_uniform_) {
  EMBER_PY_TRY
  static Signature sig("uniform_(Tensor self, float from=0, float to=1)", true, 0);
  return two_param_method<uniform_>("uniform_", sig, self, args, nargs, kwnames);
  EMBER_PY_CATCH
}

EMBER_RANDOM_METHOD(m_normal_) {
  EMBER_PY_TRY
  static Signature sig("normal_(Tensor self, float mean=0, float std=1)", true, 0);
  return two_param_method<normal_>("normal_", sig, self, args, nargs, kwnames);
  EMBER_PY_CATCH
}

EMBER_RANDOM_METHOD(m_cauchy_) {
  EMBER_PY_TRY
  static Signature sig("cauchy_(Tensor self, float median=0, float sigma=1)", true, 0);
  return two_param_method<cauchy_>("cauchy_", sig, self, args, nargs, kwnames);
  EMBER_PY_CATCH
}

EMBER_RANDOM_METHOD(m_log_normal_) {
  EMBER_PY_TRY
  static Signature sig("log_normal_(Tensor self, float mean=1, float std=2)", true, 0);
  return two_param_method<log_normal_>("log_normal_", sig, self, args, nargs, kwnames);
  EMBER_PY_CATCH
}

EMBER_RANDOM_METHOD(m_exponential_) {
  EMBER_PY_TRY
  static Signature sig("exponential_(Tensor self, float lambd=1)", true, 0);
  RandomCall c("exponential_", args, nargs, kwnames);
  c.parse(&sig, 1, self);
  exponential_(unpack(self), sig.dbl(c.A, 1), c.gen);
  return return_self(self);
  EMBER_PY_CATCH
}

EMBER_RANDOM_METHOD(m_geometric_) {
  EMBER_PY_TRY
  static Signature sig("geometric_(Tensor self, float p)", true, 0);
  RandomCall c("geometric_", args, nargs, kwnames);
  c.parse(&sig, 1, self);
  geometric_(unpack(self), sig.dbl(c.A, 1), c.gen);
  return return_self(self);
  EMBER_PY_CATCH
}

EMBER_RANDOM_METHOD(m_random_) {
  EMBER_PY_TRY
  // (int to) before (int from, int? to): random_(5) means [0, 5), and random_(5, None) [5, max].
  static Signature sigs[] = {Signature("random_(Tensor self)", true, 0),
                             Signature("random_(Tensor self, int to)", true, 0),
                             Signature("random_(Tensor self, int from, int? to)", true, 0)};
  RandomCall c("random_", args, nargs, kwnames);
  int k = c.parse(sigs, 3, self);
  const Tensor& t = unpack(self);
  if (k == 0) random_(t, c.gen);
  else if (k == 1) random_(t, 0, int_arg(sigs[1], c.A, 1), c.gen);
  else random_(t, int_arg(sigs[2], c.A, 1), opt_int_arg(sigs[2], c.A, 2), c.gen);
  raise_pending_warning();
  return return_self(self);
  EMBER_PY_CATCH
}

EMBER_RANDOM_METHOD(m_bernoulli_) {
  EMBER_PY_TRY
  static Signature sigs[] = {Signature("bernoulli_(Tensor self, Tensor p)", true, 0),
                             Signature("bernoulli_(Tensor self, float p=0.5)", true, 0)};
  RandomCall c("bernoulli_", args, nargs, kwnames);
  int k = c.parse(sigs, 2, self);
  if (k == 0) bernoulli_(unpack(self), sigs[0].tensor(c.A, 1), c.gen);
  else bernoulli_(unpack(self), sigs[1].dbl(c.A, 1), c.gen);
  return return_self(self);
  EMBER_PY_CATCH
}

EMBER_RANDOM_METHOD(m_bernoulli) {
  EMBER_PY_TRY
  static Signature sigs[] = {Signature("bernoulli(Tensor self)", true, 0),
                             Signature("bernoulli(Tensor self, float p)", true, 0)};
  RandomCall c("bernoulli", args, nargs, kwnames);
  int k = c.parse(sigs, 2, self);
  const Tensor& t = unpack(self);
  if (k == 0) return wrap(bernoulli(t, c.gen, nullptr));
  Tensor r = empty(t.sizes(), t.dtype());
  return wrap(bernoulli_(r, sigs[1].dbl(c.A, 1), c.gen));
  EMBER_PY_CATCH
}

EMBER_RANDOM_METHOD(m_multinomial) {
  EMBER_PY_TRY
  static Signature sig("multinomial(Tensor self, int num_samples, bool replacement=False)", true, 0);
  RandomCall c("multinomial", args, nargs, kwnames);
  c.parse(&sig, 1, self);
  return wrap(multinomial(unpack(self), int_arg(sig, c.A, 1), sig.boolean(c.A, 2), c.gen, nullptr));
  EMBER_PY_CATCH
}

#define FASTCALL METH_FASTCALL | METH_KEYWORDS
// Docs: docs_ops/bindings.yaml (document_bindings, at set-up).
#define DEF(name, fn, doc) {name, (PyCFunction)(void (*)())fn, FASTCALL, doc}

PyMethodDef random_functions[] = {DEF("rand", f_rand, nullptr),
                                  DEF("randn", f_randn, nullptr),
                                  DEF("randint", f_randint, nullptr),
                                  DEF("randperm", f_randperm, nullptr),
                                  DEF("rand_like", f_rand_like, nullptr),
                                  DEF("randn_like", f_randn_like, nullptr),
                                  DEF("randint_like", f_randint_like, nullptr),
                                  DEF("normal", f_normal, nullptr),
                                  DEF("bernoulli", f_bernoulli, nullptr),
                                  DEF("multinomial", f_multinomial, nullptr),
                                  DEF("poisson", f_poisson, nullptr),
                                  {nullptr, nullptr, 0, nullptr}};

PyMethodDef random_methods[] = {DEF("uniform_", m_uniform_, nullptr),
                                DEF("normal_", m_normal_, nullptr),
                                DEF("exponential_", m_exponential_, nullptr),
                                DEF("cauchy_", m_cauchy_, nullptr),
                                DEF("log_normal_", m_log_normal_, nullptr),
                                DEF("geometric_", m_geometric_, nullptr),
                                DEF("random_", m_random_, nullptr),
                                DEF("bernoulli_", m_bernoulli_, nullptr),
                                DEF("bernoulli", m_bernoulli, nullptr),
                                DEF("multinomial", m_multinomial, nullptr),
                                {nullptr, nullptr, 0, nullptr}};

}  // namespace

void init_random(PyObject* module) {
  init_generator(module);
  document_bindings(random_functions, false);
  document_bindings(random_methods, true);
  if (PyModule_AddFunctions(module, random_functions) < 0) throw python_error();
  // Method descriptors of TensorBase, installed on ember.Tensor's RandomMethods mixin.
  PyObject* methods = PyDict_New();
  if (!methods) throw python_error();
  for (PyMethodDef* d = random_methods; d->ml_name; ++d) {
    PyObject* descr = PyDescr_NewMethod(TensorBaseType, d);
    if (!descr || PyDict_SetItemString(methods, d->ml_name, descr) < 0) throw python_error();
    Py_DECREF(descr);
  }
  if (PyModule_AddObject(module, "_random_methods", methods) < 0) throw python_error();
}

}  // namespace ember::python
