// reflection_pad{1,2,3}d and replication_pad{1,2,3}d with their backward ops (torch._C._nn, under
// F.pad's reflect and replicate modes): aten's checks and messages, the result in the input's
// suggested memory format, then the backend's ShapeKernels::pad. A negative pad crops.
#include <algorithm>
#include <string>

#include "core/error.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/internal.h"

namespace ember {

namespace {

struct PadOp {
  const char* name;
  int64_t k;  // padded dims: the last k
  bool reflect;
};

constexpr const char* kAxis[] = {"W", "H", "D"};
constexpr const char* kWord[] = {"width", "height", "depth"};

// aten's checks; the backward ops take a zero-sized dim (but replication_pad3d's).
[[noreturn]] void fail_rank(const PadOp& op, const Tensor& self) {
  fail(ErrorKind::Runtime, "Expected ", op.k + 1, "D or ", op.k + 2,
       "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: ",
       shape_str(self.sizes()));
}

// (aten's reflection_pad1d / 2d backward kernels read the first 2k pads of a longer list)
void check_padding_length(const PadOp& op, IntArrayRef padding, bool backward = false) {
  const int64_t k = op.k, n = static_cast<int64_t>(padding.size());
  if (n == 2 * k || (backward && op.reflect && k < 3 && n > 2 * k)) return;
  if (op.reflect) fail(ErrorKind::Runtime, "padding size is expected to be ", 2 * k, ", but got: ", n);
  fail(ErrorKind::Runtime, "padding size is expected to be ", 2 * k);
}

// (W at dim k of a self with more dims than the op takes: aten reads it as unbatched)
void check_reflect_pads(const PadOp& op, const Tensor& self, IntArrayRef padding) {
  const int64_t k = op.k, nd = self.dim(), w = nd == k + 2 ? nd - 1 : k;
  if (!op.reflect) return;
  for (int64_t i = 0; i < k; ++i) {  // W first
    const int64_t d = w - i, l = padding[2 * i], r = padding[2 * i + 1];
    EMBER_CHECK(l < self.size(d) && r < self.size(d), "Argument #", 4 + 2 * i,
                ": Padding size should be less than the corresponding input dimension, but got: padding (", l, ", ", r,
                ") at dimension ", d, " of input ", shape_str(self.sizes()));
  }
}

void check_input(const PadOp& op, const Tensor& self, IntArrayRef padding, bool backward) {
  const int64_t k = op.k, nd = self.dim();
  check_padding_length(op, padding, backward);
  const bool any_empty_dim = backward && (op.reflect || k < 3);
  bool ok = nd == k + 1 || nd == k + 2;  // an empty batch is allowed, no other empty dim
  for (int64_t d = nd == k + 2 ? 1 : 0; ok && !any_empty_dim && d < nd; ++d) ok = self.size(d) != 0;
  if (!ok) fail_rank(op, self);
  check_reflect_pads(op, self, padding);
}

// The output's sizes (aten's "too small" check: every padded dim empty, or W alone for 1-d);
// a negative one is empty()'s error when the op allocates.
DimVector output_sizes(const PadOp& op, const Tensor& self, IntArrayRef padding) {
  const int64_t k = op.k, nd = self.dim();
  DimVector out(self.sizes().begin(), self.sizes().end());
  bool any_positive = false;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i;
    // 128-bit: pads are user values (2**62 and -2**63 included)
    const __int128 s = static_cast<__int128>(self.size(d)) + padding[2 * i] + padding[2 * i + 1];
    EMBER_CHECK(s <= INT64_MAX && s >= INT64_MIN, op.name, ": the padded size of dimension ", d,
                " overflows int64: ", self.size(d), " + ", padding[2 * i], " + ", padding[2 * i + 1]);
    out[d] = static_cast<int64_t>(s);
    any_positive = any_positive || out[d] >= 1;
  }
  if (any_positive) return out;
  std::string in = "input (", calc = ") is too small. Calculated output";
  for (int64_t i = k - 1; i >= 0; --i) {  // D, H, W
    const int64_t d = nd - 1 - i;
    const char* sep = i == k - 1 ? "" : (i == 0 ? ", " : " ");
    in += sep + std::string(kAxis[i]) + ": " + std::to_string(self.size(d));
    calc += " " + std::string(kAxis[i]) + ": " + std::to_string(out[d]);
  }
  if (k == 2 && !op.reflect) in += " ";  // replication_pad2d's spelling
  fail(ErrorKind::Runtime, in, calc);
}

DimVector pads_before(const PadOp& op, int64_t nd, IntArrayRef padding) {
  DimVector before(static_cast<size_t>(nd), 0);
  for (int64_t i = 0; i < op.k; ++i) before[nd - 1 - i] = padding[2 * i];
  return before;
}

Tensor pad_forward(const PadOp& op, const Tensor& self, IntArrayRef padding) {
  check_input(op, self, padding, false);
  const DimVector sizes = output_sizes(op, self, padding);
  // aten allocates, then dispatches on the dtype (reflection_pad2d, not a structured kernel,
  // dispatches an empty input before its allocation)
  const ScalarType dt = self.dtype();
  const bool no_kernel = dt == ScalarType::Bool || dt == ScalarType::ComplexHalf || is_shell_unsigned(dt);
  if (no_kernel && self.numel() == 0 && op.reflect && op.k == 2) dtype_not_implemented(op.name, dt);
  Tensor out = empty_in_format(sizes, suggest_memory_format(self), dt, self.device());
  if (no_kernel) dtype_not_implemented(op.name, dt);
  backend(self).shape.pad(self, out, pads_before(op, self.dim(), padding), op.reflect, false);
  return out;
}

// The backward ops' checks up to grad_output's sizes, in the order of aten's kernels (each its
// own): the pad list's length (replication, reflection_pad3d), self's dims up to W (an
// IndexError where missing), reflection_pad3d's ranks, the pads against self's sizes (reflection
// 1d / 3d), replication_pad3d's input check and channels, then grad_output's padded dims.
void backward_checks_in_aten_order(const PadOp& op, const Tensor& grad_output, const Tensor& self,
                                   IntArrayRef padding) {
  const int64_t k = op.k, nd = self.dim();
  const bool rep3 = !op.reflect && k == 3, ref3 = op.reflect && k == 3;
  // too few pads: aten's reflection kernels read past the list (a known wrong); the error first
  if (!op.reflect || ref3 || static_cast<int64_t>(padding.size()) < 2 * k) check_padding_length(op, padding, true);
  if (nd <= k) {
    EMBER_CHECK(!ref3,
                "Expected input.dim() > 3 to be true, but got false.  (Could this error message be improved?  "
                "If so, please report an enhancement request to PyTorch.)");
    (void)self.size(rep3 ? nd : std::max<int64_t>(nd, 1));
  }
  if (ref3)
    EMBER_CHECK(grad_output.dim() == nd,
                "Expected grad_output.dim() == input.dim() to be true, but got false.  "
                "(Could this error message be improved?  If so, please report an enhancement request to PyTorch.)");
  if (op.reflect && k != 2) {
    check_reflect_pads(op, self, padding);
  }
  if (nd > k + 2 && !rep3) {  // read as an unbatched input: W at dim k
    (void)grad_output.size(k);
    fail_rank(op, self);
  }
  if (rep3) {
    check_input(op, self, padding, true);
    const int64_t plane = nd == k + 2 ? 1 : 0;
    EMBER_CHECK(grad_output.size(plane) == self.size(plane),
                "gradOutput channel unexpected. Expected: ", self.size(plane), ", Got: ", grad_output.size(plane));
  }
  for (int64_t i = 0; i < k; ++i) (void)grad_output.size(nd - 1 - i);
}

Tensor pad_backward(const PadOp& op, const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  backward_checks_in_aten_order(op, grad_output, self, padding);
  check_input(op, self, padding, true);
  const DimVector expected = output_sizes(op, self, padding);
  const int64_t nd = self.dim();
  EMBER_CHECK(grad_output.dim() == nd, op.name, "_backward: expected grad_output with ", nd, " dims, but got ",
              shape_str(grad_output.sizes()));
  // aten's words: reflection_pad2d and replication say gradOutput, replication_pad1d drops a comma
  const char* who = op.reflect && op.k != 2 ? "grad_output" : "gradOutput";
  const char* got = !op.reflect && op.k == 1 ? " Got: " : ", Got: ";
  for (int64_t d = nd - 1; d >= 0; --d) {  // W, H, D, then channels and batch
    const int64_t i = nd - 1 - d;
    const char* word = i < op.k ? kWord[i] : (d == nd - op.k - 1 ? "channel" : "batch");
    EMBER_CHECK(grad_output.size(d) == expected[d], who, " ", word, " unexpected. Expected: ", expected[d], got,
                grad_output.size(d));
  }
  const MemoryFormat mf = suggest_memory_format(self);
  if (self.numel() == 0 || grad_output.numel() == 0)  // aten returns before its kernel's dispatch
    return fill_(empty_in_format(self.sizes(), mf, self.dtype(), self.device()), Scalar(0));
  // the kernel dispatches on grad_output's dtype, then reads self's gradient as that type
  const ScalarType dt = grad_output.dtype();
  if (!is_floating(dt) && dt != ScalarType::ComplexFloat && dt != ScalarType::ComplexDouble)
    dtype_not_implemented((std::string(op.name) + "_backward").c_str(), dt);
  EMBER_CHECK(self.dtype() == dt, "expected scalar type ", legacy_name(dt), " but found ", legacy_name(self.dtype()));
  Tensor grad_input = fill_(empty_in_format(self.sizes(), mf, dt, self.device()), Scalar(0));
  const Tensor go = contiguous(grad_output, mf);
  backend(self).shape.pad(grad_input, go, pads_before(op, nd, padding), op.reflect, true);
  return grad_input;
}

constexpr PadOp kReflect1{"reflection_pad1d", 1, true}, kReflect2{"reflection_pad2d", 2, true},
    kReflect3{"reflection_pad3d", 3, true};
constexpr PadOp kReplicate1{"replication_pad1d", 1, false}, kReplicate2{"replication_pad2d", 2, false},
    kReplicate3{"replication_pad3d", 3, false};

}  // namespace

