// TORCH_LIBRARY / TORCH_LIBRARY_IMPL: ops defined in C++ become ember.ops.<ns>.<op>. Each
// block runs when the library is loaded (import of a Python extension, or
// ember.ops.load_library) and registers pybind11 functions through ember/ops.py.
#pragma once
#include <string>
#include <utility>

#include "python.h"

namespace ember {
namespace EMBER_EXT_NS {

class Library {
 public:
  explicit Library(std::string ns) : ns_(std::move(ns)) {}
  // A schema alone declares the op; its function comes with impl() (TORCH_LIBRARY_IMPL).
  Library& def(const std::string&) { return *this; }
  template <class F>
  Library& def(const std::string& schema, F&& f) {
    add(op_name(schema), std::forward<F>(f));
    return *this;
  }
  template <class F>
  Library& impl(const std::string& name, F&& f) {
    add(op_name(name), std::forward<F>(f));
    return *this;
  }

 private:
  // "ns::name(Tensor a) -> Tensor" -> "name"
  static std::string op_name(const std::string& schema) {
    std::string n = schema.substr(0, schema.find('('));
    size_t c = n.rfind("::");
    if (c != std::string::npos) n = n.substr(c + 2);
    size_t b = n.find_first_not_of(' '), e = n.find_last_not_of(' ');
    return b == std::string::npos ? n : n.substr(b, e - b + 1);
  }
  template <class F>
  void add(const std::string& name, F&& f) {
    pybind11::module_ ops = pybind11::module_::import("ember.ops");
    ops.attr("_register")(ns_, name, pybind11::cpp_function(std::forward<F>(f), pybind11::name(name.c_str())));
  }
  std::string ns_;
};

namespace detail {
// Runs a TORCH_LIBRARY block at load time. A failure cannot propagate out of a static
// initialiser: it is printed (Python's traceback) and the library's other blocks still run.
inline int run_library_block(const char* ns, void (*block)(Library&)) {
  pybind11::gil_scoped_acquire gil;
  if (!import_api(ns)) {
    PyErr_Print();
    return 0;
  }
  try {
    Library lib(ns);
    block(lib);
  } catch (pybind11::error_already_set& e) {
    e.restore();
    PyErr_Print();
  } catch (const std::exception& e) {
    PySys_WriteStderr("TORCH_LIBRARY(%s): %s\n", ns, e.what());
  }
  return 1;
}
}  // namespace detail

}  // namespace ext
}  // namespace ember

#define TORCH_LIBRARY(ns, m)                                                                 \
  static void ember_library_block_##ns(::ember::ext::Library&);                              \
  [[maybe_unused]] static const int ember_library_reg_##ns =                                                \
      ::ember::ext::detail::run_library_block(#ns, &ember_library_block_##ns);               \
  void ember_library_block_##ns(::ember::ext::Library& m)
#define TORCH_LIBRARY_IMPL(ns, k, m)                                                         \
  static void ember_library_impl_##ns##_##k(::ember::ext::Library&);                         \
  [[maybe_unused]] static const int ember_library_impl_reg_##ns##_##k =                                     \
      ::ember::ext::detail::run_library_block(#ns, &ember_library_impl_##ns##_##k);          \
  void ember_library_impl_##ns##_##k(::ember::ext::Library& m)
