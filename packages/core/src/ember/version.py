"""ember-core's version, as ``torch.version``: ``__version__`` (a comparable ``TorchVersion``),
``cuda`` (the CUDA toolkit of a CUDA build, else None), ``hip``, ``xpu`` and ``debug``."""

from typing import Any

from ember.torch_version import TorchVersion

__version__ = TorchVersion("0.1.0")
git_version = "Unknown"
debug = False
hip = None  # no ROCm backend
xpu = None  # no XPU backend


def __getattr__(name: str) -> Any:
    # torch.version.cuda: asked of the compiled core on first use (import ember stays light).
    if name == "cuda":
        from ember._lib import _C

        value = _C._cuda_toolkit_version() or None
        globals()["cuda"] = value
        return value
    raise AttributeError(f"module 'ember.version' has no attribute '{name}'")
