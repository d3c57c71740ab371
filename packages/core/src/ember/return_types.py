"""``torch.return_types``: the named-tuple (structseq) types of ops with several results, e.g.
``ember.max(x, 0)`` returns a ``return_types.max`` with fields ``values`` and ``indices``.

The types are made by the compiled core on first use (one per name, shared with the ops), so
``isinstance(ember.sort(x), ember.return_types.sort)`` holds.
"""

from __future__ import annotations

from typing import Any

from ember._lib import _C

# name -> field names, as PyTorch 2.13's torch.return_types; each but histogramdd also has a
# `<name>_out` twin (what the out= form returns).
_FIELDS: dict[str, tuple[str, ...]] = {
    "aminmax": ("min", "max"), "cummax": ("values", "indices"), "cummin": ("values", "indices"),
    "frexp": ("mantissa", "exponent"), "geqrf": ("a", "tau"), "histogram": ("hist", "bin_edges"),
    "histogramdd": ("hist", "bin_edges"), "kthvalue": ("values", "indices"), "linalg_cholesky_ex": ("L", "info"),
    "linalg_eig": ("eigenvalues", "eigenvectors"), "linalg_eigh": ("eigenvalues", "eigenvectors"),
    "linalg_inv_ex": ("inverse", "info"), "linalg_ldl_factor": ("LD", "pivots"),
    "linalg_ldl_factor_ex": ("LD", "pivots", "info"),
    "linalg_lstsq": ("solution", "residuals", "rank", "singular_values"), "linalg_lu": ("P", "L", "U"),
    "linalg_lu_factor": ("LU", "pivots"), "linalg_lu_factor_ex": ("LU", "pivots", "info"), "linalg_qr": ("Q", "R"),
    "linalg_slogdet": ("sign", "logabsdet"), "linalg_solve_ex": ("result", "info"), "linalg_svd": ("U", "S", "Vh"),
    "lu_unpack": ("P", "L", "U"), "max": ("values", "indices"), "median": ("values", "indices"),
    "min": ("values", "indices"), "mode": ("values", "indices"), "nanmedian": ("values", "indices"),
    "qr": ("Q", "R"), "slogdet": ("sign", "logabsdet"), "sort": ("values", "indices"), "svd": ("U", "S", "V"),
    "topk": ("values", "indices"), "triangular_solve": ("solution", "cloned_coefficient"),
}

__all__ = sorted([*_FIELDS, *(f"{n}_out" for n in _FIELDS if n != "histogramdd")])


def _fields(name: str) -> tuple[str, ...] | None:
    return _FIELDS.get(name[:-4] if name.endswith("_out") else name) if name in __all__ else None


def __getattr__(name: str) -> Any:
    fields = _fields(name)
    if fields is None:
        raise AttributeError(f"module 'ember.return_types' has no attribute '{name}'")
    cls = _C._return_type(name, list(fields))
    globals()[name] = cls
    return cls


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
