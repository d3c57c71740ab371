// Helpers the CUDA kernels share with the CPU ones (ops.yaml's functors and the scalar math
// under them) are compiled for the host and, under nvcc, for the device too.
//   EMBER_HOST_DEVICE  such a function
//   EMBER_VEC_INLINE   such a function, forced inline (into the CPU's simd loops: in large files
//                      GCC otherwise calls it per element and the loop cannot vectorise)
//   EMBER_VEC_LAMBDA   a (host) lambda's call operator forced inline into the simd loop that calls it
//   EMBER_DEVICE_TABLE a constant array such helpers read
#pragma once
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define EMBER_VEC_LAMBDA __attribute__((always_inline))
#else
#define EMBER_VEC_LAMBDA
#endif
#if defined(__CUDACC__)
#define EMBER_HOST_DEVICE __host__ __device__
#define EMBER_VEC_INLINE __host__ __device__ __forceinline__
#else
#define EMBER_HOST_DEVICE
#if defined(__GNUC__) || defined(__clang__)
#define EMBER_VEC_INLINE inline __attribute__((always_inline))
#else
#define EMBER_VEC_INLINE inline
#endif
#endif
// A constant table that device code reads too: under nvcc's device pass, its own copy in device
// memory (a plain constexpr array is host memory there).
#if defined(__CUDA_ARCH__)
#define EMBER_DEVICE_TABLE __device__
#else
#define EMBER_DEVICE_TABLE
#endif
