// Errors carry the Python exception type they must surface as, so the
// binding layer can translate them without guessing from the message.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace ember {

// NoCuda surfaces as a class deriving from both AssertionError (PyTorch's type)
// and RuntimeError; OutOfMemory as ember.OutOfMemoryError (a RuntimeError, like torch's).
enum class ErrorKind { Runtime, Type, Value, Index, NotImplemented, LinAlg, NoCuda, OutOfMemory };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& msg) : std::runtime_error(msg), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

namespace detail {
inline void str_into(std::ostringstream&) {}
template <class T, class... Rest>
void str_into(std::ostringstream& os, const T& v, const Rest&... rest) {
  os << v;
  str_into(os, rest...);
}
}  // namespace detail

template <class... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  detail::str_into(os, args...);
  return os.str();
}

template <class... Args>
[[noreturn]] __attribute__((noinline, cold)) void fail(ErrorKind kind, const Args&... args) {
  throw Error(kind, str(args...));
}

// Python's warnings.warn (UserWarning) when the binding layer installed a hook;
// the core stays free of Python.
extern void (*g_warn_hook)(const char* msg);
inline void warn(const std::string& msg) {
  if (g_warn_hook) g_warn_hook(msg.c_str());
}

}  // namespace ember

#define EMBER_CHECK_KIND(kind, cond, ...)                               \
  do {                                                                  \
    if (__builtin_expect(!(cond), 0)) ::ember::fail(kind, __VA_ARGS__); \
  } while (0)
#define EMBER_CHECK(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Runtime, cond, __VA_ARGS__)
#define EMBER_CHECK_TYPE(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Type, cond, __VA_ARGS__)
#define EMBER_CHECK_VALUE(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Value, cond, __VA_ARGS__)
#define EMBER_CHECK_INDEX(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Index, cond, __VA_ARGS__)
#define EMBER_CHECK_NOTIMPL(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::NotImplemented, cond, __VA_ARGS__)
