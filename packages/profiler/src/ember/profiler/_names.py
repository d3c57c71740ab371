"""Small enums and queries ``torch.profiler`` exports: device kinds, record scopes, and whether
the Kineto-style profiler (and fbcode) are present."""

from __future__ import annotations

from enum import Enum

from .profiler import ProfilerActivity, supported_activities

__all__ = ["DeviceType", "RecordScope", "is_fbcode", "kineto_available"]


class _IntValued(Enum):
    """An enum whose members convert to their integer value (as torch's bound C++ enums do)."""

    def __int__(self) -> int:
        return int(self.value)

    def __index__(self) -> int:
        return int(self.value)


class DeviceType(_IntValued):
    """The kinds of device an event can run on (c10's device types, same numbers as torch)."""

    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    MTIA = 19
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    PrivateUse1 = 20


class RecordScope(_IntValued):
    """What kind of code a recorded range belongs to (an execution trace node's ``scope``)."""

    FUNCTION = 0
    BACKWARD_FUNCTION = 1
    TORCHSCRIPT_FUNCTION = 2
    KERNEL_FUNCTION_DTYPE = 3
    CUSTOM_CLASS = 4
    BUILD_FEATURE = 5
    LITE_INTERPRETER = 6
    USER_SCOPE = 7
    STATIC_RUNTIME_OP = 8
    STATIC_RUNTIME_MODEL = 9


def kineto_available() -> bool:
    """True: ``ember.profiler.profile`` is the Kineto-style profiler (Chrome traces, schedules),
    implemented by ember itself rather than by the Kineto library."""
    return True


def is_fbcode() -> bool:
    """False: ember never runs inside Meta's internal (fbcode) build."""
    return False


def _supported_activities() -> set[ProfilerActivity]:
    return supported_activities()
