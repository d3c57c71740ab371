// Derivative helpers for the shape ops (ops/shape.yaml), built from ag:: ops.
#pragma once
#include "../core/tensor.h"

namespace ember {}  // namespace ember
