// gelu(x) = x Phi(x) and its derivative Phi(x) + x phi(x) over contiguous float32 arrays
// (ops/nn_activation.yaml's `array:`), where the kernel is built for AVX-512: the factor from
// 32 polynomials of degree 7, one per interval of width 3/8 on [-6.18, 5.8], each picked with
// vpermt2ps and summed by Horner's rule: 23 vector instructions per 16 values, against about 47
// for vec::normcdf's exp and degree-12 series (oneDNN, PyTorch's gelu, also reads a table).
// Against the exact value, every float: gelu within 2 ulp for x > -4, 5.2 ulp down to -6.18,
// and x * 0 below (|gelu| < 2e-9 there, PyTorch's float formula is 0 from -5.45); the
// derivative within about 4 ulp (absolute 1e-8 around its zero at -0.7518), 1 + 0 * x from 5.8125
// (NaN at +inf, as its formula) and the formula's own lanes below -6.18 (rare: blocks holding one). Tables from
// tools/fit_gelu_table.py. Elsewhere (and float64) the loops of activation_ops.h's bodies.
#pragma once
#include <cstdint>
#include <type_traits>

#include "kernels/cpu/pointwise/activation_ops.h"
#include "kernels/cpu/pointwise/map16.h"

namespace ember::ops {
namespace {

// kGeluPhi[k][j mod 32]: coefficient of u^k on interval j, u = x K - j, K = 8/3.
alignas(64) constexpr float kGeluPhi[8][32] = {
    {0x1.000000p-1f,  0x1.4ad6c4p-1f,  0x1.8bf780p-1f,  0x1.bd4a0ap-1f,  0x1.ddcb72p-1f,  0x1.f06fe4p-1f,
     0x1.f9bdb6p-1f,  0x1.fdc824p-1f,  0x1.ff4f10p-1f,  0x1.ffcfa0p-1f,  0x1.fff46ap-1f,  0x1.fffd92p-1f,
     0x1.ffff8ep-1f,  0x1.ffffeep-1f,  0x1.fffffep-1f,  0x1.000000p+0f,  0x1.0f3100p-30f, 0x1.3eb358p-27f,
     0x1.46a17ep-24f, 0x1.2414a8p-21f, 0x1.c8073cp-19f, 0x1.36febap-16f, 0x1.72d962p-14f, 0x1.8301c8p-12f,
     0x1.61de26p-10f, 0x1.1bee70p-8f,  0x1.909254p-7f,  0x1.f2039ap-6f,  0x1.11a470p-4f,  0x1.0ad7dcp-3f,
     0x1.d02202p-3f,  0x1.6a527ap-2f},
    {0x1.32633ep-3f,  0x1.1d95b0p-3f,  0x1.ce8c0ep-4f,  0x1.45714ap-4f,  0x1.8de0c8p-5f,  0x1.a69f78p-6f,
     0x1.860452p-7f,  0x1.38b5a6p-8f,  0x1.b3ab24p-10f, 0x1.07acbep-11f, 0x1.154aecp-13f, 0x1.fab788p-16f,
     0x1.923e86p-18f, 0x1.156c26p-20f, 0x1.4c77fap-23f, 0x0.0p+0f,       0x1.39263ep-29f, 0x1.5a2b20p-26f,
     0x1.4c7802p-23f, 0x1.156c2ap-20f, 0x1.923e8ap-18f, 0x1.fab78ap-16f, 0x1.154aecp-13f, 0x1.07acbep-11f,
     0x1.b3ab24p-10f, 0x1.38b5a4p-8f,  0x1.860454p-7f,  0x1.a69f78p-6f,  0x1.8de0ccp-5f,  0x1.45714cp-4f,
     0x1.ce8c10p-4f,  0x1.1d95b0p-3f},
    {0x1.977424p-39f,  -0x1.414d7ep-7f,  -0x1.043002p-6f,  -0x1.129a92p-6f,  -0x1.bf9bfap-7f,  -0x1.292e54p-7f,
     -0x1.4908a8p-8f,  -0x1.33eea6p-9f,  -0x1.e9ab12p-11f, -0x1.4def1ap-12f, -0x1.891706p-14f, -0x1.87c180p-16f,
     -0x1.53d7a0p-18f, -0x1.3e5a88p-20f, -0x1.6a186cp-21f, 0x0.0p+0f,        0x1.604bb2p-29f,  0x1.6d19e8p-26f,
     0x1.474660p-23f,  0x1.fb29dep-21f,  0x1.5364c8p-18f,  0x1.87e9ecp-16f,  0x1.85f13ap-14f,  0x1.4db68ep-12f,
     0x1.ea20a0p-11f,  0x1.33d2e0p-9f,   0x1.491392p-8f,   0x1.2927e2p-7f,   0x1.bf9bf6p-7f,   0x1.129698p-6f,
     0x1.042e04p-6f,   0x1.41458ap-7f},
    {-0x1.cb95dap-9f,  -0x1.7029d4p-9f, -0x1.2f8cecp-10f, 0x1.034e08p-11f, 0x1.750636p-10f, 0x1.8ead58p-10f,
     0x1.29162ep-10f,  0x1.596140p-11f, 0x1.46c0d8p-12f,  0x1.00da08p-13f, 0x1.53926ep-15f, 0x1.7c68cap-17f,
     0x1.6af698p-19f,  0x1.280c56p-21f, 0x1.9df676p-24f,  0x0.0p+0f,       0x1.00dd88p-29f, 0x1.f12d34p-27f,
     0x1.9df452p-24f,  0x1.280b56p-21f, 0x1.6af5aap-19f,  0x1.7c684cp-17f, 0x1.53926cp-15f, 0x1.00d9fap-13f,
     0x1.46c0c2p-12f,  0x1.596328p-11f, 0x1.291450p-10f,  0x1.8ead44p-10f, 0x1.74f7a0p-10f, 0x1.03316ap-11f,
     -0x1.2f9a4ep-10f, -0x1.7029dap-9f},
    {-0x1.428624p-35f, 0x1.5d8e7ap-12f,  0x1.de1534p-12f,  0x1.6b1c02p-12f,  0x1.f4014cp-14f,  -0x1.9a6366p-15f,
     -0x1.096b1cp-13f, -0x1.a57ccap-14f, -0x1.30d488p-14f, -0x1.f10110p-16f, -0x1.9930bep-18f, -0x1.067da6p-18f,
     -0x1.042bdap-20f, 0x1.c45ae6p-20f,  0x1.131ad4p-18f,  0x0.0p+0f,        0x1.1053bep-30f,  0x1.e9f86ep-28f,
     0x1.78b710p-25f,  0x1.ed98a0p-23f,  0x1.1269e6p-20f,  0x1.017a8ap-18f,  0x1.94717ap-17f,  0x1.0686cep-15f,
     0x1.13aceep-14f,  0x1.c1098cp-14f,  0x1.fd2eb6p-14f,  0x1.cd8932p-15f,  -0x1.f3e76ep-14f, -0x1.63356ap-12f,
     -0x1.da1f0ep-12f, -0x1.55a830p-12f},
    {0x1.370e98p-14f,  0x1.b1a718p-15f, -0x1.ddaaacp-21f, -0x1.43e1e6p-15f, -0x1.7027e2p-15f, -0x1.94a9c4p-16f,
     -0x1.da6440p-19f, 0x1.e765bap-18f, 0x1.132916p-17f,  0x1.66197ep-18f,  0x1.54bc1ep-19f,  0x1.fcd0c2p-21f,
     0x1.353034p-22f,  0x1.370654p-24f, 0x1.05c882p-26f,  0x0.0p+0f,        0x1.c0016ap-32f,  0x1.74295ap-29f,
     0x1.060f72p-26f,  0x1.3746aap-24f, 0x1.3569d2p-22f,  0x1.fd0f50p-21f,  0x1.54bdd8p-19f,  0x1.662daep-18f,
     0x1.134810p-17f,  0x1.dff546p-18f, -0x1.bd8aaep-19f, -0x1.946f40p-16f, -0x1.623954p-15f, -0x1.3657d6p-15f,
     0x1.307bdep-21f,  0x1.b1b8c4p-15f},
    {0x1.c86782p-34f,  -0x1.31ce00p-16f, -0x1.cb3314p-17f, -0x1.13cc14p-16f, 0x1.f4ca10p-19f,  -0x1.3d23b0p-17f,
     0x1.e7c43ep-17f,  -0x1.d90e5ep-17f, 0x1.032a6ep-16f,  -0x1.220fdep-18f, -0x1.d17448p-17f, -0x1.fa08fcp-29f,
     -0x1.884b46p-23f, -0x1.249e04p-18f, -0x1.3b6288p-17f, 0x0.0p+0f,        0x1.2eec9cp-33f,  0x1.cb9956p-31f,
     0x1.2477e4p-28f,  0x1.35228cp-26f,  0x1.0bd730p-24f,  0x1.739282p-23f,  0x1.8947c2p-22f,  0x1.1d32c2p-21f,
     0x1.51502ep-22f,  -0x1.aabc10p-21f, -0x1.7bda94p-19f, -0x1.258b62p-18f, -0x1.fe0c1ap-19f, -0x1.63d208p-21f,
     0x1.56ac2ap-18f,  0x1.2f8e20p-20f},
    {-0x1.b90784p-20f, -0x1.34bbd8p-18f, -0x1.b120a2p-23f, -0x1.1204f8p-21f, 0x1.6afea4p-20f,  -0x1.331648p-21f,
     -0x1.624518p-26f, -0x1.b8ed0ep-22f, -0x1.b11e92p-25f, 0x1.686b9ap-27f,  0x1.b20a80p-26f,  0x1.81fb82p-26f,
     0x1.5e6b38p-27f,  0x1.d9fcaap-29f,  0x1.ffdc0cp-31f,  0x0.0p+0f,        0x1.323ffcp-35f,  0x1.aa2efcp-33f,
     0x1.eb300ap-31f,  0x1.c78c7ap-29f,  0x1.4e4714p-27f,  0x1.703684p-26f,  0x1.af7ccap-26f,  0x1.f8c3cep-28f,
     -0x1.015a8cp-24f, -0x1.5ae26cp-23f, -0x1.0cce3ap-21f, -0x1.46d6eap-21f, -0x1.393d62p-19f, -0x1.115218p-18f,
     -0x1.c13c7cp-19f, -0x1.363b46p-18f},
};
alignas(64) constexpr float kGeluPhiPrime[8][32] = {
    {0x1.000000p-1f,   0x1.923c30p-1f,   0x1.ff9a84p-1f,   0x1.1baa42p+0f,   0x1.20a1d2p+0f,   0x1.193c66p+0f,
     0x1.0f2710p+0f,   0x1.07710ap+0f,   0x1.030edep+0f,   0x1.011072p+0f,   0x1.0050dcp+0f,   0x1.00148ep+0f,
     0x1.00047ep+0f,   0x1.0000d8p+0f,   0x1.000024p+0f,   0x1.000004p+0f,   -0x1.30ac98p-25f, -0x1.3a92c2p-22f,
     -0x1.18b3eep-19f, -0x1.b08e74p-17f, -0x1.1f6eacp-14f, -0x1.48ee42p-12f, -0x1.43700ep-10f, -0x1.10723ap-8f,
     -0x1.876f60p-7f,  -0x1.dc4244p-6f,  -0x1.e4e1e8p-5f,  -0x1.93c66ep-4f,  -0x1.050e92p-3f,  -0x1.baa428p-4f,
     0x1.95f32cp-11f,  0x1.b70f44p-3f},
    {0x1.32633ep-2f,   0x1.09812ap-2f,   0x1.4c74acp-3f,   0x1.ddfe66p-5f,   -0x1.8de0bap-7f,  -0x1.4044d4p-5f,
     -0x1.2a9b50p-5f,  -0x1.7e5616p-6f,  -0x1.7d35bcp-7f,  -0x1.358244p-8f,  -0x1.a21af4p-10f, -0x1.db8ab8p-12f,
     -0x1.cacf50p-14f, -0x1.79645cp-16f, -0x1.0995d8p-18f, -0x1.40a51ep-21f, -0x1.4cb892p-24f, -0x1.40a528p-21f,
     -0x1.0995d8p-18f, -0x1.796460p-16f, -0x1.cacf52p-14f, -0x1.db8abap-12f, -0x1.a21af2p-10f, -0x1.358244p-8f,
     -0x1.7d35bep-7f,  -0x1.7e5614p-6f,  -0x1.2a9b4ep-5f,  -0x1.4044d4p-5f,  -0x1.8de0bcp-7f,  0x1.ddfe6ap-5f,
     0x1.4c74aap-3f,   0x1.09812ap-2f},
    {0x1.7f2c88p-35f,  -0x1.35fe82p-5f,  -0x1.bf31f6p-5f,  -0x1.776982p-5f,  -0x1.87a7bcp-6f,  -0x1.1fc20ap-8f,
     0x1.5d8c60p-8f,   0x1.bcc8d4p-8f,   0x1.326c24p-8f,   0x1.34598ap-9f,   0x1.ea7d2cp-11f,  0x1.4094b8p-12f,
     0x1.568c24p-14f,  0x1.42183ap-16f,  0x1.f49f32p-20f,  0x1.374548p-19f,  -0x1.604b54p-24f, -0x1.3b5cd0p-21f,
     -0x1.e1f678p-19f, -0x1.394318p-16f, -0x1.58b23ap-14f, -0x1.3ed018p-12f, -0x1.ea79b6p-11f, -0x1.344b26p-9f,
     -0x1.325454p-8f,  -0x1.bce698p-8f,  -0x1.5da42ep-8f,  0x1.1fddd0p-8f,   0x1.87a9b6p-6f,   0x1.776b7ep-5f,
     0x1.bf3064p-5f,   0x1.35fc84p-5f},
    {-0x1.cb9558p-7f,  -0x1.451718p-7f,  -0x1.06f91cp-10f, 0x1.8d8ff0p-8f,   0x1.f2e69cp-8f,   0x1.46db60p-8f,
     0x1.a8cebcp-10f,  -0x1.7c9e68p-12f, -0x1.c14cf6p-11f, -0x1.4dc9bep-11f, -0x1.4fba50p-12f, -0x1.02efeap-13f,
     -0x1.40e800p-15f, -0x1.4717ccp-17f, -0x1.15f6b6p-19f, -0x1.8d600ep-22f, -0x1.e0b74cp-25f, -0x1.8d5d7ep-22f,
     -0x1.15f6bep-19f, -0x1.4716e0p-17f, -0x1.40e798p-15f, -0x1.02ef68p-13f, -0x1.4fbb4ap-12f, -0x1.4dc97cp-11f,
     -0x1.c148e2p-11f, -0x1.7caf24p-12f, 0x1.a8c7ecp-10f,  0x1.46dbaap-8f,   0x1.f2e714p-8f,   0x1.8d8c0ep-8f,
     -0x1.06dd0ep-10f, -0x1.451688p-7f},
    {-0x1.2fe2fcp-31f, 0x1.f1cddep-10f,  0x1.289e3ap-9f,   0x1.22b7ccp-10f,  -0x1.1e457ep-12f, -0x1.d64806p-11f,
     -0x1.6df40cp-11f, -0x1.1aec52p-12f, -0x1.7a42f8p-17f, 0x1.50f50cp-14f,  0x1.16295cp-14f,  0x1.484234p-16f,
     0x1.105f58p-16f,  -0x1.4d17fcp-21f, 0x1.e80cd4p-17f,  -0x1.c78e8cp-17f, -0x1.d9918ep-26f, -0x1.66d1e8p-23f,
     -0x1.c6e47ap-21f, -0x1.dd840cp-19f, -0x1.985152p-17f, -0x1.1462d8p-15f, -0x1.1704a6p-14f, -0x1.5f3c98p-14f,
     0x1.04f960p-27f,  0x1.29b066p-12f,  0x1.73db4ap-11f,  0x1.cf64d4p-11f,  0x1.1a5b9cp-12f,  -0x1.24af88p-10f,
     -0x1.27d71cp-9f,  -0x1.efd2acp-10f},
    {0x1.d1ba10p-12f,  0x1.10a15ep-12f,  -0x1.bb1156p-14f, -0x1.3bbc96p-12f, -0x1.c75a1cp-13f, -0x1.e6916cp-16f,
     0x1.45c4ccp-14f,  0x1.44a6d6p-14f,  0x1.23b850p-15f,  0x1.88d646p-19f,  -0x1.cea814p-18f, -0x1.7d2596p-18f,
     -0x1.6da3cap-19f, -0x1.fe1ab0p-21f, -0x1.16c0cep-22f, -0x1.ebed6ap-25f, -0x1.665e6ep-27f, -0x1.ec93bap-25f,
     -0x1.16be32p-22f, -0x1.fe8c4cp-21f, -0x1.6dd2a2p-19f, -0x1.7da79ap-18f, -0x1.ccb9e8p-18f, 0x1.85e64cp-19f,
     0x1.21ac44p-15f,  0x1.46c5cep-14f,  0x1.48e87ap-14f,  -0x1.e9d7aep-16f, -0x1.c7cdf4p-13f, -0x1.39d476p-12f,
     -0x1.c836b6p-14f, 0x1.0fd5f8p-12f},
    {0x1.ae7922p-30f,  -0x1.2554d6p-14f, -0x1.19b24ep-14f, 0x1.034df2p-17f,  0x1.28ad06p-15f,  0x1.ebbe7ep-15f,
     -0x1.354e3cp-16f, -0x1.3c449ep-15f, 0x1.367b28p-16f,  0x1.284d26p-18f,  0x1.a701c0p-24f,  0x1.02c000p-15f,
     -0x1.2787a4p-17f, 0x1.4436e6p-17f,  -0x1.0408aap-15f, 0x1.058ebcp-15f,  -0x1.b68a6ep-29f, -0x1.0cae56p-26f,
     -0x1.08ccc0p-24f, -0x1.93eb8cp-23f, -0x1.ba563cp-22f, -0x1.0cfc40p-21f, 0x1.86ccf2p-22f,  0x1.bbb02cp-19f,
     0x1.d87b26p-18f,  0x1.832030p-18f,  -0x1.dc13e4p-18f, -0x1.e3c208p-16f, -0x1.c38ce8p-16f, 0x1.378f28p-17f,
     0x1.c2a182p-15f,  0x1.baaa1ap-15f},
    {-0x1.649006p-17f, -0x1.c677dap-17f, -0x1.3be1dep-21f, 0x1.24039ep-17f,  0x1.2cc9b6p-19f,  -0x1.08931ep-18f,
     -0x1.031cdep-21f, 0x1.01f518p-22f,  -0x1.e3d18ep-23f, 0x1.1548bap-21f,  0x1.20ecdap-22f,  -0x1.06381ep-29f,
     -0x1.1888eep-25f, -0x1.c9bdacp-26f, -0x1.71a7fap-27f, -0x1.cca4a4p-29f, -0x1.90cb74p-31f, -0x1.b4b616p-29f,
     -0x1.727846p-27f, -0x1.aa0a9ep-26f, -0x1.fee19ep-26f, 0x1.0728fap-26f,  0x1.b5e73cp-23f,  0x1.3477eap-21f,
     0x1.643c50p-22f,  -0x1.ee02a8p-21f, -0x1.1ae264p-19f, -0x1.cbe408p-19f, 0x1.6d6572p-19f,  0x1.34ee1ep-18f,
     0x1.a624acp-18f,  -0x1.835b52p-17f},
};

#if defined(__AVX512F__)
// x K's interval j (x clamped to [-6.18, 5.8]) and the polynomial there, in u = x K - j.
struct GeluTable512 {
  __m512 lo[8], hi[8];
  explicit GeluTable512(const float (&t)[8][32]) {
    for (int k = 0; k < 8; ++k) {
      lo[k] = _mm512_loadu_ps(t[k]);
      hi[k] = _mm512_loadu_ps(t[k] + 16);
    }
  }
  __m512 operator()(__m512 x) const {
    // max/min return their second operand when either is NaN: x second keeps a NaN
    const __m512 xc = _mm512_min_ps(_mm512_set1_ps(5.8f), _mm512_max_ps(_mm512_set1_ps(-6.18f), x));
    const __m512 k = _mm512_set1_ps(0x1.555556p+1f), shift = _mm512_set1_ps(0x1.8p23f);
    const __m512 kd = _mm512_fmadd_ps(xc, k, shift);  // j in the low bits
    const __m512 u = _mm512_fmsub_ps(xc, k, _mm512_sub_ps(kd, shift));
    const __m512i j = _mm512_castps_si512(kd);
    __m512 p = _mm512_permutex2var_ps(lo[7], j, hi[7]);
#pragma GCC unroll 8
    for (int d = 6; d >= 0; --d) p = _mm512_fmadd_ps(p, u, _mm512_permutex2var_ps(lo[d], j, hi[d]));
    return p;
  }
};

#endif

template <class T>
inline void gelu_n(const T* in, T* out, int64_t n) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    const GeluTable512 phi(kGeluPhi);
    map16(
        out, n,
        [&](__m512 x) {
          const __mmask16 inside = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-6.18f), _CMP_NLT_UQ);
          return _mm512_mul_ps(x, _mm512_maskz_mov_ps(inside, phi(x)));
        },
        in);
    return;
  }
