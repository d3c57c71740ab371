// Derivative helpers for the linalg ops (ops/linalg.yaml), built from ag:: ops.
#pragma once
#include "../core/tensor.h"

namespace ember {}  // namespace ember
