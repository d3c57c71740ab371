// PyTorch's namespaces as aliases of ember's C++ API: extension sources written against
// torch/extension.h (torch::Tensor, at::kFloat, c10::optional, ...) compile unchanged.
// Using-directives, not copies: at::Tensor and torch::Tensor are the same type.
#pragma once
#include "tensor.h"

namespace c10 {
using namespace ::ember::ext;
}
namespace at {
using namespace ::ember::ext;
}
namespace torch {
using namespace ::ember::ext;
}
