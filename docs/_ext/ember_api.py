"""Writes the API reference's per-package pages (docs/api/gen/*.rst) before Sphinx reads them.

Each page is one autosummary table per module whose ``:toctree:`` makes autosummary generate a
page per public name. The names come from the modules themselves (``__all__``, or for ``ember``
every public callable, the same walk as packages/core/tests/test_docstrings.py), so a name added
to a package gets its page on the next build without editing the docs.
"""

from __future__ import annotations

import importlib
import inspect
import types
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # packages/core/tests/test_docstrings_packages.py imports PAGES without Sphinx
    from sphinx.application import Sphinx

# (page, title, distribution, modules on that page)
PAGES = [
    ("core", "ember (tensors and operators)", "ember-core",
     ["ember", "ember.linalg", "ember.fft", "ember.signal.windows", "ember.autograd", "ember.amp", "ember.testing",
      "ember.cuda", "ember.cuda.amp", "ember.cuda.nvtx", "ember.accelerator"]),
    ("tensor", "ember.Tensor", "ember-core", ["ember.Tensor"]),
    ("distributions", "ember.distributions", "ember-core",
     ["ember.distributions", "ember.distributions.constraints"]),
    ("nn", "ember.nn", "ember-nn", ["ember.nn", "ember.nn.functional", "ember.nn.init", "ember.nn.utils",
                                    "ember.nn.attention", "ember.nn.attention.bias",
                                    "ember.nn.attention.flex_attention"]),
    ("optim", "ember.optim", "ember-nn", ["ember.optim", "ember.optim.lr_scheduler"]),
    ("data", "ember.utils.data", "ember-data", ["ember.utils.data"]),
    ("distributed", "ember.distributed", "ember-distributed", ["ember.distributed"]),
    ("profiler", "ember.profiler", "ember-profiler",
     ["ember.profiler", "ember.utils.bottleneck", "ember.utils.tensorboard"]),
    ("benchmark", "ember.utils.benchmark", "ember-benchmark", ["ember.utils.benchmark"]),
    ("cpp_extension", "ember.utils.cpp_extension", "ember-cpp-extension", ["ember.utils.cpp_extension"]),
]


def _ember_names() -> list[str]:
    import ember

    for name in (*ember._LAZY_NAMES, *ember._LEGACY_TYPE_NAMES):  # lazily loaded names join dir()
        getattr(ember, name)
    out = []
    for name in dir(ember):
        v = getattr(ember, name)
        if not name.startswith("_") and callable(v) and not isinstance(v, types.ModuleType) and name != "Tensor":
            out.append(name)
    return out


def _tensor_names() -> list[str]:
    import ember

    out = []
    for name in dir(ember.Tensor):
        if name.startswith("_"):
            continue
        v = inspect.getattr_static(ember.Tensor, name)
        if isinstance(v, (staticmethod, classmethod)):
            v = v.__func__
        if callable(v) or isinstance(v, property) or type(v).__name__ == "getset_descriptor":
            out.append(name)
    return out


def names_of(module: str) -> list[str]:
    if module == "ember":
        return _ember_names()
    if module == "ember.Tensor":
        return _tensor_names()
    mod = importlib.import_module(module)
    names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
    return sorted(n for n in names if _documentable(mod, n))


# Deprecated aliases kept for old scripts; their replacement has the page.
DEPRECATED = {"ember.distributed.reduce_op"}


def _documentable(mod: types.ModuleType, name: str) -> bool:
    """Callables and classes get a page; constants, submodules and deprecated aliases do not."""
    if f"{mod.__name__}.{name}" in DEPRECATED:
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)  # a deprecated alias warns when fetched
        try:
            v = getattr(mod, name)
        except (AttributeError, FutureWarning):
            return False
    return not isinstance(v, types.ModuleType) and (callable(v) or isinstance(v, type))


def _page(title: str, dist: str, modules: list[str], seen: set[int]) -> str:
    lines = [title, "=" * len(title), "",
             f"Installed by the ``{dist}`` distribution (``pip install {dist}``).", ""]
    for module in modules:
        names = sorted(set(names_of(module)), key=str.lower)
        if module != "ember.Tensor":  # a class re-exported by a second module keeps its first page
            mod = importlib.import_module(module)
            names = [n for n in names if not (isinstance(getattr(mod, n), type) and id(getattr(mod, n)) in seen)]
            seen.update(id(getattr(mod, n)) for n in names if isinstance(getattr(mod, n), type))
        if module == "ember.Tensor":
            lines += [".. currentmodule:: ember", "", ".. autoclass:: Tensor", "   :no-members:", "",
                      "Methods and attributes", "----------------------", "",
                      ".. autosummary::", "   :toctree: tensor", ""]
            lines += [f"   Tensor.{n}" for n in names]
        else:
            if len(modules) > 1:
                lines += [module, "-" * len(module), ""]
            lines += [f".. automodule:: {module}", "   :no-members:", "", f".. currentmodule:: {module}", "",
                      ".. autosummary::", f"   :toctree: {module}", ""]
            lines += [f"   {n}" for n in names]
        lines.append("")
    return "\n".join(lines)


def write_pages(app: Sphinx, config: Any) -> None:
    warnings.filterwarnings("ignore", category=FutureWarning, module="ember_api")  # deprecated aliases
    out = Path(app.srcdir) / "api" / "gen"
    out.mkdir(parents=True, exist_ok=True)
    seen: set[int] = set()
    for page, title, dist, modules in PAGES:
        text = _page(title, dist, modules, seen)
        path = out / f"{page}.rst"
        if not path.exists() or path.read_text() != text:  # unchanged files keep Sphinx's cache valid
            path.write_text(text)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", write_pages)
    return {"parallel_read_safe": True}
