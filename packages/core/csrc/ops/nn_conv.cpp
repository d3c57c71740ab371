// torch.convolution, conv1d/2d/3d (numeric and 'same'/'valid' padding) and
// conv_transpose1d/2d/3d: argument checks with PyTorch's messages, then the
// im2col + GEMM kernels of nn_conv_kernels.cpp.
#include "../core/size_math.h"
#include "nn_conv.h"

#include <string>

#include "../iter/elementwise_iter.h"
#include "ops.h"

namespace ember {

namespace conv {

namespace {

std::string list_str(IntArrayRef v, const char* sep = ", ") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

const char* dim_name(int64_t nsp, int64_t i) {
  static const char* names[] = {"depth", "height", "width"};
  return names[3 - nsp + i];
}

void check_shapes(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                  int64_t groups) {
  const int64_t nsp = weight.dim() - 2;
  EMBER_CHECK(input.dim() == weight.dim(), "Expected ", weight.dim(), "-dimensional input for ", weight.dim(),
              "-dimensional weight ", shape_str(weight.sizes()), ", but got ", input.dim(),
              "-dimensional input of size ", shape_str(input.sizes()), " instead");
  for (int64_t v : padding) EMBER_CHECK(v >= 0, "negative padding is not supported");
  for (int64_t v : output_padding) EMBER_CHECK(v >= 0, "negative output_padding is not supported");
  for (int64_t v : stride) EMBER_CHECK(v > 0, "non-positive stride is not supported");
  for (int64_t v : dilation)
    EMBER_CHECK(v > 0, "dilation should be greater than zero, but got ", shape_str(dilation));
  EMBER_CHECK(groups > 0, "non-positive groups is not supported");
  bool k_ok = true;
  for (int64_t i = 0; i < nsp; ++i) k_ok = k_ok && weight.size(2 + i) > 0;
  if (!k_ok) {  // PyTorch's message names the kernel as 2-d for 1-d and 2-d convolutions
    const int64_t kd = nsp == 3 ? weight.size(2) : 1, kh = nsp >= 2 ? weight.size(nsp) : 1,
                  kw = weight.size(1 + nsp);
    fail(ErrorKind::Runtime, "kernel size should be greater than zero, but got ",
         nsp == 3 ? str("kernel_depth: ", kd, " ") : std::string(), "kernel_height: ", kh, " kernel_width: ", kw);
  }
  EMBER_CHECK(weight.size(0) >= groups, "Given groups=", groups, ", expected weight to be at least ", groups,
              " at dimension 0, but got weight of size ", shape_str(weight.sizes()), " instead");
  EMBER_CHECK(weight.size(0) % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ",
              groups, " at dimension 0, but got weight of size [", shape_str(weight.sizes()), "] instead");
  if (!transposed) {
    EMBER_CHECK(input.size(1) == weight.size(1) * groups, "Given groups=", groups, ", weight of size ",
                shape_str(weight.sizes()), ", expected input", shape_str(input.sizes()), " to have ",
                weight.size(1) * groups, " channels, but got ", input.size(1), " channels instead");
    EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(0)), "Given weight of size ",
                shape_str(weight.sizes()), ", expected bias to be 1-dimensional with ", weight.size(0),
                " elements, but got bias of size ", shape_str(bias.sizes()), " instead");
    bool fits = true;
    DimVector padded, kernel;
    for (int64_t i = 0; i < nsp; ++i) {
      padded.push_back(add_or_fail(input.size(2 + i), mul_or_fail(2, padding[i], "conv: padding"), "conv: padding"));
      kernel.push_back(mul_or_fail(dilation[i], weight.size(2 + i) - 1, "conv: dilation") + 1);
      fits = fits && padded.back() >= kernel.back();
    }
    EMBER_CHECK(fits, "Calculated padded input size per channel: (", list_str(padded, " x "), "). Kernel size: (",
                list_str(kernel, " x "), "). Kernel size can't be greater than actual input size");
  } else {
    EMBER_CHECK(input.size(1) == weight.size(0), "Given transposed=1, weight of size ", shape_str(weight.sizes()),
                ", expected input", shape_str(input.sizes()), " to have ", weight.size(0),
                " channels, but got ", input.size(1), " channels instead");
    const int64_t oc = weight.size(1) * groups;
    EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == oc), "Given transposed=1, weight of size ",
                shape_str(weight.sizes()), ", expected bias to be 1-dimensional with ", oc,
                " elements, but got bias of size ", shape_str(bias.sizes()), " instead");
    bool ok = true;
    for (int64_t i = 0; i < nsp; ++i) ok = ok && (output_padding[i] < stride[i] || output_padding[i] < dilation[i]);
    if (!ok) {
      std::string msg = "output padding must be smaller than either stride or dilation, but got";
      for (const char* what : {"output_padding", "stride", "dilation"}) {
        IntArrayRef v = what[0] == 'o' ? output_padding : what[0] == 's' ? stride : dilation;
        for (int64_t i = 0; i < nsp; ++i)
          msg += std::string(" ") + what + "_" + dim_name(nsp, i) + ": " + std::to_string(v[i]);
      }
      fail(ErrorKind::Runtime, msg);
    }
  }
  EMBER_CHECK(input.dtype() == weight.dtype(), "expected scalar type ", legacy_name(input.dtype()),
              " but found ", legacy_name(weight.dtype()));
  EMBER_CHECK(!bias.defined() || bias.dtype() == input.dtype(), "Input type (", c_type_name(input.dtype()),
              ") and bias type (", c_type_name(bias.dtype()), ") should be the same");
  EMBER_CHECK_NOTIMPL(input.dtype() != ScalarType::Bool, "\"slow_conv2d_cpu\" not implemented for 'Bool'");
}

