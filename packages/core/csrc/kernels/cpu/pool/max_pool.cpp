#include "kernels/cpu/pool/max_pool.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/half.h"
#include "core/parallel.h"

namespace ember::pool {

namespace {

template <class T>
inline bool nan_(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  return false;
}

template <class scalar_t>
void max_kernel(const scalar_t* xp, int64_t planes, const int64_t* in, const int64_t* out, const Span* const* spans,
                scalar_t* yp, int64_t* ip) {
  using acc_t = opmath_t<scalar_t>;
  const int64_t in_plane = in[0] * in[1] * in[2];
  const int64_t out_plane = out[0] * out[1] * out[2];
  GilRelease nogil;  // also when parallel_for runs inline (one thread, small input)
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(in_plane + out_plane, 1));
  parallel_for(0, planes, grain, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const scalar_t* xb = xp + b * in_plane;
      scalar_t* yb = yp + b * out_plane;
      int64_t* ib = ip + b * out_plane;
      for (int64_t od = 0; od < out[0]; ++od) {
        const Span sd = spans[0][od];
        for (int64_t oh = 0; oh < out[1]; ++oh) {
          const Span sh = spans[1][oh];
          for (int64_t ow = 0; ow < out[2]; ++ow) {
            const Span sw = spans[2][ow];
            int64_t best = (sd.start * in[1] + sh.start) * in[2] + sw.start;
            acc_t mx = std::numeric_limits<acc_t>::has_infinity ? -std::numeric_limits<acc_t>::infinity()
                                                                : std::numeric_limits<acc_t>::lowest();
            for (int64_t id = sd.start; id < sd.end; id += sd.step)
              for (int64_t ih = sh.start; ih < sh.end; ih += sh.step) {
                const int64_t row = (id * in[1] + ih) * in[2];
                for (int64_t iw = sw.start; iw < sw.end; iw += sw.step) {
                  const acc_t v = static_cast<acc_t>(xb[row + iw]);
                  if (v > mx || nan_(v)) {
                    mx = v;
                    best = row + iw;
                  }
                }
              }
            const int64_t o = (od * out[1] + oh) * out[2] + ow;
            yb[o] = static_cast<scalar_t>(mx);
            ib[o] = best;
          }
        }
      }
    }
  });
}

}  // namespace

void max_windows(ScalarType dt, const char* name, const void* x, int64_t planes, const int64_t* in, const int64_t* out,
                 const Span* const* spans, void* y, int64_t* ind) {
  EMBER_DISPATCH_NO_BOOL(dt, name, [&] {
    max_kernel<scalar_t>(static_cast<const scalar_t*>(x), planes, in, out, spans, static_cast<scalar_t*>(y), ind);
  });
}

}  // namespace ember::pool
