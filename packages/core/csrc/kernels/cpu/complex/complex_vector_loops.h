// Contiguous complex64 / complex128 runs of the two hot complex kernels, mul and |z|, in
// AVX2 and AVX-512 forms (hand-written: the interleaved real / imaginary lanes need shuffles the
// auto-vectoriser does not find), chosen by cpu_capability() (kernels/cpu/isa_variants.h, form 2).
#pragma once
#include <cstdint>

namespace ember {

// Output runs at least this large (bytes, whole op) are written with streaming stores: they do
// not fit the caches anyway, and a streaming store skips the read-for-ownership of each line.
constexpr int64_t kComplexStreamBytes = int64_t(16) << 20;

// o[k] = a[k] * b[k] (b_scalar: b[0]) for n complex values stored as (re, im) pairs of R,
// with c10::complex's textbook product (each product rounded, no FMA). R = float or double.
template <class R>
void complex_mul_run(const R* a, const R* b, R* o, int64_t n, bool b_scalar, bool stream);

// o[k] = |a[k]| for the n complex values at a: sqrt(re^2 + im^2), as hypot (no overflow or
// underflow of the squares, inf for an infinite part) where those squares leave R's safe range.
template <class R>
void complex_abs_run(const R* a, R* o, int64_t n, bool stream);

}  // namespace ember