Geometry geometry(const Tensor& input, IntArrayRef wsizes, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups) {
  Geometry g;
  g.nsp = static_cast<int64_t>(wsizes.size()) - 2;
  g.N = input.size(0);
  g.groups = groups;
  const int64_t off = 3 - g.nsp;
  for (int64_t i = 0; i < g.nsp; ++i) {
    const int64_t j = off + i, in = input.size(2 + i);
    g.k[j] = wsizes[2 + i];
    g.s[j] = stride[i];
    g.p[j] = padding[i];
    g.d[j] = dilation[i];
    const int64_t span = mul_or_fail(dilation[i], wsizes[2 + i] - 1, "conv: dilation") + 1;
    if (!transposed) {
      g.img[j] = in;
      g.col[j] = (in + 2 * padding[i] - span) / stride[i] + 1;  // check_shapes bounded these
    } else {
      // (in - 1) * stride - 2 * padding + span + output_padding, in 128 bits: user sizes
      __int128 o = static_cast<__int128>(in - 1) * stride[i] - 2 * static_cast<__int128>(padding[i]) + span +
                   output_padding[i];
      EMBER_CHECK(o <= INT64_MAX && o >= INT64_MIN, "conv_transpose: output size overflows: stride=", stride[i]);
      g.col[j] = in;
      g.img[j] = static_cast<int64_t>(o);
    }
  }
  if (!transposed) {
    g.img_c = input.size(1);
    g.col_c = wsizes[0];
  } else {
    g.col_c = input.size(1);
    g.img_c = wsizes[1] * groups;
  }
  return g;
}

// float16 / bfloat16 run in float32.
ScalarType compute_type(ScalarType t) { return is_floating(t) && element_size(t) == 2 ? ScalarType::Float32 : t; }

Tensor prepared(const Tensor& t, ScalarType ct) {
  return contiguous(t.dtype() == ct ? t : to_dtype(t, ct), MemoryFormat::Contiguous);
}

}  // namespace

