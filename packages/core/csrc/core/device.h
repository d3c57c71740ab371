#pragma once
#include <cstdint>
#include <string>

namespace ember {

// Meta: tensors with sizes, strides and dtype but no memory (PyTorch's "meta" device): ops compute
// their results' metadata only, through a backend table whose kernels do nothing.
enum class DeviceType : int8_t { CPU = 0, CUDA = 1, Meta = 2 };

inline const char* device_type_name(DeviceType t) {
  return t == DeviceType::CPU ? "cpu" : t == DeviceType::CUDA ? "cuda" : "meta";
}

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;  // -1: no index given ("cpu" != "cpu:0", as in PyTorch)
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool is_meta() const { return type == DeviceType::Meta; }
  std::string str() const {
    std::string s = device_type_name(type);
    if (index >= 0) s += ":" + std::to_string(index);
    return s;
  }
};

inline Device cpu_device() { return Device{}; }

}  // namespace ember