#endif
  map_n(out, n, [](T x) EMBER_VEC_LAMBDA { return gelu_erf(x); }, in);
}

template <class T>
inline void gelu_backward_n(const T* dy, const T* in, T* out, int64_t n) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    const GeluTable512 prime(kGeluPhiPrime);
    const auto f = [&](__m512 d, __m512 x) {
      const __mmask16 past = _mm512_cmp_ps_mask(x, _mm512_set1_ps(5.8125f), _CMP_GE_OQ);
      // 1 + x * 0 from 5.8125: NaN at +inf, as the formula
      const __m512 one = _mm512_set1_ps(1.f);
      __m512 r = _mm512_mul_ps(d, _mm512_mask_mov_ps(prime(x), past, _mm512_fmadd_ps(x, _mm512_setzero_ps(), one)));
      if (const __mmask16 below = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-6.18f), _CMP_LT_OQ)) {
        // the derivative stays nonzero down to -14.1 (an infinite gradient gives -inf there, not
        // NaN): the formula, lane by lane
        alignas(64) float xs[16], ds[16], rs[16];
        _mm512_store_ps(xs, x);
        _mm512_store_ps(ds, d);
        _mm512_store_ps(rs, r);
        for (int l = 0; l < 16; ++l)
          if ((below >> l) & 1) rs[l] = gelu_erf_backward(ds[l], xs[l]);
        r = _mm512_load_ps(rs);
      }
      return r;
    };
    map16(out, n, f, dy, in);
    return;
  }
#endif
  map_n(out, n, [](T g, T x) EMBER_VEC_LAMBDA { return gelu_erf_backward(g, x); }, dy, in);
}

}  // namespace
}  // namespace ember::ops
