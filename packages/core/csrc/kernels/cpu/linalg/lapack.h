// The CPU's LAPACK routines (scipy-openblas32), as the backend table's LapackKernels.
#pragma once

#include "kernels/lapack_kernels.h"

namespace ember::lapack {

LapackKernels<float> cpu_lapack_f();
LapackKernels<double> cpu_lapack_d();

}  // namespace ember::lapack
