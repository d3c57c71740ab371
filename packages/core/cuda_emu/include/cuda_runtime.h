// The CUDA emulator's cuda_runtime.h: the runtime API plus what device code sees (built-in
// variables, intrinsics, atomics and the launch that launch_rewrite.py turns `<<<...>>>` into).
#pragma once
#include "cuda_runtime_api.h"
#include "emu_device.h"
