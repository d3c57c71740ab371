#pragma once
#include <cstdint>
#include <string>

namespace ember {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;  // -1: no index given ("cpu" != "cpu:0", as in PyTorch)
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  bool is_cpu() const { return type == DeviceType::CPU; }
  std::string str() const {
    std::string s = type == DeviceType::CPU ? "cpu" : "cuda";
    if (index >= 0) s += ":" + std::to_string(index);
    return s;
  }
};

inline Device cpu_device() { return Device{}; }

}  // namespace ember
