// Advanced indexing. Index tensors broadcast to one shape B; each position of B
// picks one element offset over the indexed dims, and the other ("rest") dims
// are copied whole. Result dims: B replaces the indexed dims in place when they
// are adjacent, else B comes first (PyTorch's and NumPy's rule). The plan is built
// here; the element moves are the backend's index kernels (kernels/cpu/index/).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/index/index_advanced.h"
#include "ops/index/index_common.h"

namespace ember {

using namespace index_detail;

IndexList expand_index_masks(const Tensor& self, const IndexList& indices) {
  IndexList out;
  int64_t d = 0;
  for (const Tensor& t : indices) {
    if (!t.defined()) {
      out.emplace_back();
      ++d;
      continue;
    }
    ScalarType dt = t.dtype();
    if (dt == ScalarType::Bool || dt == ScalarType::UInt8) {
      EMBER_CHECK_INDEX(d + t.dim() <= self.dim(), "too many indices for tensor of dimension ", self.dim());
      for (int64_t k = 0; k < t.dim(); ++k)
        EMBER_CHECK_INDEX(t.sizes()[k] == self.sizes()[d + k], "The shape of the mask ", shape_str(t.sizes()),
                          " at index ", k, " does not match the shape of the indexed tensor ", shape_str(self.sizes()),
                          " at index ", d + k);
      Tensor nz = nonzero(t);
      for (int64_t k = 0; k < t.dim(); ++k) out.push_back(select(nz, 1, k));
      d += t.dim();
    } else {
      EMBER_CHECK_INDEX(dt == ScalarType::Int64 || dt == ScalarType::Int32,  // aten refuses int16 and int8 too
                        "tensors used as indices must be long, int, byte or bool tensors");
      out.push_back(t);
      ++d;
    }
  }
  EMBER_CHECK_INDEX(static_cast<int64_t>(out.size()) <= self.dim(), "too many indices for tensor of dimension ",
                    self.dim());
  return out;
}

namespace {

// Where the pieces of an advanced index go.
struct Plan {
  DimVector bshape;          // broadcast shape of the index tensors
  int64_t nb = 1;            // its numel
  std::vector<int64_t> adv;  // indexed dims of self
  std::vector<Tensor> idx;   // contiguous int64, shape bshape, one per adv dim
  DimVector rest_sizes, rest_src_strides, rest_out_strides;
  DimVector out_shape;
  int64_t b_stride = 0;          // stride of the flattened B dim in the (contiguous) result
  std::vector<int64_t> offsets;  // element offset in self per B position
  Tensor device_offsets;         // the same on a GPU self's device (offsets then stays empty)
  const int64_t* offsets_data() const {
    return device_offsets.defined() ? device_offsets.data<int64_t>() : offsets.data();
  }
  // The first out-of-bounds index met (raised by check_bounds: index_put_ checks its value first).
  bool bad = false;
  int64_t bad_index = 0, bad_dim = 0, bad_size = 0;
};

void check_bounds(const Plan& p) {
  if (p.bad)
    fail(ErrorKind::Index, "index ", p.bad_index, " is out of bounds for dimension ", p.bad_dim, " with size ",
         p.bad_size);
}

Plan make_plan(const Tensor& self, const IndexList& raw) {
  IndexList indices = expand_index_masks(self, raw);
  Plan p;
  bool first = true;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!indices[d].defined()) continue;
    p.adv.push_back(static_cast<int64_t>(d));
    if (first) {
      p.bshape.assign(indices[d].sizes().begin(), indices[d].sizes().end());
      first = false;
      continue;
    }
    IntArrayRef s = indices[d].sizes();
    DimVector a = p.bshape;
    // Same broadcasting as elementwise ops, with indexing's own error.
    bool ok = true;
    size_t n = std::max(a.size(), s.size());
    DimVector r(n, 1);
    for (size_t i = 0; i < n; ++i) {
      int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
      int64_t y = i < n - s.size() ? 1 : s[i - (n - s.size())];
      if (x != y && x != 1 && y != 1) ok = false;
      r[i] = x == 1 ? y : x;
    }
    if (!ok) {
      std::string shapes;
      for (const Tensor& t : indices)
        if (t.defined()) shapes += (shapes.empty() ? "" : ", ") + shape_str(t.sizes());
      fail(ErrorKind::Index, "shape mismatch: indexing tensors could not be broadcast together with shapes ", shapes);
    }
    p.bshape = r;
  }
  p.nb = compute_numel(p.bshape);
  bool adjacent = true;
  for (size_t k = 1; k < p.adv.size(); ++k) adjacent &= p.adv[k] == p.adv[k - 1] + 1;
  int64_t bpos = adjacent && !p.adv.empty() ? p.adv[0] : 0;
  // Rest dims of self, in order; B is inserted at bpos among them.
  std::vector<int64_t> rest;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (std::find(p.adv.begin(), p.adv.end(), d) == p.adv.end()) rest.push_back(d);
  for (int64_t i = 0; i < bpos; ++i) p.out_shape.push_back(self.sizes()[rest[i]]);
  for (int64_t s : p.bshape) p.out_shape.push_back(s);
  for (size_t i = bpos; i < rest.size(); ++i) p.out_shape.push_back(self.sizes()[rest[i]]);
  DimVector os = contiguous_strides(p.out_shape);
  int64_t nbd = static_cast<int64_t>(p.bshape.size());
  p.b_stride = nbd ? os[bpos + nbd - 1] : 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    p.rest_sizes.push_back(self.sizes()[rest[i]]);
    p.rest_src_strides.push_back(self.strides()[rest[i]]);
    p.rest_out_strides.push_back(os[static_cast<int64_t>(i) < bpos ? i : i + nbd]);
  }
  // Element offsets of every B position (negative indices wrap).
  for (int64_t d : p.adv) p.idx.push_back(to_device_of(as_long_contiguous(expand(indices[d], p.bshape, false)), self));
  const bool on_device = !self.device().is_cpu();
  if (on_device) p.device_offsets = zeros({p.nb}, ScalarType::Int64, self.device());
  else p.offsets.assign(p.nb, 0);
  int64_t* offsets = on_device ? p.device_offsets.data<int64_t>() : p.offsets.data();
  bool bad = false;
  for (size_t k = 0; k < p.adv.size(); ++k) {
    int64_t size = self.sizes()[p.adv[k]], stride = self.strides()[p.adv[k]];
    // aten's AdvancedIndex refuses any index into a dim of size 0 as it is built (before a value's
    // checks), counting the broadcast indices: x[tensor([0]), tensor([])] on (0, 0) is empty, no error
    EMBER_CHECK_INDEX(size != 0 || p.nb == 0, "index is out of bounds for dimension with size 0");
    const int64_t* ip = p.idx[k].data<int64_t>();
    // Like PyTorch, an empty result reads nothing and so checks nothing, except
    // that a dim of size 0 can take no index at all. A GPU reports a bad index at the next wait.
    const bool checked = compute_numel(p.out_shape) > 0 || size == 0;
    bad |= !backend(self).index.add_offsets(ip, p.nb, size, stride, offsets, p.adv[k], checked);
    if (bad && !p.bad && checked && !on_device) {
      for (int64_t i = 0; i < p.nb && !p.bad; ++i)
        if (ip[i] < -size || ip[i] >= size) {
          p.bad = true;
          p.bad_index = ip[i], p.bad_dim = p.adv[k], p.bad_size = size;
        }
    }
  }
  return p;
}

