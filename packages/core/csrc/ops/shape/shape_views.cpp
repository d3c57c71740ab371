// View ops of the shape area: narrow, select, unfold, as_strided, diagonal, movedim, unflatten.
#include <algorithm>

#include "core/size_math.h"
#include "ops.h"
#include "ops/shape/shape_internal.h"

namespace ember {

Tensor narrow(const Tensor& input, int64_t dim, int64_t start, int64_t length) {
  EMBER_CHECK(input.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  EMBER_CHECK(length >= 0, "narrow(): length must be non-negative.");
  int64_t d = wrap_dim(dim, input.dim());
  int64_t n = input.size(d);
  EMBER_CHECK_INDEX(start >= -n && start <= n, "start out of range (expected to be in range of [", -n, ", ", n,
                    "], but got ", start, ")");
  if (start < 0) start += n;
  EMBER_CHECK(start <= n - length, "start (", start, ") + length (", length, ") exceeds dimension size (", n, ").");
  return slice_op(input, d, start, length);  // aten's narrow is a slice
}

Tensor select(const Tensor& input, int64_t dim, int64_t index) {
  EMBER_CHECK_INDEX(input.dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  int64_t d = wrap_dim(dim, input.dim());
  int64_t n = input.size(d);
  EMBER_CHECK_INDEX(index >= -n && index < n, "select(): index ", index, " out of range for tensor of size ",
                    shape_str(input.sizes()), " at dimension ", dim);
  if (index < 0) index += n;
  DimVector sizes = to_vec(input.sizes()), strides = to_vec(input.strides());
  sizes.erase(static_cast<size_t>(d));
  strides.erase(static_cast<size_t>(d));
  return via_as_strided(input,
                        [&] { return make_view(input, sizes, strides, input.offset() + index * input.stride(d)); });
}

// as_strided's refusal of a negative stride (aten's unfold and as_strided both end there).
static void check_nonnegative_strides(IntArrayRef stride) {
  for (int64_t s : stride)
    EMBER_CHECK(s >= 0,
                "as_strided: Negative strides are not supported at the moment, got strides: ", shape_str(stride));
}

Tensor unfold(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  int64_t nd = std::max<int64_t>(self.dim(), 1);
  int64_t d = wrap_dim(dimension, nd);
  int64_t len = self.dim() == 0 ? 1 : self.size(d);
  int64_t st = self.dim() == 0 ? 1 : self.stride(d);
  EMBER_CHECK(size <= len, "maximum size for tensor at dimension ", d, " is ", len, " but size is ", size);
  EMBER_CHECK(size >= 0, "size is ", size, " but must be >= 0");
  EMBER_CHECK(step > 0, "step is ", step, " but must be > 0");
  DimVector sizes = to_vec(self.sizes()), strides = to_vec(self.strides());
  if (self.dim() == 0) {
    sizes = {size};
    strides = {1};
  } else {
    sizes[d] = (len - size) / step + 1;
    // aten multiplies in int64 and wraps: a huge step gives a negative stride, which its
    // as_strided refuses (a wrap to a positive stride is kept: that dim has one window)
    strides[d] = static_cast<int64_t>(static_cast<uint64_t>(st) * static_cast<uint64_t>(step));
    sizes.push_back(size);
    strides.push_back(st);
  }
  check_nonnegative_strides(strides);
  return via_as_strided(self, [&] { return make_view(self, sizes, strides, self.offset()); });
}

Tensor as_strided(const Tensor& input, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) {
  EMBER_CHECK(size.size() == stride.size(), "mismatch in length of strides and shape");
  int64_t off = storage_offset ? *storage_offset : input.offset();
  EMBER_CHECK(off >= 0, "Tensor: invalid storage offset ", off);
  check_nonnegative_strides(stride);
  size_t need = strided_nbytes(size, stride, off, input.itemsize());
  size_t have = input.storage().nbytes;
  EMBER_CHECK(need <= have, "setStorage: sizes ", shape_str(size), ", strides ", shape_str(stride), ", storage offset ",
              off, ", and itemsize ", input.itemsize(), " requiring a storage size of ", need,
              " are out of bounds for storage of size ", have);
  return make_view(input, size, stride, off);
}

Tensor diagonal(const Tensor& input, int64_t offset, int64_t dim1, int64_t dim2) {
  int64_t nd = input.dim();
  int64_t a = wrap_dim(dim1, nd), b = wrap_dim(dim2, nd);
  EMBER_CHECK(a != b, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t len, off = input.offset();
  if (offset >= 0) {
    len = std::max<int64_t>(std::min(input.size(a), input.size(b) - offset), 0);
    if (len > 0) off += offset * input.stride(b);
  } else {
    len = std::max<int64_t>(std::min(input.size(a) + offset, input.size(b)), 0);
    if (len > 0) off -= offset * input.stride(a);
  }
  DimVector sizes, strides;
  for (int64_t i = 0; i < nd; ++i) {
    if (i == a || i == b) continue;
    sizes.push_back(input.size(i));
    strides.push_back(input.stride(i));
  }
  sizes.push_back(len);
  strides.push_back(input.stride(a) + input.stride(b));
  return via_as_strided(input, [&] { return make_view(input, sizes, strides, off); });
}

static DimVector movedim_perm(int64_t nd, IntArrayRef source, IntArrayRef destination) {
  EMBER_CHECK(source.size() == destination.size(), "movedim: Invalid source or destination dims: source (",
              shape_str(source), " dims) should contain the same number of dims as destination (",
              shape_str(destination), " dims)");
  int64_t ndm = std::max<int64_t>(nd, 1);
  DimVector src, dst;
  for (int64_t s : source) src.push_back(wrap_dim(s, ndm));
  for (int64_t s : destination) dst.push_back(wrap_dim(s, ndm));
  // every source dim, then every destination dim, distinct (a 0-d tensor's too)
  for (size_t i = 0; i < src.size(); ++i)
    for (size_t j = i + 1; j < src.size(); ++j)
      EMBER_CHECK(src[i] != src[j], "movedim: repeated dim in `source` (", shape_str(source), ")");
  for (size_t i = 0; i < dst.size(); ++i)
    for (size_t j = i + 1; j < dst.size(); ++j)
      EMBER_CHECK(dst[i] != dst[j], "movedim: repeated dim in `destination` (", shape_str(destination), ")");
  if (nd == 0) return DimVector();
  DimVector perm(nd, -1);
  std::vector<bool> used_src(nd, false);
  for (size_t i = 0; i < src.size(); ++i) {
    perm[dst[i]] = src[i];
    used_src[src[i]] = true;
  }
  int64_t next = 0;
  for (int64_t i = 0; i < nd; ++i) {
    if (perm[i] != -1) continue;
    while (used_src[next]) ++next;
    perm[i] = next++;
  }
  return perm;
}

Tensor movedim(const Tensor& input, IntArrayRef source, IntArrayRef destination) {
  DimVector perm = movedim_perm(input.dim(), source, destination);
  if (input.dim() == 0) return make_view(input, input.sizes(), input.strides(), input.offset());
  return profiler::nested_op("aten::permute", {&input, nullptr}, [&] { return permute(input, perm); });
}

Tensor movedim_int(const Tensor& input, int64_t source, int64_t destination) {
  return movedim(input, IntArrayRef(&source, 1), IntArrayRef(&destination, 1));
}

Tensor unflatten(const Tensor& input, int64_t dim, IntArrayRef sizes) {
  // aten: the dim is wrapped first (IndexError), then the sizes and the tensor's rank checked.
  int64_t d = wrap_dim(dim, input.dim());
  EMBER_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  EMBER_CHECK(input.dim() > 0, "unflatten: Provided dim ", dim, " but tensor is 0-dimensional");
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      EMBER_CHECK(infer < 0, "only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else {
      known *= sizes[i];
    }
  }
  DimVector inner = to_vec(sizes);
  if (infer >= 0) {
    EMBER_CHECK(known != 0 && input.size(d) % known == 0, "unflatten: Provided sizes ", shape_str(sizes),
                " don't multiply up to the size of dim ", dim, " (", input.size(d), ") in the input tensor");
    inner[infer] = input.size(d) / known;
  } else {
    EMBER_CHECK(known == input.size(d), "unflatten: Provided sizes ", shape_str(sizes),
                " don't multiply up to the size of dim ", dim, " (", input.size(d), ") in the input tensor");
  }
  DimVector shape;
  for (int64_t i = 0; i < d; ++i) shape.push_back(input.size(i));
  for (int64_t s : inner) shape.push_back(s);
  for (int64_t i = d + 1; i < input.dim(); ++i) shape.push_back(input.size(i));
  return profiler::nested_op("aten::view", {&input, nullptr}, [&] { return view(input, shape); });
}

}  // namespace ember
