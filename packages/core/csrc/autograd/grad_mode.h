// Grad mode lives in core (core/grad_mode.h): the layers below autograd read it too (the
// profiler's op records, the in-place checks). This name stays for the autograd code.
#pragma once
#include "core/grad_mode.h"