// Offsets of every rest position (row-major over rest dims) for one stride set.
std::vector<int64_t> rest_offsets(const DimVector& sizes, const DimVector& strides) {
  int64_t n = compute_numel(sizes);
  std::vector<int64_t> r(n, 0);
  int64_t nd = static_cast<int64_t>(sizes.size());
  DimVector c(nd, 0);
  int64_t cur = 0;
  for (int64_t i = 0; i < n; ++i) {
    r[i] = cur;
    for (int64_t d = nd - 1; d >= 0; --d) {
      cur += strides[d];
      if (++c[d] < sizes[d]) break;
      cur -= strides[d] * sizes[d];
      c[d] = 0;
    }
  }
  return r;
}

// AdvancedRows' arrays where the backend reads them: on a GPU self's device, the host vectors copied
// over (held by `keep` while the kernel runs).
indexing::AdvancedRows rows_for(const Tensor& self, const Plan& p, int64_t rn, bool dense,
                                const std::vector<int64_t>& rs, const std::vector<int64_t>& ro,
                                std::vector<Tensor>& keep) {
  indexing::AdvancedRows rows{p.offsets_data(), p.nb, rn, p.b_stride, dense, rs.data(), ro.data()};
  if (self.device().is_cpu()) return rows;
  if (rs.empty()) {  // rn == 1 or a dense block: the kernels need no rest offsets
    rows.rest_src = rows.rest_out = nullptr;
    return rows;
  }
  for (const std::vector<int64_t>* v : {&rs, &ro}) {
    Tensor h = empty({static_cast<int64_t>(v->size())}, ScalarType::Int64);
    std::copy(v->begin(), v->end(), h.data<int64_t>());
    keep.push_back(to_device(h, self.device()));
  }
  rows.rest_src = keep[0].data<int64_t>();
  rows.rest_out = keep[1].data<int64_t>();
  return rows;
}

bool is_dense_block(const DimVector& sizes, const DimVector& strides) {
  int64_t expect = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expect) return false;
    expect *= sizes[d];
  }
  return true;
}

}  // namespace