Tensor reflection_pad1d(const Tensor& self, IntArrayRef padding) { return pad_forward(kReflect1, self, padding); }
Tensor reflection_pad2d(const Tensor& self, IntArrayRef padding) { return pad_forward(kReflect2, self, padding); }
Tensor reflection_pad3d(const Tensor& self, IntArrayRef padding) { return pad_forward(kReflect3, self, padding); }
Tensor replication_pad1d(const Tensor& self, IntArrayRef padding) { return pad_forward(kReplicate1, self, padding); }
Tensor replication_pad2d(const Tensor& self, IntArrayRef padding) { return pad_forward(kReplicate2, self, padding); }
Tensor replication_pad3d(const Tensor& self, IntArrayRef padding) { return pad_forward(kReplicate3, self, padding); }

Tensor reflection_pad1d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward(kReflect1, grad_output, self, padding);
}
Tensor reflection_pad2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward(kReflect2, grad_output, self, padding);
}
Tensor reflection_pad3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward(kReflect3, grad_output, self, padding);
}
Tensor replication_pad1d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward(kReplicate1, grad_output, self, padding);
}
Tensor replication_pad2d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward(kReplicate2, grad_output, self, padding);
}
Tensor replication_pad3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward(kReplicate3, grad_output, self, padding);
}

}  // namespace ember
