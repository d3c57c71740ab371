"""cuda_support.yaml: every op's CUDA status, read by gen.py (issue 24).

Each key is an op's schema name as ops.yaml spells it (``mm``, ``eigvals``), or
``name.overload`` for one overload where the overloads differ; the value is
``{kernel: [families]}`` (the body reaches only backend entries the CUDA table sets and
reads no tensor memory on the host), ``{host: reason}`` (the op body copies device tensors
to the CPU, runs there and copies its results back: ops/linalg/host_lapack.h) or
``{unsupported: reason}``. The generated binding of an unsupported op raises PyTorch's
NotImplementedError when any tensor argument is on a CUDA device, before the op body runs;
a host op's refuses meta tensors alone (their memory is nowhere to copy). A missing or
unknown entry fails the build, so a new op has to declare its status
(tools/cuda_support_audit.py proposes one).
"""

from __future__ import annotations

from dataclasses import dataclass

# PyTorch's operator name: the namespaced functions are aten::linalg_*, aten::special_*, ...
_ATEN_PREFIX = {"linalg", "special", "fft"}


@dataclass(frozen=True)
class CudaStatus:
    kernel: bool
    reason: str = ""  # why not, for an unsupported op; how, for a host one
    families: tuple[str, ...] = ()
    host: bool = False  # runs on a GPU's tensors through the host (no kernel, no meta)


def parse_entry(key: str, value: object) -> CudaStatus:
    if value == "kernel":
        return CudaStatus(True)
    if isinstance(value, dict) and len(value) == 1:
        ((kind, arg),) = value.items()
        if kind == "kernel" and (arg is None or isinstance(arg, list)):
            return CudaStatus(True, families=tuple(arg or ()))
        if kind in ("unsupported", "host") and isinstance(arg, str) and arg.strip():
            return CudaStatus(False, reason=arg.strip(), host=kind == "host")
    raise SystemExit(f"cuda_support.yaml: {key}: expected `kernel`, `{{kernel: [families]}}`, `{{host: reason}}` "
                     f"or `{{unsupported: reason}}`, got {value!r}")


def load_cuda_support(doc: dict | None, ops: list) -> dict[str, CudaStatus]:
    """Each op's status by its full schema name (name.overload); SystemExit naming every op
    without an entry and every entry naming no op."""
    doc = doc or {}
    entries = {str(k): parse_entry(str(k), v) for k, v in doc.items()}
    names = {op.schema.name for op in ops} | {op.schema.full_name for op in ops}
    unknown = sorted(k for k in entries if k not in names)
    res, missing = {}, []
    for op in ops:
        s = op.schema
        status = entries.get(s.full_name) or entries.get(s.name)
        if status is None:
            missing.append(s.full_name)
        else:
            res[s.full_name] = status
    problems = []
    if missing:
        problems.append("no CUDA status for " + ", ".join(sorted(set(missing))) +
                        " (add `name: {kernel: [families]}` or `name: {unsupported: reason}`; "
                        "tools/cuda_support_audit.py proposes one)")
    if unknown:
        problems.append("entries for ops that do not exist: " + ", ".join(unknown))
    if problems:
        raise SystemExit("cuda_support.yaml: " + "; ".join(problems))
    return res


def aten_name(op, kind: str = "function") -> str:
    """PyTorch's operator name for the error text: aten::linalg_eigvals, aten::add_.Tensor."""
    s = op.schema
    name = f"{op.namespace}_{s.name}" if op.namespace in _ATEN_PREFIX else s.name
    if kind == "inplace":
        name += "_"
    return f"aten::{name}" + (f".{s.overload}" if s.overload else "")
