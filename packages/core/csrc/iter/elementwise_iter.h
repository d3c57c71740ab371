// ElementwiseIter: broadcast, promote, allocate the output, reorder and
// coalesce dims, then hand 1-D strided runs to a kernel's inner loop.
// See Note [Iteration order] in elementwise_iter.cpp.
#pragma once
#include <initializer_list>

#include "../core/parallel.h"
#include "../core/tensor.h"

namespace ember {

constexpr int kMaxOperands = 5;  // output + up to four inputs
constexpr int kMaxIterDims = 25;

// How the computation dtype follows from the inputs' promoted dtype.
enum class DtypeRule : uint8_t {
  Promote,         // compute and return the promoted dtype (add, mul)
  IntToFloat,      // integral inputs compute in the default float dtype (exp, div)
  PromoteBoolOut,  // compute in the promoted dtype, return bool (eq, lt)
  FirstInput,      // compute in input 0's dtype; others cast to it (masked ops)
};

// What dtype an out= tensor may have.
enum class OutRule : uint8_t {
  Castable,  // any dtype the result can be cast to (add, exp)
  Exact,     // exactly the result dtype (abs, floor: "Found dtype Double but expected Float")
};

struct IterSpec {
  const char* name;
  Tensor out;            // given output: in-place target or out= tensor
  bool inplace = false;  // `out` is also input 0
  DtypeRule rule = DtypeRule::Promote;
  ScalarType force_compute = ScalarType::Undefined;  // overrides the rule's choice
  bool cast_inputs = true;                           // false: kernel reads each input in its own dtype
  OutRule out_rule = OutRule::Castable;
  bool check_overlap = true;  // false for fills: writing one value many times is fine
};

// Result dtype of an op over these tensors, following PyTorch's categories:
// dimensioned tensors > 0-d tensors > wrapped Python numbers.
ScalarType result_type(std::initializer_list<const Tensor*> ts);
ScalarType result_type(const Tensor* const* ts, int n);
// Broadcast shapes with PyTorch's error message.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b);
// Raises if writing into `t` would hit one memory location twice.
void check_no_internal_overlap(const Tensor& t);
// Whether some element of t is reached by two indices (a stride-0 dim of size > 1).
bool has_internal_overlap(const Tensor& t);
// How two tensors' memory relates (aten's get_overlap_status): the same elements, some of them,
// none, or not known cheaply (a layout that is not dense).
enum class Overlap { No, Full, Partial, TooHard };
Overlap overlap_status(const Tensor& a, const Tensor& b);
// Whether t's elements tile its memory exactly, in some order of its dims.
bool is_non_overlapping_and_dense(const Tensor& t);
// Raises if out and in share memory (PyTorch's assert_no_overlap).
void check_no_overlap(const Tensor& out, const Tensor& in);
// Raises if out and in share only some memory (PyTorch's assert_no_partial_overlap; in place is fine).
void check_no_partial_overlap(const Tensor& out, const Tensor& in);
// Raises PyTorch's "result type X can't be cast to the desired output type Y".
void check_cast(ScalarType result, ScalarType out);
// For ops whose out= must have exactly the result dtype ("Found dtype X but expected Y").
void check_out_exact(ScalarType out, ScalarType result);
// The structured ops' exact out= dtype ("Expected out tensor to have dtype float, but got double instead").
void check_out_dtype(const Tensor& out, ScalarType want);

class ElementwiseIter {
 public:
  // These two keep a reference to each input, so the caller may pass temporaries.
  ElementwiseIter(const IterSpec& spec, std::initializer_list<Tensor> inputs);
  ElementwiseIter(const IterSpec& spec, const Tensor* inputs, int n);
  // Borrowed inputs, which must outlive the iterator (an op's own arguments): no reference
  // counting on the per-op path.
  ElementwiseIter(const IterSpec& spec, std::initializer_list<const Tensor*> inputs);

  // The result: the given output, or the newly allocated one.
  const Tensor& output() const { return result_; }
  // The result handed over (after finish()): the iterator is done with it.
  Tensor take_output() { return std::move(result_); }
  ScalarType compute_dtype() const { return compute_; }
  // The operands' device (a CPU 0-d operand aside: it travels by value, as a number does).
  Device device() const { return device_; }
  ScalarType input_dtype(int i) const { return dtypes_[i + 1]; }
  int64_t numel() const { return numel_; }
  int ntensors() const { return ntensors_; }
  // Input i's value in double when it is a 0-d operand converted on the stack (a Python
  // number or a 0-d tensor of another dtype), else null: kernels that PyTorch runs with
  // the scalar in op-math (mul, div, lerp's weight) read it here, unrounded to half.
  const double* stack_scalar(int i) const {
    const int o = i + 1;
    return data_[o] == scalar_buf_[o] ? reinterpret_cast<const double*>(scalar_buf_[o] + kScalarSlot) : nullptr;
  }
  // Whether operand `op` (0: the output) lives in the iterator itself, converted on the stack:
  // a device kernel then takes its value (compute dtype, at data(op)) as an argument.
  bool on_stack(int op) const { return data_[op] == scalar_buf_[op]; }
  // Copy a temporary output back into the user's out= tensor, if one was used.
  void finish();

