// The AMX-BF16 block kernel: C in 32 x 32 blocks of four 16 x 16 float32 tiles, each k-step of
// 32 loading two A tiles and two B tiles and issuing four TDPBF16PS. Reached only after
// cpu_has_amx_bf16(), which asked Linux for the tile state.
#include "bf16_blocks.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define EMBER_AMX_TARGET \
  __attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx2,fma")))

namespace ember::bf16gemm {
namespace {

// LDTILECFG's 64-byte operand, palette 1.
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};
static_assert(sizeof(TileConfig) == 64, "LDTILECFG reads 64 bytes");

}  // namespace

// Tiles 0-3: C (16 rows x 16 floats); 4, 5: A (16 rows x 32 bfloat16); 6, 7: B (16 k-pairs x
// 16 columns). Every tile is 16 rows of 64 bytes; the A rows are padded to 32 and k to kStep,
// so every load is whole.
EMBER_AMX_TARGET void block_amx(const uint16_t* Ap, const uint16_t* Bp, int64_t mc, int64_t nc, int64_t kcp, float* C,
                                int64_t ldc, float alpha, float beta) {
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) cfg.colsb[t] = 64, cfg.rows[t] = 16;
  _tile_loadconfig(&cfg);
  alignas(64) float acc[32 * kPanel];
  const int64_t as = a_stride(kcp), sa = as * 2, sb = 2 * kPanel * 2;  // bytes between tile rows
  for (int64_t n0 = 0; n0 < nc; n0 += kPanel) {
    const uint16_t* panel = Bp + n0 * kcp;
    const int64_t n = nc - n0 < kPanel ? nc - n0 : kPanel;
    for (int64_t i = 0; i < mc; i += 32) {
      const uint16_t* a0 = Ap + i * as;
      const uint16_t* a1 = a0 + 16 * as;
      _tile_zero(0);
      _tile_zero(1);
      _tile_zero(2);
      _tile_zero(3);
      for (int64_t k = 0; k < kcp; k += kStep) {
        _tile_loadd(4, a0 + k, sa);
        _tile_loadd(6, panel + k * kPanel, sb);
        _tile_loadd(7, panel + k * kPanel + kPanel, sb);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_loadd(5, a1 + k, sa);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
      }
      _tile_stored(0, acc, kPanel * 4);
      _tile_stored(1, acc + 16, kPanel * 4);
      _tile_stored(2, acc + 16 * kPanel, kPanel * 4);
      _tile_stored(3, acc + 16 * kPanel + 16, kPanel * 4);
      merge(acc, mc - i < 32 ? mc - i : 32, n, C + i * ldc + n0, ldc, alpha, beta);
    }
  }
  _tile_release();
}

}  // namespace ember::bf16gemm
#endif
