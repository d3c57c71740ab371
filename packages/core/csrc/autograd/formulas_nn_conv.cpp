// PyTorch's convolution derivatives written with ag:: ops, so double backward works:
//   d input  = the opposite convolution (plain <-> transposed) of grad with the same weight;
//   d weight = a convolution of the input by grad with batch and channel roles swapped
//              (stride and dilation trade places) when the graph is kept, else the GEMM kernel;
//   d bias   = grad summed over every dim but the channel one.
#include "formulas_nn_conv.h"

#include "autograd/formulas_complex.h"
#include "autograd_ops.h"
#include "grad_mode.h"
#include "ops.h"
#include "ops/nn/nn_conv.h"

namespace ember {

namespace {

struct Args {
  DimVector stride, padding, dilation, output_padding;
};

Args expand(int64_t nsp, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, IntArrayRef output_padding,
            bool transposed) {
  Args a;
  a.stride = conv::expand_arg(stride, nsp, "stride");
  a.padding = conv::expand_arg(padding, nsp, "padding");
  a.dilation = conv::expand_arg(dilation, nsp, "dilation");
  a.output_padding = output_padding.empty() || !transposed ? DimVector(static_cast<size_t>(nsp), 0)
                                                           : conv::expand_arg(output_padding, nsp, "output_padding");
  return a;
}

// A differentiable convolution of any dtype: aten's convolution has no complex kernel, so a complex
// one is three real ones (Gauss's trick, as conv2d's complex_convolution), each recorded.
Tensor conv_any(const Tensor& x, const Tensor& w, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                bool transposed, IntArrayRef output_padding, int64_t groups) {
  auto run = [&](const Tensor& a, const Tensor& b) {
    return ag::convolution(a, b, Tensor(), stride, padding, dilation, transposed, output_padding, groups);
  };
  if (!is_complex(x.dtype())) return run(x, w);
  const Scalar one(int64_t(1));
  Tensor a = real(x), b = imag(x), c = real(w), d = imag(w);  // composites: recorded
  Tensor t1 = run(a, c), t2 = run(b, d), t3 = run(ag::add(a, b, one), ag::add(c, d, one));
  return ag::complex(ag::sub(t1, t2, one), ag::sub(ag::sub(t3, t1, one), t2, one));
}

// Weight gradient as a differentiable convolution. img (N, G*Cg, S...) is the side the kernel
// slides over, cols (N, G*Og, L...) the other; the result is (G*Og, Cg, k...).
Tensor weight_by_convolution(const Tensor& img, const Tensor& cols, IntArrayRef wsizes, const Args& a, int64_t groups) {
  const int64_t nsp = static_cast<int64_t>(wsizes.size()) - 2, N = img.size(0), G = groups;
  const int64_t Cg = img.size(1) / G, Og = cols.size(1) / G;
  DimVector xs{N, G, Cg}, ws{N, G, Og}, xperm{2, 1, 0}, wperm{1, 2, 0}, xflat{Cg, G * N}, wflat{G * Og, N};
  for (int64_t i = 0; i < nsp; ++i) {
    xs.push_back(img.size(2 + i));
    ws.push_back(cols.size(2 + i));
    xperm.push_back(3 + i);
    wperm.push_back(3 + i);
    xflat.push_back(img.size(2 + i));
    wflat.push_back(cols.size(2 + i));
  }
  Tensor x = ag::reshape(ag::permute(ag::reshape(img, xs), xperm), xflat);
  Tensor w = ag::reshape(ag::permute(ag::reshape(cols, ws), wperm), wflat);
  DimVector zeros(static_cast<size_t>(nsp), 0);
  Tensor r = conv_any(x, w, a.dilation, a.padding, a.stride, false, zeros, G);  // (Cg, G*Og, K'...)
  DimVector back{1, 0};
  for (int64_t i = 0; i < nsp; ++i) back.push_back(2 + i);
  r = ag::permute(r, back);
  for (int64_t i = 0; i < nsp; ++i)
    if (r.size(2 + i) != wsizes[2 + i]) r = ag::narrow(r, 2 + i, 0, wsizes[2 + i]);
  return r;
}

}  // namespace

Tensor conv_backward(int which, const Tensor& grad, const Tensor& input, const Tensor& weight, IntArrayRef stride,
                     IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                     int64_t groups) {
  const int64_t nsp = weight.dim() - 2;
  const bool unbatched = input.dim() == nsp + 1;
  const int64_t batch = unbatched ? 1 : input.size(0), channels = input.size(unbatched ? 0 : 1);
  if ((batch == 0 || channels == 0) && which != 2) {  // the forward's empty backend: no products
    if (which == 0) return zeros_like(input, std::nullopt, std::nullopt, std::nullopt);
    return zeros(weight.sizes(), weight.dtype(), weight.device());
  }
  if (which == 2) {
    DimVector dims;
    for (int64_t d = 0; d < grad.dim(); ++d)
      if (d != (unbatched ? 0 : 1)) dims.push_back(d);
    return ag::sum(grad, IntArrayRef(dims), false, std::nullopt);
  }
  Args a = expand(nsp, stride, padding, dilation, output_padding, transposed);
  Tensor g = unbatched ? ag::unsqueeze(grad, 0) : grad;
  Tensor x = unbatched ? ag::unsqueeze(input, 0) : input;
  Tensor r;
  // Complex (Wirtinger): each gradient reads the other operand's conjugate.
  const bool cx = is_complex(input.dtype());
  if (which == 0) {
    const Tensor w = cx ? conj(weight) : weight;
    if (!transposed) {
      DimVector op;
      for (int64_t i = 0; i < nsp; ++i) {
        const int64_t span = a.dilation[i] * (weight.size(2 + i) - 1) + 1;
        op.push_back(x.size(2 + i) - ((g.size(2 + i) - 1) * a.stride[i] - 2 * a.padding[i] + span));
      }
      r = conv_any(g, w, a.stride, a.padding, a.dilation, true, op, groups);
    } else {
      DimVector zeros(static_cast<size_t>(nsp), 0);
      r = conv_any(g, w, a.stride, a.padding, a.dilation, false, zeros, groups);
      // output_padding >= stride (allowed when below dilation) leaves extra positions
      for (int64_t i = 0; i < nsp; ++i)
        if (r.size(2 + i) != x.size(2 + i)) r = ag::narrow(r, 2 + i, 0, x.size(2 + i));
    }
    return unbatched ? ag::squeeze(r, 0) : r;
  }
  if (cx) x = conj(x);
  if (GradMode::is_enabled() || cx)  // complex: through the (three real) convolutions
    return transposed ? weight_by_convolution(g, x, weight.sizes(), a, groups)
                      : weight_by_convolution(x, g, weight.sizes(), a, groups);
  return conv::weight_backward(g, x, weight.sizes(), a.stride, a.padding, a.dilation, transposed, groups);
}

Tensor conv_str_backward(int which, const Tensor& grad, const Tensor& input, const Tensor& weight, IntArrayRef stride,
                         std::string_view padding, IntArrayRef dilation, int64_t groups) {
  const int64_t nsp = weight.dim() - 2;
  DimVector st = conv::expand_arg(stride, nsp, "stride"), dil = conv::expand_arg(dilation, nsp, "dilation");
  DimVector sym, extra;
  conv::same_padding(padding, weight, st, dil, sym, extra);
  bool asym = false;
  for (int64_t e : extra) asym = asym || e != 0;
  if (!asym) return conv_backward(which, grad, input, weight, st, sym, dil, false, IntArrayRef(), groups);
  DimVector pad;
  for (int64_t i = nsp - 1; i >= 0; --i) {
    pad.push_back(0);
    pad.push_back(extra[i]);
  }
  Tensor x = ag::constant_pad_nd(input, pad, Scalar(int64_t(0)));
  Tensor r = conv_backward(which, grad, x, weight, st, sym, dil, false, IntArrayRef(), groups);
  if (which != 0) return r;
  for (int64_t i = 0; i < nsp; ++i) {
    const int64_t d = input.dim() - nsp + i;
    if (extra[i]) r = ag::narrow(r, d, 0, input.size(d));
  }
  return r;
}

Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad) {
  DimVector neg;
  for (int64_t p : pad) neg.push_back(-p);
  return ag::constant_pad_nd(grad, neg, Scalar(int64_t(0)));
}

}  // namespace ember
