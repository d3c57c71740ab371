// Private bindings of the whole-sequence recurrent layer used by ember.nn's RNN modules:
// _C._lstm_sequence(xg, h0, c0, w_hh, b_hh, reverse) -> (y, h_n, c_n),
// _C._lstm_layer(x, w_ih, b_ih, h0, c0, w_hh, b_hh, reverse) -> (y, h_n, c_n) (projection inside) and
// _C._gru_sequence(xg, h0, w_hh, b_hh, reverse) -> (y, h_n); b_hh may be None.
#include "../autograd/formulas_nn_rnn.h"
#include "arg_parser.h"
#include "ops/nn/nn_rnn.h"
#include "py_tensor.h"

namespace ember::python {

namespace {

Tensor tensor_arg(PyObject* o, const char* fn, const char* name, bool optional) {
  if (optional && o == Py_None) return Tensor();
  EMBER_CHECK_TYPE(is_tensor(o), fn, "(): argument '", name, "' must be Tensor, not ", Py_TYPE(o)->tp_name);
  return unpack(o);
}

PyObject* as_tuple(const TensorList& ts) {
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(ts.size()));
  if (!t) throw python_error();
  for (size_t i = 0; i < ts.size(); ++i) PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(i), wrap(ts[i]));
  return t;
}

PyObject* f_lstm_sequence(PyObject*, PyObject* args) {
  EMBER_PY_TRY
  PyObject *xg, *h0, *c0, *w_hh, *b_hh;
  int reverse = 0;
  if (!PyArg_ParseTuple(args, "OOOOO|p:_lstm_sequence", &xg, &h0, &c0, &w_hh, &b_hh, &reverse)) throw python_error();
  const char* fn = "_lstm_sequence";
  return as_tuple(ag::rnn_sequence(rnn::kLstm, tensor_arg(xg, fn, "xg", false), tensor_arg(h0, fn, "h0", false),
                                   tensor_arg(c0, fn, "c0", false), tensor_arg(w_hh, fn, "w_hh", false),
                                   tensor_arg(b_hh, fn, "b_hh", true), reverse != 0));
  EMBER_PY_CATCH
}

PyObject* f_lstm_layer(PyObject*, PyObject* args) {
  EMBER_PY_TRY
  PyObject *x, *w_ih, *b_ih, *h0, *c0, *w_hh, *b_hh;
  int reverse = 0;
  if (!PyArg_ParseTuple(args, "OOOOOOO|p:_lstm_layer", &x, &w_ih, &b_ih, &h0, &c0, &w_hh, &b_hh, &reverse))
    throw python_error();
  const char* fn = "_lstm_layer";
  return as_tuple(ag::lstm_layer(tensor_arg(x, fn, "x", false), tensor_arg(w_ih, fn, "w_ih", false),
                                 tensor_arg(b_ih, fn, "b_ih", true), tensor_arg(h0, fn, "h0", false),
                                 tensor_arg(c0, fn, "c0", false), tensor_arg(w_hh, fn, "w_hh", false),
                                 tensor_arg(b_hh, fn, "b_hh", true), reverse != 0));
  EMBER_PY_CATCH
}

PyObject* f_gru_sequence(PyObject*, PyObject* args) {
  EMBER_PY_TRY
  PyObject *xg, *h0, *w_hh, *b_hh;
  int reverse = 0;
  if (!PyArg_ParseTuple(args, "OOOO|p:_gru_sequence", &xg, &h0, &w_hh, &b_hh, &reverse)) throw python_error();
  const char* fn = "_gru_sequence";
  return as_tuple(ag::rnn_sequence(rnn::kGru, tensor_arg(xg, fn, "xg", false), tensor_arg(h0, fn, "h0", false),
                                   Tensor(), tensor_arg(w_hh, fn, "w_hh", false), tensor_arg(b_hh, fn, "b_hh", true),
                                   reverse != 0));
  EMBER_PY_CATCH
}

PyMethodDef rnn_functions[] = {
    {"_lstm_sequence", (PyCFunction)(void (*)())f_lstm_sequence, METH_VARARGS,
     "_lstm_sequence(xg, h0, c0, w_hh, b_hh, reverse=False) -> (y, h_n, c_n)\n\n"
     "One LSTM direction over a whole sequence; xg [T, B, 4H] is the input projection of every step."},
    {"_lstm_layer", (PyCFunction)(void (*)())f_lstm_layer, METH_VARARGS,
     "_lstm_layer(x, w_ih, b_ih, h0, c0, w_hh, b_hh, reverse=False) -> (y, h_n, c_n)\n\n"
     "One LSTM direction over a whole sequence x [T, B, I], its input projection included."},
    {"_gru_sequence", (PyCFunction)(void (*)())f_gru_sequence, METH_VARARGS,
     "_gru_sequence(xg, h0, w_hh, b_hh, reverse=False) -> (y, h_n)\n\n"
     "One GRU direction over a whole sequence; xg [T, B, 3H] is the input projection of every step."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

}  // namespace ember::python

// Called from module.cpp (declared there at the call, so no shared header changes).
void ember_init_rnn(PyObject* module) {
  if (PyModule_AddFunctions(module, ember::python::rnn_functions) < 0) throw ember::python::python_error();
}