DimVector expand_arg(IntArrayRef v, int64_t n, const char* name) {
  if (static_cast<int64_t>(v.size()) == n) return DimVector(v.begin(), v.end());
  EMBER_CHECK(v.size() == 1, "expected ", name, " to be a single integer value or a list of ", n,
              " values to match the convolution dimensions, but got ", name, "=", shape_str(v));
  return DimVector(static_cast<size_t>(n), v[0]);
}

Tensor forward(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
               IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
               int64_t groups) {
  Geometry g = geometry(input, weight.sizes(), stride, padding, dilation, transposed, output_padding, groups);
  if (transposed) {
    DimVector in_sp, out_sp;
    bool ok = true;
    for (int64_t i = 0; i < g.nsp; ++i) {
      in_sp.push_back(g.col[3 - g.nsp + i]);
      out_sp.push_back(g.img[3 - g.nsp + i]);
      ok = ok && out_sp.back() > 0;
    }
    EMBER_CHECK(ok, "Given input size per channel: (", list_str(in_sp, " x "),
                "). Calculated output size per channel: (", list_str(out_sp, " x "), "). Output size is too small");
  }
  const ScalarType ct = compute_type(input.dtype());
  Tensor x = prepared(input, ct), w = prepared(weight, ct);
  Tensor r;
  if (transposed) {
    r = cols_to_img(x, w, g);
    if (bias.defined()) {
      DimVector bs(static_cast<size_t>(r.dim()), 1);
      bs[1] = bias.size(0);
      add_(r, reshape(prepared(bias, ct), bs), Scalar(int64_t(1)));
    }
  } else {
    r = img_to_cols(x, w, bias.defined() ? prepared(bias, ct) : Tensor(), g);
  }
  return r.dtype() == input.dtype() ? r : to_dtype(r, input.dtype());
}

Tensor weight_backward(const Tensor& grad, const Tensor& input, IntArrayRef weight_sizes, IntArrayRef stride,
                       IntArrayRef padding, IntArrayRef dilation, bool transposed, int64_t groups) {
  DimVector op(weight_sizes.size() - 2, 0);
  for (size_t i = 0; i < op.size() && transposed; ++i) {
    // a transposed conv's output_padding is whatever extra the output has
    const int64_t span = dilation[i] * (weight_sizes[2 + i] - 1) + 1;
    op[i] = grad.size(2 + i) - ((input.size(2 + i) - 1) * stride[i] - 2 * padding[i] + span);
  }
  Geometry g = geometry(input, weight_sizes, stride, padding, dilation, transposed, op, groups);
  const ScalarType ct = compute_type(input.dtype());
  Tensor x = prepared(input, ct), gy = prepared(grad, ct);
  Tensor r = transposed ? weight_grad(gy, x, g) : weight_grad(x, gy, g);
  return r.dtype() == input.dtype() ? r : to_dtype(r, input.dtype());
}

void same_padding(std::string_view padding, const Tensor& weight, IntArrayRef stride, IntArrayRef dilation,
                  DimVector& sym, DimVector& extra) {
  const int64_t nsp = weight.dim() - 2;
  sym = DimVector(static_cast<size_t>(nsp), 0);
  extra = DimVector(static_cast<size_t>(nsp), 0);
  if (padding == "valid") return;
  EMBER_CHECK(padding == "same", "Invalid padding string: '", std::string(padding), "'");
  for (int64_t v : stride) EMBER_CHECK(v == 1, "padding='same' is not supported for strided convolutions");
  for (int64_t i = 0; i < nsp; ++i) {
    const int64_t total = dilation[i] * (weight.size(2 + i) - 1);
    sym[i] = total / 2;
    extra[i] = total - 2 * sym[i];
  }
}

}  // namespace conv

