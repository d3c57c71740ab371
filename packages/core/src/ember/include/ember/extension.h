// Everything a C++ extension for ember needs: the tensor API, the pybind11 casters and the
// PyTorch compatibility names. (torch/extension.h is this header under PyTorch's name.)
#pragma once
#include "ext/python.h"
#include "ext/compat.h"
#include "ext/library.h"

namespace py = pybind11;
