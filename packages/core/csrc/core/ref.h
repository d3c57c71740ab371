// Intrusive reference counting: one atomic per object, no control block.
// Tensors are created per op call, so a separate shared_ptr control block
// would be a second allocation on the hottest path.
#pragma once
#include <atomic>
#include <cstdint>
#include <utility>

namespace ember {

struct RefCounted {
  mutable std::atomic<int32_t> refcount_{0};
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;
  virtual ~RefCounted() = default;
};

template <class T>
class Ref {
 public:
  Ref() noexcept = default;
  Ref(std::nullptr_t) noexcept {}
  explicit Ref(T* p) noexcept : p_(p) { retain(); }
  // Takes over a new object's first reference: nothing else can see it yet, so a plain store.
  struct Adopt {};
  Ref(T* fresh, Adopt) noexcept : p_(fresh) { p_->refcount_.store(1, std::memory_order_relaxed); }
  Ref(const Ref& o) noexcept : p_(o.p_) { retain(); }
  Ref(Ref&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  template <class U>
  Ref(const Ref<U>& o) noexcept : p_(o.get()) {
    retain();
  }
  ~Ref() { release(); }
  Ref& operator=(const Ref& o) noexcept {
    Ref(o).swap(*this);
    return *this;
  }
  Ref& operator=(Ref&& o) noexcept {
    Ref(std::move(o)).swap(*this);
    return *this;
  }
  void swap(Ref& o) noexcept { std::swap(p_, o.p_); }
  T* get() const noexcept { return p_; }
  T* operator->() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  bool operator==(const Ref& o) const noexcept { return p_ == o.p_; }
  bool operator!=(const Ref& o) const noexcept { return p_ != o.p_; }
  int32_t use_count() const noexcept { return p_ ? p_->refcount_.load() : 0; }
  void reset() noexcept { Ref().swap(*this); }

 private:
  void retain() noexcept {
    if (p_) p_->refcount_.fetch_add(1, std::memory_order_relaxed);
  }
  // The last owner (count 1, seen with acquire: every other owner's release happened before)
  // deletes without the locked decrement, which costs ~20 cycles on every op's temporaries.
  void release() noexcept {
    if (!p_) return;
    if (p_->refcount_.load(std::memory_order_acquire) == 1 ||
        p_->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      delete p_;
  }
  T* p_ = nullptr;
};

template <class T, class... Args>
Ref<T> make_ref(Args&&... args) {
  return Ref<T>(new T(std::forward<Args>(args)...), typename Ref<T>::Adopt{});
}

}  // namespace ember