namespace {


// convolution on checked, expanded arguments, plus the bias.
Tensor conv_core(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride0,
                 IntArrayRef padding0, IntArrayRef dilation0, bool transposed, IntArrayRef output_padding0,
                 int64_t groups) {
  EMBER_CHECK(weight.dim() >= 3 && weight.dim() <= 5, "Expected 3D, 4D or 5D weight for convolution, but got ",
              weight.dim(), "D weight of size ", shape_str(weight.sizes()));
  const int64_t nsp = weight.dim() - 2;
  DimVector stride = conv::expand_arg(stride0, nsp, "stride");
  DimVector padding = conv::expand_arg(padding0, nsp, "padding");
  DimVector dilation = conv::expand_arg(dilation0, nsp, "dilation");
  DimVector output_padding = output_padding0.empty() || !transposed
                                 ? DimVector(static_cast<size_t>(nsp), 0)
                                 : conv::expand_arg(output_padding0, nsp, "output_padding");
  conv::check_shapes(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
  return conv::forward(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
}

// conv1d / conv2d / conv_transpose*d: unbatched inputs get a batch dim of 1 around the call.
Tensor conv_nd(const char* name, int64_t nsp, const Tensor& input, const Tensor& weight, const Tensor& bias,
               IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
               IntArrayRef output_padding, int64_t groups) {
  EMBER_CHECK(input.dim() == nsp + 1 || input.dim() == nsp + 2, "Expected ", nsp + 1, "D (unbatched) or ", nsp + 2,
              "D (batched) input to ", name, ", but got input of size: ", shape_str(input.sizes()));
  const bool unbatched = input.dim() == nsp + 1;
  Tensor x = unbatched ? unsqueeze(input, 0) : input;
  Tensor r = conv_core(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
  return unbatched ? squeeze(r, 0) : r;
}

Tensor conv_nd_str(const char* name, int64_t nsp, const Tensor& input, const Tensor& weight, const Tensor& bias,
                   IntArrayRef stride, std::string_view padding, IntArrayRef dilation, int64_t groups) {
  EMBER_CHECK(input.dim() == nsp + 1 || input.dim() == nsp + 2, "Expected ", nsp + 1, "D (unbatched) or ", nsp + 2,
              "D (batched) input to ", name, ", but got input of size: ", shape_str(input.sizes()));
  EMBER_CHECK(weight.dim() == nsp + 2, "Expected ", nsp + 2, "-dimensional weight for ", name, ", but got ",
              weight.dim(), "-dimensional weight of size ", shape_str(weight.sizes()));
  DimVector st = conv::expand_arg(stride, nsp, "stride"), dil = conv::expand_arg(dilation, nsp, "dilation");
  DimVector sym, extra;
  conv::same_padding(padding, weight, st, dil, sym, extra);
  Tensor x = input;
  bool asym = false;
  for (int64_t e : extra) asym = asym || e != 0;
  if (asym) {  // even kernel span: one more zero on the right, as PyTorch does
    DimVector pad;
    for (int64_t i = nsp - 1; i >= 0; --i) {
      pad.push_back(0);
      pad.push_back(extra[i]);
    }
    x = constant_pad_nd(input, pad, Scalar(int64_t(0)));
  }
  return conv_nd(name, nsp, x, weight, bias, st, sym, dil, false, IntArrayRef(), groups);
}

}  // namespace

Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups) {
  return conv_core(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv1d", 1, input, weight, bias, stride, padding, dilation, false, IntArrayRef(), groups);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv2d", 2, input, weight, bias, stride, padding, dilation, false, IntArrayRef(), groups);
}
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv3d", 3, input, weight, bias, stride, padding, dilation, false, IntArrayRef(), groups);
}
Tensor conv1d_padding(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                      std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd_str("conv1d", 1, input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv2d_padding(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                      std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd_str("conv2d", 2, input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv3d_padding(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                      std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd_str("conv3d", 3, input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  return conv_nd("conv_transpose1d", 1, input, weight, bias, stride, padding, dilation, true, output_padding, groups);
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  return conv_nd("conv_transpose2d", 2, input, weight, bias, stride, padding, dilation, true, output_padding, groups);
}
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  return conv_nd("conv_transpose3d", 3, input, weight, bias, stride, padding, dilation, true, output_padding, groups);
}

}  // namespace ember
