// torch.convolution, conv1d/2d/3d (numeric and 'same'/'valid' padding) and
// conv_transpose1d/2d/3d: argument checks with PyTorch's messages, then the
// im2col + GEMM kernels of kernels/cpu/conv/.
#include "ops/nn/nn_conv.h"
#include "core/cpu_capability.h"
#include "core/parallel.h"
#include "core/size_math.h"

#include <string>

#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"

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
  for (int64_t v : dilation) EMBER_CHECK(v >= 0, "dilation should be greater than zero");
  EMBER_CHECK(groups > 0, "non-positive groups is not supported");
  EMBER_CHECK(weight.size(0) >= groups, "Given groups=", groups, ", expected weight to be at least ", groups,
              " at dimension 0, but got weight of size ", shape_str(weight.sizes()), " instead");
  EMBER_CHECK(weight.size(0) % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ", groups,
              " at dimension 0, but got weight of size ", shape_str(weight.sizes()), " instead");
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
      // the span d * (k - 1) + 1 may be 2**63 (d = 2**63 - 1): held as uint64
      kernel.push_back(mul_or_fail(dilation[i], weight.size(2 + i) - 1, "conv: dilation"));
      fits = fits && padded.back() > kernel.back();
    }
    std::string spans;
    for (size_t i = 0; i < kernel.size(); ++i)
      spans += (i ? " x " : "") + std::to_string(static_cast<uint64_t>(kernel[i]) + 1);
    EMBER_CHECK(fits, "Calculated padded input size per channel: (", list_str(padded, " x "), "). Kernel size: (",
                spans, "). Kernel size can't be greater than actual input size");
  } else {
    EMBER_CHECK(input.size(1) == weight.size(0), "Given transposed=1, weight of size ", shape_str(weight.sizes()),
                ", expected input", shape_str(input.sizes()), " to have ", weight.size(0), " channels, but got ",
                input.size(1), " channels instead");
    const int64_t oc = weight.size(1) * groups;
    EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == oc), "Given transposed=1, weight of size ",
                shape_str(weight.sizes()), ", expected bias to be 1-dimensional with ", oc,
                " elements, but got bias of size ", shape_str(bias.sizes()), " instead");
  }
}

