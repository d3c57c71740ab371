// Derivative helpers for the index ops (ops/index.yaml), built from ag:: ops.
#pragma once
#include "../core/tensor.h"

namespace ember {}  // namespace ember
