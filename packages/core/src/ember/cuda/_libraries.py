"""Where NVIDIA's pip packages (nvidia-cublas and the like, which PyTorch's CUDA wheels depend on) put
the CUDA libraries ember's CUDA backend opens at run time: ``<sys.path entry>/nvidia/<name>/lib/``
(``<name>`` is the library, e.g. ``cublas``, or the CUDA major, e.g. ``cu13``). The backend asks here
only when dlopen cannot find a library by its soname."""

from __future__ import annotations

import glob
import os
import sys


def locate(soname: str) -> str:
    """The path of ``soname`` (``libcublas.so.13``) in an NVIDIA package on ``sys.path``, or ``""``."""
    for entry in sys.path:
        found = sorted(glob.glob(os.path.join(entry or os.curdir, "nvidia", "*", "lib", soname)))
        if found:
            return found[0]
    return ""
