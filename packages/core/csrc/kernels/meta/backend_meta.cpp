// The meta device's backend table: tensors there have no memory, so every kernel does nothing and
// an op computes only its result's sizes, strides and dtype (PyTorch's meta kernels). The entries
// whose answer steers the op body say what lets it go on: an index check passes, no fast path
// applies, no index is out of range; those a GPU leaves null (the op composes them from device
// ops instead of a host loop) are null here too. Counting a mask's true flags or grouping equal
// values has no data-independent answer (PyTorch's nonzero and unique on meta raise too).
#include "core/error.h"
#include "kernels/backend_fill.h"
#include "kernels/index_args.h"

namespace ember {

namespace {

bool passes(const Tensor&, int64_t, const Tensor&, const Tensor&) { return true; }
bool rows_pass(const Tensor&, int64_t, const Tensor&, const Tensor&, const indexing::IndexCheck&) { return true; }
bool offsets_pass(const int64_t*, int64_t, int64_t, int64_t, int64_t*, int64_t, bool) { return true; }
int64_t none_out_of_range(const int64_t*, int64_t n, int64_t) { return n; }

[[noreturn]] void data_dependent() {
  fail(ErrorKind::NotImplemented,
       "The meta device has no data: an op whose result's size depends on the values (nonzero, masked_select, "
       "boolean-mask indexing, unique) cannot run on meta tensors");
}
void count_true(const Tensor&, indexing::MaskChunks&) { data_dependent(); }
void unique_groups(const Tensor&, int64_t, int64_t, bool, bool, indexing::UniqueGroups&) { data_dependent(); }

Backend make_meta_backend() {
  Backend b = backend_fill::filled_backend(DeviceType::Meta, backend_fill::DoingNothing{});
  b.index.gather = passes;
  b.index.select_rows = rows_pass;
  b.index.add_offsets = offsets_pass;
  b.index.first_out_of_range = none_out_of_range;
  b.index.count_true = count_true;
  b.index.unique_groups = unique_groups;
  b.random.multinomial_replace = nullptr;  // composed from device ops, as on a GPU
  b.random.multinomial_race = nullptr;
  return b;
}

}  // namespace

const Backend& meta_backend() {
  static const Backend table = make_meta_backend();
  return table;
}

}  // namespace ember