  // Call loop(data, strides, n) for every 1-D run; parallel above the grain.
  template <class Loop>
  void for_each(const Loop& loop, int64_t grain = kGrainSize) {
    if (numel_ == 0) return;
    if (numel_ < grain || get_num_threads() == 1) {
      run_range(0, numel_, loop);
      return;
    }
    GilRelease nogil;
    parallel_for(0, numel_, grain, [&](int64_t b, int64_t e) { run_range(b, e, loop); });
  }

  // Dims after coalescing, innermost first; strides in bytes.
  int ndim() const { return ndim_; }
  int64_t shape(int d) const { return shape_[d]; }
  int64_t stride(int op, int d) const { return strides_[op][d]; }
  char* data(int op) const { return data_[op]; }

 private:
  void build(const IterSpec& spec, const Tensor* const* inputs, int n, bool keep_inputs);
  void compute_dtypes(const IterSpec& spec, const Tensor* const* inputs, int n);
  void compute_device(const IterSpec& spec, const Tensor* const* inputs, int n);
  void allocate_or_check_output(const IterSpec& spec, IntArrayRef shape, const Tensor* const* inputs, int n);
  void setup_strides(const Tensor* const* ops, IntArrayRef shape);
  void reorder_and_coalesce();

  template <class Loop>
  void run_range(int64_t begin, int64_t end, const Loop& loop) const {
    char* ptrs[kMaxOperands];
    int64_t inner[kMaxOperands];
    for (int o = 0; o < ntensors_; ++o) inner[o] = strides_[o][0];
    if (ndim_ <= 1) {
      for (int o = 0; o < ntensors_; ++o) ptrs[o] = data_[o] + begin * strides_[o][0];
      loop(ptrs, inner, end - begin);
      return;
    }
    int64_t idx[kMaxIterDims];
    int64_t rem = begin;
    for (int d = 0; d < ndim_; ++d) {
      idx[d] = rem % shape_[d];
      rem /= shape_[d];
    }
    for (int o = 0; o < ntensors_; ++o) {
      char* p = data_[o];
      for (int d = 0; d < ndim_; ++d) p += idx[d] * strides_[o][d];
      ptrs[o] = p;
    }
    // The pointers then move with the index (one add per operand and carried dim, not a
    // recomputation over every dim: short rows, as of a permuted copy, ran 2x slower).
    int64_t pos = begin;
    while (pos < end) {
      int64_t n = std::min(shape_[0] - idx[0], end - pos);
      loop(ptrs, inner, n);
      pos += n;
      if (pos >= end) break;
      idx[0] += n;
      for (int o = 0; o < ntensors_; ++o) ptrs[o] += n * strides_[o][0];
      for (int d = 0; d < ndim_ - 1 && idx[d] >= shape_[d]; ++d) {
        for (int o = 0; o < ntensors_; ++o) ptrs[o] += strides_[o][d + 1] - shape_[d] * strides_[o][d];
        idx[d] = 0;
        ++idx[d + 1];
      }
    }
  }

  int ntensors_ = 0;
  int ndim_ = 0;
  int64_t numel_ = 0;
  ScalarType compute_ = ScalarType::Undefined;
  Device device_;
  ScalarType dtypes_[kMaxOperands];
  int64_t shape_[kMaxIterDims];
  int64_t strides_[kMaxOperands][kMaxIterDims];
  char* data_[kMaxOperands];
  Tensor result_;              // what the op returns
  Tensor out_temp_;            // written instead of result_ when its dtype differs (copy_back_)
  Tensor kept_[kMaxOperands];  // inputs converted to the compute dtype, or kept for the caller
  bool copy_back_ = false;
  // An on-stack operand: its value in the compute dtype (complex128 takes 16 bytes), then
  // (at byte kScalarSlot) as a double.
  static constexpr int kScalarSlot = 16;
  alignas(16) char scalar_buf_[kMaxOperands][kScalarSlot + 16];
};

// Convert a tensor to another dtype (a copy; identity when equal).
Tensor to_dtype(const Tensor& t, ScalarType dtype);
// copy_ semantics: broadcast src into dst, casting; the op behind Tensor.copy_.
void copy_into(const Tensor& dst, const Tensor& src);

}  // namespace ember
