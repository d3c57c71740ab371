// The arguments of the loss kernels (kernels/backend.h, LossKernels): device-independent, so
// the backend table can name them for every device.
#pragma once
#include <cstdint>

namespace ember::loss {

// nll_loss over n rows of c class scores (contiguous): the rows' classes (int64; checked by the
// op on the CPU, by the kernel on a GPU) with ignore_index skipped, the class weights as doubles
// (null: all 1), all on the op's device. per_sample (reduction none of a
// 2-d input): n losses; else one, the mean by the weight sum for reduction 1, else the sum.
struct Nll {
  int64_t n = 0, c = 0;
  const int64_t* target = nullptr;
  const double* weight = nullptr;
  int64_t ignore_index = -100;
  bool per_sample = false;
  int64_t reduction = 1;
};

}  // namespace ember::loss
