// Coefficients of the Bessel functions' power series (in x^2) and Hankel expansions (in 1/x^2) for
// special_bessel.h, summed by Horner's rule over the whole table (no data-dependent exit: the
// array forms vectorise it). Each is the exact rational rounded once to double (Python's
// Fraction -> float).
#pragma once
#include "core/host_device.h"

namespace ember::special {
namespace {

// J_0(x) = sum_k c_k x^2k, c_k = (-1/4)^k / (k!)^2, k <= 32 (|x| < 13: the next term is below 1e-19).
EMBER_DEVICE_TABLE constexpr double kJ0Series[] = {
    0x1.0000000000000p+0,   -0x1.0000000000000p-2,   0x1.0000000000000p-6,   -0x1.c71c71c71c71cp-12,
    0x1.c71c71c71c71cp-18,  -0x1.23456789abcdfp-24,  0x1.02e85c0898b71p-31,  -0x1.522a43f65486ap-39,
    0x1.522a43f65486ap-47,  -0x1.0b313289be0b9p-55,  0x1.5601885e63e5dp-64,  -0x1.69ca9cf3b7f54p-73,
    0x1.4197a7f5154bcp-82,  -0x1.e725594ee52e9p-92,  0x1.3e22d70ef3b5fp-101, -0x1.69f7da8510bcdp-111,
    0x1.69f7da8510bcdp-121, -0x1.40a2dc2460523p-131, 0x1.faaf2fa1c79e5p-142, -0x1.674f8e46c208cp-152,
    0x1.cbeaf38dc529fp-163, -0x1.0afb53e9cec0bp-173, 0x1.1a6d4e307528fp-184, -0x1.1159d2b18fe1fp-195,
    0x1.e5f504c9e358cp-207, -0x1.8e189760fbc74p-218, 0x1.2d843c1f0a6f9p-229, -0x1.a787875e855a5p-241,
    0x1.149733d53cf71p-252, -0x1.50c6b70b8d80dp-264, 0x1.7f2d2fd687f7dp-276, -0x1.984bda886ca72p-288,
    0x1.984bda886ca72p-300};

// J_1(x) = x/2 sum_k c_k x^2k, c_k = (-1/4)^k / (k! (k+1)!), k <= 31.
EMBER_DEVICE_TABLE constexpr double kJ1Series[] = {
    0x1.0000000000000p+0,   -0x1.0000000000000p-3,   0x1.5555555555555p-8,   -0x1.c71c71c71c71cp-14,
    0x1.6c16c16c16c17p-20,  -0x1.845c8a0ce5129p-27,  0x1.27e4fb7789f5cp-34,  -0x1.522a43f65486ap-42,
    0x1.2c9758daf5cd0p-50,  -0x1.ab81ea75fcdf4p-59,  0x1.f17697cf1cf13p-68,  -0x1.e2637bef9ff1ap-77,
    0x1.8bce58901a35ep-86,  -0x1.165e7c2d153f3p-95,  0x1.53585cdcbfb10p-105, -0x1.69f7da8510bcdp-115,
    0x1.54ad09e6a6575p-125, -0x1.1d028acb00491p-135, 0x1.aaae78f4066a6p-146, -0x1.1f72d8389b3a3p-156,
    0x1.5e69de22df5cep-167, -0x1.84564b82a1184p-178, 0x1.88f11edf3ed4cp-189, -0x1.6c77c3976a829p-200,
    0x1.37033643c4b3bp-211, -0x1.e9f6e1b270f54p-223, 0x1.655a5a37c0843p-234, -0x1.e4089ab52ab05p-246,
    0x1.313415e2783ccp-257, -0x1.673a5cd91f786p-269, 0x1.8b897bb42941ep-281, -0x1.984bda886ca72p-293};

// Y_0's series: c_k = (-1/4)^k 2 H_k / (k!)^2, k <= 32 (H_k = 1 + 1/2 + ... + 1/k).
EMBER_DEVICE_TABLE constexpr double kY0Series[] = {0x0.0p+0,
                                                   -0x1.0000000000000p-1,
                                                   0x1.8000000000000p-5,
                                                   -0x1.a12f684bda12fp-10,
                                                   0x1.da12f684bda13p-16,
                                                   -0x1.4c88d634a424bp-22,
                                                   0x1.3d2970bdbb137p-29,
                                                   -0x1.b6682a64d5cf7p-37,
                                                   0x1.cb8acea43b17dp-45,
                                                   -0x1.79f068734aa1bp-53,
                                                   0x1.f4dcc2465f674p-62,
                                                   -0x1.1124367d45fb2p-70,
                                                   0x1.f2fc07de40da8p-80,
                                                   -0x1.834c1a3ba6611p-89,
                                                   0x1.029c1e1d6d16ep-98,
                                                   -0x1.2c45f8adf02aep-108,
                                                   0x1.31edd818046ddp-118,
                                                   -0x1.13b613b541933p-128,
                                                   0x1.babaa74fb052bp-139,
                                                   -0x1.3eaf6d59b5219p-149,
                                                   0x1.9daa860d8ecaep-160,
                                                   -0x1.e69f435d945afp-171,
                                                   0x1.0498a76dd0dbbp-181,
                                                   -0x1.fe62cb94aee41p-193,
                                                   0x1.cabd09747cf02p-204,
                                                   -0x1.7bc78bebf7d14p-215,
                                                   0x1.228af6ac34087p-226,
                                                   -0x1.9c095e4aa465dp-238,
                                                   0x1.0f8dffac721c3p-249,
                                                   -0x1.4d8c369a49b9ap-261,
                                                   0x1.7eb2413a023e1p-273,
                                                   -0x1.9b13cbfe4ffc6p-285,
                                                   0x1.9e4463b360d5ap-297};

// Y_1's series: c_k = (-1/4)^k (H_k + H_(k+1)) / (k! (k+1)!), k <= 31.
EMBER_DEVICE_TABLE constexpr double kY1Series[] = {
    0x1.0000000000000p+0,   -0x1.4000000000000p-2,   0x1.1c71c71c71c72p-6,   -0x1.bda12f684bda1p-12,
    0x1.8d76b54932710p-18,  -0x1.cb8fa35c0f11cp-25,  0x1.7509d2f888715p-32,  -0x1.c0f97c848873ap-40,
    0x1.a0d4ebed66059p-48,  -0x1.33b1f34a8210fp-56,  0x1.71eaa07871598p-65,  -0x1.7136a746dc4ebp-74,
    0x1.36df8a9dd9648p-83,  -0x1.bf98a95743194p-93,  0x1.16ada96e0706bp-102, -0x1.2f19e862fa4c5p-112,
    0x1.22702f384cebcp-122, -0x1.ee1c9dda62cddp-133, 0x1.77a1b2bdf993dp-143, -0x1.00bea8d4eb79ap-153,
    0x1.3d428d8d95be3p-164, -0x1.641d0b9a9e43cp-175, 0x1.6cb44ead7a943p-186, -0x1.5627d21293d0cp-197,
    0x1.2725ccb8f89fbp-208, -0x1.d5c6c85f9678ep-220, 0x1.5a0060079c309p-231, -0x1.d90f51061d377p-243,
    0x1.2cf64ac4c742bp-254, -0x1.6547eff68b923p-266, 0x1.8ca2e1c3d50fdp-278, -0x1.9cac17d8d8690p-290};

// I_0(x) = sum_k c_k x^2k, c_k = (1/4)^k / (k!)^2, k <= 45 (|x| <= 30: the next term is below 1e-19 I_0(x)).
EMBER_DEVICE_TABLE constexpr double kI0Series[] = {
    0x1.0000000000000p+0,   0x1.0000000000000p-2,   0x1.0000000000000p-6,   0x1.c71c71c71c71cp-12,
    0x1.c71c71c71c71cp-18,  0x1.23456789abcdfp-24,  0x1.02e85c0898b71p-31,  0x1.522a43f65486ap-39,
    0x1.522a43f65486ap-47,  0x1.0b313289be0b9p-55,  0x1.5601885e63e5dp-64,  0x1.69ca9cf3b7f54p-73,
    0x1.4197a7f5154bcp-82,  0x1.e725594ee52e9p-92,  0x1.3e22d70ef3b5fp-101, 0x1.69f7da8510bcdp-111,
    0x1.69f7da8510bcdp-121, 0x1.40a2dc2460523p-131, 0x1.faaf2fa1c79e5p-142, 0x1.674f8e46c208cp-152,
    0x1.cbeaf38dc529fp-163, 0x1.0afb53e9cec0bp-173, 0x1.1a6d4e307528fp-184, 0x1.1159d2b18fe1fp-195,
    0x1.e5f504c9e358cp-207, 0x1.8e189760fbc74p-218, 0x1.2d843c1f0a6f9p-229, 0x1.a787875e855a5p-241,
    0x1.149733d53cf71p-252, 0x1.50c6b70b8d80dp-264, 0x1.7f2d2fd687f7dp-276, 0x1.984bda886ca72p-288,
    0x1.984bda886ca72p-300, 0x1.7fed0e5ee6853p-312, 0x1.541631ef14d5ap-324, 0x1.1c48e3508671dp-336,
    0x1.c13d73dae76b2p-349, 0x1.50071207c836bp-361, 0x1.dc950501d17ffp-374, 0x1.40dad10bd3e71p-386,
    0x1.9ab1af6b4cacep-399, 0x1.f45b998ff9834p-412, 0x1.2275074adea0fp-424, 0x1.41b7c24c01401p-437,
    0x1.54545f854b5f4p-450, 0x1.5831ef14a6beap-463};

// I_1(x) = x/2 sum_k c_k x^2k, c_k = (1/4)^k / (k! (k+1)!), k <= 44.
EMBER_DEVICE_TABLE constexpr double kI1Series[] = {
    0x1.0000000000000p+0,   0x1.0000000000000p-3,   0x1.5555555555555p-8,   0x1.c71c71c71c71cp-14,
    0x1.6c16c16c16c17p-20,  0x1.845c8a0ce5129p-27,  0x1.27e4fb7789f5cp-34,  0x1.522a43f65486ap-42,
    0x1.2c9758daf5cd0p-50,  0x1.ab81ea75fcdf4p-59,  0x1.f17697cf1cf13p-68,  0x1.e2637bef9ff1ap-77,
    0x1.8bce58901a35ep-86,  0x1.165e7c2d153f3p-95,  0x1.53585cdcbfb10p-105, 0x1.69f7da8510bcdp-115,
    0x1.54ad09e6a6575p-125, 0x1.1d028acb00491p-135, 0x1.aaae78f4066a6p-146, 0x1.1f72d8389b3a3p-156,
    0x1.5e69de22df5cep-167, 0x1.84564b82a1184p-178, 0x1.88f11edf3ed4cp-189, 0x1.6c77c3976a829p-200,
    0x1.37033643c4b3bp-211, 0x1.e9f6e1b270f54p-223, 0x1.655a5a37c0843p-234, 0x1.e4089ab52ab05p-246,
    0x1.313415e2783ccp-257, 0x1.673a5cd91f786p-269, 0x1.8b897bb42941ep-281, 0x1.984bda886ca72p-293,
    0x1.8bec76d1ddb95p-305, 0x1.6957950e06230p-317, 0x1.36efb8a0130c7p-329, 0x1.f965225644588p-342,
    0x1.84882cd8ff7f4p-354, 0x1.1af87af91463fp-366, 0x1.870aaec66a419p-379, 0x1.00af0da30fec0p-391,
    0x1.408aae603bd81p-404, 0x1.7d39999244334p-417, 0x1.b04eed1621ae1p-430, 0x1.d3f4035747a2fp-443,
    0x1.e40638350a7c1p-456};

// Hankel's P for n = 0: P = sum_m (-1)^m a_2m x^-2m, a_k = prod_(j<=k) (4n^2 - (2j-1)^2) / (k! 8^k), k <= 26.
EMBER_DEVICE_TABLE constexpr double kJ0AsymP[] = {
    0x1.0000000000000p+0,  -0x1.2000000000000p-4,  0x1.cb60000000000p-4,  -0x1.251ee80000000p-1,
    0x1.84bd1aa980000p+2,  -0x1.b8118d37ff700p+6,  0x1.7bc2e57729724p+11, -0x1.d0366d1f2a1fcp+16,
    0x1.7da65df946f8bp+22, -0x1.9635110813867p+28, 0x1.0fb5f454e2191p+35, -0x1.be483c6188f8ep+41,
    0x1.b978561d4bea1p+48, -0x1.02e194de62d0bp+56};

// Hankel's Q for n = 0: Q = sum_m (-1)^m a_(2m+1) x^-(2m+1), k <= 25 (from x = 13 on the first term left out,
// the smallest, is below 1e-12).
EMBER_DEVICE_TABLE constexpr double kJ0AsymQ[] = {
    -0x1.0000000000000p-3,  0x1.2c00000000000p-4,  -0x1.d11e000000000p-3,  0x1.ba4c598000000p+0,
    -0x1.8616a64f6c000p+4,  0x1.13aafea4e5774p+9,  -0x1.1d47059b0d98ap+14, 0x1.96ab69ba805e8p+19,
    -0x1.7e002ac418369p+25, 0x1.c951379875fb6p+31, -0x1.53d7328c73eefp+38, 0x1.32f8782421c7cp+45,
    -0x1.4b3d91e48aa3bp+52};

// Hankel's P for n = 1: P = sum_m (-1)^m a_2m x^-2m, a_k = prod_(j<=k) (4n^2 - (2j-1)^2) / (k! 8^k), k <= 26.
EMBER_DEVICE_TABLE constexpr double kJ1AsymP[] = {
    0x1.0000000000000p+0,   0x1.e000000000000p-4,  -0x1.2750000000000p-3,  0x1.5a6a580000000p-1,
    -0x1.b8920d2680000p+2,  0x1.e6643dc4a1100p+6,  -0x1.9cc8b6a2ea449p+11, 0x1.f29945cc23c35p+16,
    -0x1.9645bee011be7p+22, 0x1.ad6b4c84e170ep+28, -0x1.1da5076cedb15p+35, 0x1.d30a1b77ee995p+41,
    -0x1.cc418accd750ap+48, 0x1.0d088ba5da243p+56};

// Hankel's Q for n = 1: Q = sum_m (-1)^m a_(2m+1) x^-(2m+1), k <= 25 (from x = 13 on the first term left out,
// the smallest, is below 1e-12).
EMBER_DEVICE_TABLE constexpr double kJ1AsymQ[] = {
    0x1.8000000000000p-2,  -0x1.a400000000000p-4,  0x1.1c3d000000000p-2,  -0x1.fe58188000000p+0,
    0x1.b3fb3258c4000p+4,  -0x1.2dec0ab499cbcp+9,  0x1.341980ef2329fp+14, -0x1.b2b73c0dfbfb1p+19,
    0x1.9526f70e0a2a6p+25, -0x1.e2097fca372b9p+31, 0x1.646b0f8d0f714p+38, -0x1.409d1cc506d65p+45,
    0x1.58c2b1f8519abp+52};

}  // namespace
}  // namespace ember::special
