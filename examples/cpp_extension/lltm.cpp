// A fused LLTM cell (the shape of the classic C++ extension tutorial): forward and a
// hand-written backward in C++, written against torch/extension.h, built against ember.
#include <torch/extension.h>

#include <vector>

namespace {

torch::Tensor d_sigmoid(const torch::Tensor& z) {
  auto s = torch::sigmoid(z);
  return (1 - s) * s;
}
torch::Tensor d_tanh(const torch::Tensor& z) { return 1 - z.tanh().pow(2); }
// elu(z) = z for z > 0, exp(z) - 1 otherwise; exp(min(z, 0)) never overflows.
torch::Tensor elu(const torch::Tensor& z) {
  return z.relu() + (torch::minimum(z, torch::zeros_like(z)).exp() - 1);
}
torch::Tensor d_elu(const torch::Tensor& z) { return torch::minimum(z, torch::zeros_like(z)).exp(); }

}  // namespace

std::vector<torch::Tensor> lltm_forward(torch::Tensor input, torch::Tensor weights, torch::Tensor bias,
                                        torch::Tensor old_h, torch::Tensor old_cell) {
  TORCH_CHECK(weights.dim() == 2 && weights.size(0) == 3 * old_h.size(1),
              "lltm_forward: weights must be [3 * state, state + input], got ", weights.sizes());
  auto X = torch::cat({old_h, input}, /*dim=*/1);
  auto gate_weights = torch::addmm(bias, X, weights.t());
  const int64_t S = old_h.size(1);
  auto input_gate = torch::sigmoid(gate_weights.narrow(1, 0, S));
  auto output_gate = torch::sigmoid(gate_weights.narrow(1, S, S));
  auto candidate_cell = elu(gate_weights.narrow(1, 2 * S, S));
  auto new_cell = old_cell + candidate_cell * input_gate;
  auto new_h = torch::tanh(new_cell) * output_gate;
  return {new_h, new_cell, input_gate, output_gate, candidate_cell, X, gate_weights};
}

std::vector<torch::Tensor> lltm_backward(torch::Tensor grad_h, torch::Tensor grad_cell, torch::Tensor new_cell,
                                         torch::Tensor input_gate, torch::Tensor output_gate,
                                         torch::Tensor candidate_cell, torch::Tensor X,
                                         torch::Tensor gate_weights, torch::Tensor weights) {
  const int64_t S = new_cell.size(1);
  auto d_output_gate = torch::tanh(new_cell) * grad_h;
  auto d_new_cell = d_tanh(new_cell) * (output_gate * grad_h) + grad_cell;
  auto d_old_cell = d_new_cell;
  auto d_candidate_cell = input_gate * d_new_cell;
  auto d_input_gate = candidate_cell * d_new_cell;
  d_input_gate = d_input_gate * d_sigmoid(gate_weights.narrow(1, 0, S));
  d_output_gate = d_output_gate * d_sigmoid(gate_weights.narrow(1, S, S));
  d_candidate_cell = d_candidate_cell * d_elu(gate_weights.narrow(1, 2 * S, S));
  auto d_gates = torch::cat({d_input_gate, d_output_gate, d_candidate_cell}, /*dim=*/1);
  auto d_weights = d_gates.t().mm(X);
  auto d_bias = d_gates.sum(/*dim=*/0);
  auto d_X = d_gates.mm(weights);
  auto d_old_h = d_X.narrow(1, 0, S);
  auto d_input = d_X.narrow(1, S, X.size(1) - S);
  return {d_old_h, d_input, d_weights, d_bias, d_old_cell};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &lltm_forward, "LLTM forward");
  m.def("backward", &lltm_backward, "LLTM backward");
}
