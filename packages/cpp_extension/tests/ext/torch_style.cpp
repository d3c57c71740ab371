// Written against PyTorch's torch/extension.h, unchanged: the tests build it against ember.
#include <torch/extension.h>

#include <vector>

torch::Tensor sin_add(torch::Tensor x, torch::Tensor y) { return x.sin() + y.sin(); }

// Fills `out` in place through an accessor and returns it: the caster must hand back the
// caller's own tensor (same storage, same Python object).
at::Tensor scale_into(at::Tensor out, const at::Tensor& x, double s) {
  TORCH_CHECK(x.sizes() == out.sizes(), "shape mismatch: ", x.sizes(), " vs ", out.sizes());
  TORCH_CHECK(x.dim() == 2, "expected a 2-d tensor, got ", x.dim(), " dims");
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "scale_into", ([&] {
    auto a = x.accessor<scalar_t, 2>();
    auto o = out.accessor<scalar_t, 2>();
    for (int64_t i = 0; i < a.size(0); ++i)
      for (int64_t j = 0; j < a.size(1); ++j) o[i][j] = a[i][j] * static_cast<scalar_t>(s);
  }));
  return out;
}

int64_t data_address(const torch::Tensor& x) { return reinterpret_cast<int64_t>(x.data_ptr()); }

std::vector<torch::Tensor> split_stats(const torch::Tensor& x, c10::optional<torch::Tensor> bias,
                                       std::vector<int64_t> shape) {
  auto y = bias ? x + *bias : x.clone();
  auto z = torch::zeros(shape, torch::TensorOptions().dtype(torch::kFloat64));
  return {y.reshape(shape), z, 1.0 - x.sum(), y.mean({0}, true)};
}

// A fused cell: forward and the hand-written backward, used inside ember.autograd.Function.
std::vector<torch::Tensor> cell_forward(torch::Tensor x, torch::Tensor w) {
  auto h = torch::mm(x, w).tanh();
  return {h};
}
std::vector<torch::Tensor> cell_backward(torch::Tensor grad_h, torch::Tensor x, torch::Tensor w,
                                         torch::Tensor h) {
  auto d = grad_h * (1 - h * h);
  return {d.mm(w.t()), x.t().mm(d)};
}

// Ops called from C++ record autograd like Python calls.
torch::Tensor square_sum(const torch::Tensor& x) { return (x * x).sum(); }

// Registered as ember.ops.ext_test.scaled_add when the module loads.
torch::Tensor scaled_add(torch::Tensor a, torch::Tensor b, double alpha) { return a + b * alpha; }
TORCH_LIBRARY(ext_test, m) { m.def("scaled_add(Tensor a, Tensor b, float alpha) -> Tensor"); }
TORCH_LIBRARY_IMPL(ext_test, CPU, m) { m.impl("scaled_add", &scaled_add); }

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("sin_add", &sin_add, "sin(x) + sin(y)");
  m.def("scale_into", &scale_into);
  m.def("data_address", &data_address);
  m.def("split_stats", &split_stats, py::arg("x"), py::arg("bias") = py::none(), py::arg("shape"));
  m.def("cell_forward", &cell_forward);
  m.def("cell_backward", &cell_backward);
  m.def("square_sum", &square_sum);
}