Tensor index(const Tensor& self, const IndexList& indices) {
  // A lone mask over every dim is masked_select: one pass, no coordinate list.
  if (indices.size() == 1 && indices[0].defined() && indices[0].dtype() == ScalarType::Bool &&
      indices[0].dim() == self.dim() && self.dim() > 0 && same_shape(indices[0].sizes(), self.sizes()) &&
      !is_shell_unsigned(self.dtype()))  // (aten indexes those, but has no masked_select for them)
    return masked_select(self, indices[0]);
  Plan p = make_plan(self, indices);
  check_bounds(p);
  Tensor out = empty(p.out_shape, self.dtype(), self.device());
  int64_t rn = compute_numel(p.rest_sizes);
  if (rn == 0 || p.nb == 0) return out;
  bool dense = is_dense_block(p.rest_sizes, p.rest_src_strides) && is_dense_block(p.rest_sizes, p.rest_out_strides);
  std::vector<int64_t> ro, rs;
  if (!dense && rn > 1) {
    rs = rest_offsets(p.rest_sizes, p.rest_src_strides);
    ro = rest_offsets(p.rest_sizes, p.rest_out_strides);
  }
  std::vector<Tensor> keep;
  const indexing::AdvancedRows rows = rows_for(self, p, rn, dense, rs, ro, keep);
  backend(self).index.advanced_gather(self, out, rows);
  return out;
}

namespace {
// aten's canDispatchToMaskedFill: one bool/uint8 mask among Nones and a one-element value make
// index_put_ a masked_fill_ of that value (cast to self's dtype, no dtype or shape check).
std::optional<Tensor> masked_fill_mask(const Tensor& self, const IndexList& indices, const Tensor& values) {
  if (values.numel() != 1) return std::nullopt;
  int64_t nind = 0;
  Tensor mask;
  for (const Tensor& t : indices) {
    if (!t.defined()) {
      ++nind;
      continue;
    }
    if ((t.dtype() != ScalarType::Bool && t.dtype() != ScalarType::UInt8) || mask.defined()) return std::nullopt;
    mask = t;
    for (int64_t j = 0; j < t.dim(); ++j)
      EMBER_CHECK_INDEX(nind + j < self.dim() && t.sizes()[j] == self.sizes()[nind + j], "The shape of the mask ",
                        shape_str(t.sizes()), " at index ", j, " does not match the shape of the indexed tensor ",
                        shape_str(self.sizes()), " at index ", nind + j);
    nind += t.dim();
  }
  if (!mask.defined()) return std::nullopt;
  for (int64_t i = nind; i < self.dim(); ++i) mask = unsqueeze(mask, -1);
  return mask;
}
}  // namespace

Tensor index_put_(const Tensor& self, const IndexList& indices, const Tensor& values, bool accumulate) {
  check_inplace(self, "index_put_");
  EMBER_CHECK_INDEX(static_cast<int64_t>(indices.size()) <= self.dim(), "too many indices for tensor of dimension ",
                    self.dim(), " (got ", indices.size(), ")");
  if (!accumulate)
    if (std::optional<Tensor> mask = masked_fill_mask(self, indices, values))
      return masked_fill_(self, *mask, values.item());
  check_no_overlap(self, values);  // values read while self is written (aten refuses any overlap)
  // A leading 0-d mask indexes a new leading dim of size 1 (true) or 0, as setitem reads it (aten's
  // index_put fails an internal assert there: torch_known_wrong's index-put-0d-mask).
  const Tensor& first = indices.empty() ? Tensor() : indices[0];
  if (first.defined() && first.dim() == 0 &&
      (first.dtype() == ScalarType::Bool || first.dtype() == ScalarType::UInt8)) {
    IndexList rest = indices;
    rest[0] = reshape(first, DimVector{1});
    index_put_(unsqueeze(self, 0), rest, values, accumulate);
    self.bump_version();
    return self;
  }
  Plan p = make_plan(self, indices);
  Tensor v = values;  // its leading unit dims are setitem's to drop (py_index.cpp), not index_put_'s
  bool ok = v.dim() <= static_cast<int64_t>(p.out_shape.size());
  for (int64_t i = 0; ok && i < v.dim(); ++i) {
    int64_t vs = v.sizes()[v.dim() - 1 - i], os = p.out_shape[p.out_shape.size() - 1 - i];
    ok = vs == 1 || vs == os;
  }
  EMBER_CHECK(ok, "shape mismatch: value tensor of shape ", shape_str(values.sizes()),
              " cannot be broadcast to indexing result of shape ", shape_str(p.out_shape));
  EMBER_CHECK(v.dtype() == self.dtype(), "Index put requires the source and destination dtypes match, got ",
              legacy_name(self.dtype()), " for the destination and ", legacy_name(v.dtype()), " for the source.");
  check_bounds(p);  // aten's kernel meets a bad index after the iterator's checks of the value
  v = to_device_of(contiguous(expand(v, p.out_shape, false), MemoryFormat::Contiguous), self);
  int64_t rn = compute_numel(p.rest_sizes);
  if (rn == 0 || p.nb == 0) return self;
  std::vector<int64_t> rs = rest_offsets(p.rest_sizes, p.rest_src_strides);
  std::vector<int64_t> ro = rest_offsets(p.rest_sizes, p.rest_out_strides);
  std::vector<Tensor> keep;
  const indexing::AdvancedRows rows = rows_for(self, p, rn, false, rs, ro, keep);
  backend(self).index.advanced_put(self, v, rows, accumulate);
  self.bump_version();
  return self;
}

Tensor index_put(const Tensor& self, const IndexList& indices, const Tensor& values, bool accumulate) {
  Tensor out = clone(self, MemoryFormat::Contiguous);
  index_put_(out, indices, values, accumulate);
  return out;
}

}  // namespace ember