// aten's ConvBackend::Empty (a batch or channel count of 0): no kernel, so no dtype checks; the
// input times the weight's first element (the dtypes promote), plus the bias's first. With no input
// channels aten's output has none either (torch_known_wrong: conv-zero-input-channels); here it has
// the weight's output channels, each the (absent) sum plus its bias.
Tensor empty_backend(const Tensor& input, const Tensor& weight, const Tensor& bias, const Geometry& g,
                     bool transposed) {
  Tensor wv = reshape(weight, {-1});
  DimVector size{g.N, transposed ? g.img_c : g.col_c};
  for (int64_t i = 0; i < g.nsp; ++i) size.push_back(transposed ? g.img[3 - g.nsp + i] : g.col[3 - g.nsp + i]);
  if (input.size(1) != 0) {
    Tensor out = mul(input, select(wv, 0, 0));
    if (bias.defined()) add_(out, select(bias, 0, 0), Scalar(int64_t(1)));
    return reshape(out, size);
  }
  Tensor out = zeros(size, mul(reshape(input, {-1}), wv).dtype(), input.device());
  if (bias.defined()) {
    DimVector bs(size.size(), 1);
    bs[1] = bias.size(0);
    add_(out, reshape(bias, bs), Scalar(int64_t(1)));
  }
  return out;
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
    const __int128 span = static_cast<__int128>(mul_or_fail(dilation[i], wsizes[2 + i] - 1, "conv: dilation")) + 1;
    if (!transposed) {
      g.img[j] = in;
      g.col[j] = static_cast<int64_t>((in + 2 * padding[i] - span) / stride[i] + 1);  // check_shapes bounded these
    } else {
      // (in - 1) * stride - 2 * padding + span + output_padding, in 128 bits: user sizes
      __int128 o =
          static_cast<__int128>(in - 1) * stride[i] - 2 * static_cast<__int128>(padding[i]) + span + output_padding[i];
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

// aten runs 1-d convolutions as 2-d ones of height 1, and its messages show those shapes.
DimVector as_2d(IntArrayRef sizes) {
  DimVector s(sizes.begin(), sizes.end());
  if (s.size() == 3) s.insert(2, 1);
  return s;
}

// ConvParams::use_mkldnn for a float32 input (oneDNN's bfloat16 / float16 use depends on the CPU):
// only its stricter dtype check (the bias too) is visible.
bool mkldnn_picks(const Tensor& input, const Tensor& weight, IntArrayRef stride, IntArrayRef dilation, bool transposed,
                  IntArrayRef output_padding, int64_t groups) {
  bool strided = false, dilated = false, big_op = false;
  for (size_t i = 0; i < stride.size(); ++i) {
    strided = strided || stride[i] != 1;
    dilated = dilated || dilation[i] != 1;
    big_op = big_op || output_padding[i] >= stride[i];
  }
  if (transposed && big_op) return false;
  // bfloat16 takes mkldnn wherever the CPU has AVX-512 BW/VL/DQ (aten's mkldnn_bf16_device_check)
  if (input.dtype() == ScalarType::BFloat16) return cpu_hardware_has_avx512();
  if (input.dtype() != ScalarType::Float32) return false;
  const DimVector x = as_2d(input.sizes()), w = as_2d(weight.sizes());
  const int64_t kw = w[w.size() - 1], kh = w[w.size() - 2];
  return (strided || dilated || x[0] >= 16 || kw != 1 || kh != 1 || get_num_threads() > 1) &&
         (groups > 1 || (kw > 3 && kh > 3) || x[0] > 1 || x[0] * x[1] * x[2] * x[3] > 20480);
}

// aten's _select_conv_backend on CPU, for a non-empty input: the kernel it picks and that
// kernel's shape checks, then its dtype dispatch (mkldnn's float32 heuristics aside: its errors
// are RuntimeErrors too). The weight must match the input's dtype; the bias is converted, except
// by slow_conv_transpose3d.
void kernel_checks(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups) {
  const int64_t nsp = weight.dim() - 2;
  const ScalarType t = input.dtype();
  const DimVector k = as_2d(weight.sizes()), d = nsp == 1 ? DimVector{1, dilation[0]} : to_vec(dilation);
  bool dilated = false, k_ok = true, d_ok = true;
  for (size_t i = 0; i < d.size(); ++i) {
    dilated = dilated || d[i] != 1;
    k_ok = k_ok && k[2 + i] > 0;
    d_ok = d_ok && d[i] > 0;
  }
  auto named = [&](const char* what, const DimVector& v, const char* sep) {  // "what_height: 1, what_width: 2"
    std::string m;
    for (size_t i = 0; i < v.size(); ++i)
      m += std::string(i ? sep : "") + what + "_" + dim_name(static_cast<int64_t>(v.size()), i) + ": " +
           std::to_string(v[i]);
    return m;
  };
  const DimVector kernel(k.begin() + 2, k.end());
  const bool floating_or_long = is_floating(t) || t == ScalarType::Int64;
  if (transposed) {  // slow_conv_transpose{2,3}d_shape_check, then the output size
    if (nsp != 3) EMBER_CHECK(k_ok, "kernel size should be greater than zero, but got ", named("kernel", kernel, " "));
    EMBER_CHECK(d_ok, "dilation should be greater than zero, but got ", named("dilation", d, ", "));
    const DimVector op = nsp == 1 ? DimVector{0, output_padding[0]} : to_vec(output_padding),
                    st = nsp == 1 ? DimVector{1, stride[0]} : to_vec(stride);
    bool op_ok = true;
    for (size_t i = 0; i < d.size(); ++i) op_ok = op_ok && (op[i] < st[i] || op[i] < d[i]);
    EMBER_CHECK(op_ok, "output padding must be smaller than either stride or dilation, but got ",
                named("output_padding", op, " "), " ", named("stride", st, " "), " ", named("dilation", d, " "));
    EMBER_CHECK(weight.numel() != 0,
                nsp == 3 ? "non-empty 5D (n_output_plane x n_input_plane x kernel_depth x "
                           "kernel_height x kernel_width) tensor expected for weight"
                         : "non-empty 2D or 4D weight tensor "
                           "expected",
                ", but got: ", shape_str(k));
    const Geometry g = geometry(input, weight.sizes(), stride, padding, dilation, true, output_padding, groups);
    const bool onednn = mkldnn_picks(input, weight, stride, dilation, transposed, output_padding, groups);
    DimVector in_sp, out_sp;
    bool ok = true;
    for (int64_t i = 0; i < g.nsp; ++i) {
      in_sp.push_back(g.col[3 - g.nsp + i]);
      out_sp.push_back(g.img[3 - g.nsp + i]);
      // the slow kernels want at least 1 per dim; mkldnn's, where it is picked, an empty output too
      ok = ok && out_sp.back() >= (onednn ? 0 : 1);
    }
    if (nsp == 1) {
      in_sp.insert(0, 1);
      out_sp.insert(0, 1);
    }
    EMBER_CHECK(ok, "Given input size per channel: (", list_str(in_sp, " x "),
                "). Calculated output size per channel: (", list_str(out_sp, " x "), "). Output size is too small");
    // the output is allocated (its size checked) before the dtype dispatch: the 3-d kernel resizes it
    // (its element count first), the 2-d one (1-d's too) is a structured kernel's empty
    DimVector out_shape{g.N, g.img_c};
    for (int64_t v : out_sp) out_shape.push_back(v);
    if (nsp == 3) (void)checked_numel(out_shape);
    (void)contiguous_nbytes(out_shape, element_size(t));
    // a dtype without a kernel still gets its output allocated first: one too large is aten's
    // out-of-memory error, not the dispatch's
    if (!floating_or_long) (void)empty(out_shape, t, input.device());
    EMBER_CHECK_NOTIMPL(floating_or_long, "\"slow_conv_transpose", nsp == 3 ? 3 : 2,
                        "d_out_cpu\" not implemented for '", legacy_name(t), "'");
  } else if (dilated) {  // slow_conv_dilated_shape_check
    EMBER_CHECK(k_ok, "kernel size should be greater than zero, but got ", shape_str(kernel));
    EMBER_CHECK(d_ok, "dilation should be greater than zero, but got ", shape_str(d));
    EMBER_CHECK_NOTIMPL(floating_or_long, "\"slow_conv_dilated<>\" not implemented for '", legacy_name(t), "'");
  } else {  // slow_conv2d / slow_conv3d
    EMBER_CHECK(k_ok, "kernel size should be greater than zero, but got",
                nsp == 3 ? str(": ", list_str(kernel, " x "), " (TxHxW)") : " " + named("kernel", kernel, " "));
    EMBER_CHECK_NOTIMPL(t != ScalarType::Bool && !is_complex(t),
                        nsp == 3 ? "\"compute_columns3d\"" : "\"slow_conv2d_cpu\"", " not implemented for '",
                        legacy_name(t), "'");
  }
  if (mkldnn_picks(input, weight, stride, dilation, transposed, output_padding, groups)) {
    for (const Tensor* p : {&weight, &bias})
      EMBER_CHECK(!p->defined() || p->dtype() == t, "Input type (", cpu_type_string(t), ") and ",
                  p == &weight ? "weight" : "bias", " type (", cpu_type_string(p->dtype()),
                  ") should be the same or input should be a MKLDNN tensor and ", p == &weight ? "weight" : "bias",
                  " is a dense tensor");
  }
  EMBER_CHECK(weight.dtype() == t, "expected scalar type ", legacy_name(t), " but found ", legacy_name(weight.dtype()));
  EMBER_CHECK(!(transposed && nsp == 3) || !bias.defined() || bias.dtype() == t, "expected scalar type ",
              legacy_name(t), " but found ", legacy_name(bias.dtype()));
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

// (N, c, sp...) over the geometry's spatial dims: the shape of either side of a conv pass.
static DimVector side_shape(const Geometry& g, int64_t c, const int64_t* sp) {
  DimVector s{g.N, c};
  for (int64_t i = 3 - g.nsp; i < 3; ++i) s.push_back(sp[i]);
  return s;
}

Tensor forward(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
               IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups) {
  Geometry g = geometry(input, weight.sizes(), stride, padding, dilation, transposed, output_padding, groups);
  const ScalarType ct = compute_type(input.dtype());
  Tensor x = prepared(input, ct), w = prepared(weight, ct);
  Tensor r;
  if (transposed) {
    r = empty(side_shape(g, g.img_c, g.img), x.dtype(), x.device());
    backend(x).conv.cols_to_img(x, w, r, g);
    if (bias.defined()) {
      DimVector bs(static_cast<size_t>(r.dim()), 1);
      bs[1] = bias.size(0);
      add_(r, reshape(prepared(bias, ct), bs), Scalar(int64_t(1)));
    }
  } else {
    r = empty(side_shape(g, g.col_c, g.col), x.dtype(), x.device());
    backend(x).conv.img_to_cols(x, w, bias.defined() ? prepared(bias, ct) : Tensor(), r, g);
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
  DimVector ws{g.col_c, g.img_c / g.groups};
  for (int64_t i = 3 - g.nsp; i < 3; ++i) ws.push_back(g.k[i]);
  Tensor r = empty(ws, x.dtype(), x.device());
  if (transposed) backend(x).conv.weight_grad(gy, x, r, g);
  else backend(x).conv.weight_grad(x, gy, r, g);
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
    // aten's d * (k - 1) wraps past int64; negative, it is its padding error (positive again, a
    // kernel no input holds)
    __int128 exact = static_cast<__int128>(dilation[i]) * (weight.size(2 + i) - 1);
    if (exact > INT64_MAX) {
      const auto wrapped = static_cast<int64_t>(static_cast<uint64_t>(exact));
      EMBER_CHECK(wrapped >= 0, "negative padding is not supported");
      fail(ErrorKind::Runtime, "Kernel size can't be greater than actual input size");
    }
    const auto total = static_cast<int64_t>(exact);
    sym[i] = total / 2;
    extra[i] = total - 2 * sym[i];
  }
}

}  // namespace conv

namespace {

Tensor conv_core(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride0,
                 IntArrayRef padding0, IntArrayRef dilation0, bool transposed, IntArrayRef output_padding0,
                 int64_t groups, bool split_complex = true);

// A complex convolution as three real ones (Gauss's trick, as aten's complex_convolution):
// (a + ib) * (c + id) = (t1 - t2) + i (t3 - t1 - t2), t1 = a*c, t2 = b*d, t3 = (a + b) * (c + d).
Tensor complex_conv(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                    IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                    int64_t groups) {
  const Scalar one(int64_t(1));
  Tensor a = real(input), b = imag(input), c = real(weight), d = imag(weight);
  auto run = [&](const Tensor& x, const Tensor& w) {
    return conv_core(x, w, Tensor(), stride, padding, dilation, transposed, output_padding, groups);
  };
  Tensor t1 = run(a, c), t2 = run(b, d), t3 = run(add(a, b, one), add(c, d, one));
  Tensor r = complex(sub(t1, t2, one), sub(sub(t3, t1, one), t2, one));
  if (!bias.defined()) return r;
  DimVector bs{bias.numel()};
  for (int64_t i = 2; i < r.dim(); ++i) bs.push_back(1);
  return add(r, reshape(bias, bs), one);
}

// aten's _convolution on CPU: the shape checks, the empty backend or the kernel's checks, the kernel.
Tensor conv_core(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride0,
                 IntArrayRef padding0, IntArrayRef dilation0, bool transposed, IntArrayRef output_padding0,
                 int64_t groups, bool split_complex) {
  // conv1d / conv2d / ... split a complex convolution; aten's convolution itself has no complex kernel
  if (split_complex && is_complex(input.dtype()) && input.dtype() == weight.dtype() &&
      (!bias.defined() || bias.dtype() == input.dtype()))
    return complex_conv(input, weight, bias, stride0, padding0, dilation0, transposed, output_padding0, groups);
  EMBER_CHECK(weight.dim() >= 3 && weight.dim() <= 5, "Expected 3D, 4D or 5D weight for convolution, but got ",
              weight.dim(), "D weight of size ", shape_str(weight.sizes()));
  const int64_t nsp = weight.dim() - 2;
  DimVector stride = conv::expand_arg(stride0, nsp, "stride");
  DimVector padding = conv::expand_arg(padding0, nsp, "padding");
  DimVector dilation = conv::expand_arg(dilation0, nsp, "dilation");
  DimVector output_padding = conv::expand_arg(output_padding0, nsp, "output_padding");  // checked even when unused
  conv::check_shapes(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
  if (!transposed) output_padding = DimVector(static_cast<size_t>(nsp), 0);
  if (input.size(0) == 0 || input.size(1) == 0) {
    conv::Geometry g =
        conv::geometry(input, weight.sizes(), stride, padding, dilation, transposed, output_padding, groups);
    return conv::empty_backend(input, weight, bias, g, transposed);
  }
  EMBER_CHECK(input.numel() != 0, "Only zero batch or zero channel inputs are supported, but got input shape: ",
              shape_str(conv::as_2d(input.sizes())));
  conv::kernel_checks(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
  // aten's transposed integer kernel adds the bias in place (add_): a float bias cannot be cast to it
  if (transposed && bias.defined() && !is_floating_or_complex(input.dtype()))
    check_cast(promote_types(input.dtype(), bias.dtype()), input.dtype());
  // Contiguous for channels-last operands too, where aten's result is channels-last: the kernels
  // compute in NC*, and converting each result back (and each next input in) made a channels-last
  // network twice as slow (docs/coming_from_pytorch.rst).
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

// conv1d / conv2d / conv3d with numeric padding check the bias's dtype before anything else.
Tensor conv_nd_checked(const char* name, int64_t nsp, const Tensor& input, const Tensor& weight, const Tensor& bias,
                       IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  EMBER_CHECK(!bias.defined() || bias.dtype() == input.dtype(), "Input type (", c_type_name(input.dtype()),
              ") and bias type (", c_type_name(bias.dtype()), ") should be the same");
  static const int64_t zero[] = {0};
  return conv_nd(name, nsp, input, weight, bias, stride, padding, dilation, false, IntArrayRef(zero, 1), groups);
}

Tensor conv_nd_str(const char* name, int64_t nsp, const Tensor& input, const Tensor& weight, const Tensor& bias,
                   IntArrayRef stride, std::string_view padding, IntArrayRef dilation, int64_t groups) {
  EMBER_CHECK(input.dim() == nsp + 1 || input.dim() == nsp + 2, "Expected ", nsp + 1, "D (unbatched) or ", nsp + 2,
              "D (batched) input to ", name, ", but got input of size: ", shape_str(input.sizes()));
  EMBER_CHECK(weight.dim() == nsp + 2, "Expected ", nsp + 2, "-dimensional weight for ", name, ", but got ",
              weight.dim(), "-dimensional weight of size ", shape_str(weight.sizes()));
  DimVector st = conv::expand_arg(stride, nsp, "stride"), dil = conv::expand_arg(dilation, nsp, "dilation");
  for (int64_t i = 0; i < nsp; ++i) {
    // Past 2 * size + 4 a 'same' dilation leaves the centre tap (odd kernels) alone on the input,
    // every other tap on padding: a smaller one of the same parity gives the same output, and
    // keeps the padding arithmetic in range (aten's wraps, and happens to give those zeros).
    // (a d * (k - 1) past int64 is same_padding's error, as aten's wrapped arithmetic gives)
    const int64_t in = input.size(input.dim() - nsp + i), cap = 2 * in + 4, k = weight.size(2 + i);
    if (k > 1 && dil[i] > cap + 1 && static_cast<__int128>(dil[i]) * (k - 1) <= INT64_MAX) dil[i] = cap + (dil[i] & 1);
  }
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
  static const int64_t zero[] = {0};
  return conv_nd(name, nsp, x, weight, bias, st, sym, dil, false, IntArrayRef(zero, 1), groups);
}

}  // namespace

Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups) {
  return conv_core(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, false);
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, int64_t groups) {
  return conv_nd_checked("conv1d", 1, input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, int64_t groups) {
  return conv_nd_checked("conv2d", 2, input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, int64_t groups) {
  return conv_nd_checked("conv3d", 3, input, weight, bias, stride, padding, dilation, groups);
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
