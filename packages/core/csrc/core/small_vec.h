// A vector with inline capacity, for sizes and strides: almost every tensor
// has at most 6 dims, so they never touch the heap.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <type_traits>

namespace ember {

template <class T, int N>
class SmallVec {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVec holds plain values only");

 public:
  SmallVec() = default;
  explicit SmallVec(size_t n, T v = T()) { resize(n, v); }
  SmallVec(std::initializer_list<T> il) { assign(il.begin(), il.end()); }
  template <class It>
  SmallVec(It b, It e) {
    assign(b, e);
  }
  SmallVec(const SmallVec& o) { assign(o.begin(), o.end()); }
  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  ~SmallVec() {
    if (data_ != inline_) std::free(data_);
  }
  template <class It>
  void assign(It b, It e) {
    size_t n = static_cast<size_t>(e - b);
    reserve(n);
    std::copy(b, e, data_);
    size_ = n;
  }
  void reserve(size_t n) {
    if (n <= cap_) return;
    T* p = static_cast<T*>(std::malloc(n * sizeof(T)));
    std::memcpy(p, data_, size_ * sizeof(T));
    if (data_ != inline_) std::free(data_);
    data_ = p;
    cap_ = n;
  }
  void resize(size_t n, T v = T()) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = v;
    size_ = n;
  }
  void push_back(T v) {
    if (size_ == cap_) reserve(cap_ * 2);
    data_[size_++] = v;
  }
  void insert(size_t pos, T v) {
    push_back(v);
    for (size_t i = size_ - 1; i > pos; --i) data_[i] = data_[i - 1];
    data_[pos] = v;
  }
  void erase(size_t pos) {
    for (size_t i = pos; i + 1 < size_; ++i) data_[i] = data_[i + 1];
    --size_;
  }
  void clear() { size_ = 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  bool operator==(const SmallVec& o) const { return size_ == o.size_ && std::equal(begin(), end(), o.begin()); }
  bool operator!=(const SmallVec& o) const { return !(*this == o); }

 private:
  T inline_[N];
  T* data_ = inline_;
  size_t size_ = 0;
  size_t cap_ = N;
};

// A non-owning view of int64 values (sizes, strides, dims).
struct IntArrayRef {
  const int64_t* ptr = nullptr;
  size_t len = 0;
  IntArrayRef() = default;
  IntArrayRef(const int64_t* p, size_t n) : ptr(p), len(n) {}
  template <int N>
  IntArrayRef(const SmallVec<int64_t, N>& v) : ptr(v.data()), len(v.size()) {}
  IntArrayRef(std::initializer_list<int64_t> il) : ptr(il.begin()), len(il.size()) {}
  const int64_t* begin() const { return ptr; }
  const int64_t* end() const { return ptr + len; }
  size_t size() const { return len; }
  bool empty() const { return len == 0; }
  int64_t operator[](size_t i) const { return ptr[i]; }
  bool equals(IntArrayRef o) const { return len == o.len && std::equal(begin(), end(), o.begin()); }
};

using DimVector = SmallVec<int64_t, 6>;

inline DimVector to_vec(IntArrayRef a) { return DimVector(a.begin(), a.end()); }

}  // namespace ember
