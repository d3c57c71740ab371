"""Parse PyTorch-style op schemas ("name.overload(args) -> returns") from ops.yaml."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Binding-only parameters: handled by the generated Python binding, never
# passed to the C++ op (the binding applies requires_grad, checks layout).
BINDING_ONLY = {"layout", "requires_grad", "pin_memory"}


@dataclass
class Param:
    type: str  # schema type, e.g. "Tensor?", "int[1]?", "Scalar"
    name: str
    default: str | None = None
    kw_only: bool = False

    @property
    def optional(self) -> bool:
        return self.type.endswith("?")

    @property
    def base(self) -> str:
        # SymInt (PyTorch's symbolic int) is an int in C++; the runtime parser sees the name.
        t = self.type.rstrip("?").replace("SymInt", "int")
        return re.sub(r"\[\d*\]", "[]", t)


@dataclass
class Return:
    type: str
    name: str | None = None


@dataclass
class Schema:
    name: str
    overload: str
    params: list[Param]
    returns: list[Return]
    text: str = ""

    @property
    def cpp_params(self) -> list[Param]:
        return [p for p in self.params if p.name not in BINDING_ONLY]

    @property
    def full_name(self) -> str:
        return f"{self.name}.{self.overload}" if self.overload else self.name


@dataclass
class Op:
    schema: Schema
    family: str
    kernel: str | None
    rule: str
    variants: list[str]
    wrap: bool
    aliases: list[str]
    # formulas, "none": not differentiable, "composite": differentiable through its body,
    # "overwritten": in-place, self's old values no longer matter (a node sending no gradient)
    grad: dict | str = field(default_factory=dict)
    namespace: str | None = None
    numbers: list[str] = field(default_factory=list)  # Tensor params also taking numbers
    cpp: str | None = None  # C++ name when the schema name would clash
    out_dtype: str = "castable"  # out= dtype rule: castable | exact | any
    int_divisor: str | None = None  # param that must hold no zeros for integer division
    bool_error: str | None = None  # RuntimeError message for bool input
    checks: list = field(default_factory=list)  # [C++ condition, RuntimeError message] before the iterator
    # [C++ condition on `it`, the built iterator, message]: after the iterator's own checks (its
    # overlap, shape and out= cast errors), before the kernel -- aten's kernel-time checks (its dtype dispatch)
    kernel_checks: list = field(default_factory=list)
    grad_name: str | None = None  # Node class name when PyTorch's differs from the default
    tensor_varargs: bool = False  # f(a, b) is also accepted for f([a, b]) (meshgrid, broadcast_tensors)
    # "aten": PyTorch has this op only as torch.ops.aten.<name>, whose schema matcher converts
    # the arguments (and raises RuntimeError on a mismatch); None: its Python arg parser
    binding: str | None = None
    # per output of a multi-output op, as derivatives.yaml's: False ones never get a grad_fn
    output_differentiability: list[bool] | None = None
    # aten's name in "<name> does not support automatic differentiation for outputs with complex dtype."
    # (an op whose derivative PyTorch has not enabled for complex results)
    complex_autograd: str | None = None
    complex_autograd_when: str | None = None  # C++ condition on the arguments: refuse only then


def _split_args(s: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse_schema(text: str) -> Schema:
    m = re.fullmatch(r"\s*([\w.]+)\((.*)\)\s*->\s*(.+?)\s*", text)
    if not m:
        raise ValueError(f"bad schema: {text}")
    full, args, rets = m.groups()
    name, _, overload = full.partition(".")
    params: list[Param] = []
    kw = False
    for a in _split_args(args):
        if a == "*":
            kw = True
            continue
        decl, _, default = a.partition("=")
        typ, pname = decl.rsplit(None, 1)
        params.append(Param(typ.strip(), pname.strip(), default.strip() or None, kw))
    rets = rets.strip()
    returns: list[Return] = []
    if rets.startswith("("):
        for r in _split_args(rets[1:-1]):
            bits = r.split()
            returns.append(Return(bits[0], bits[1] if len(bits) > 1 else None))
    else:
        returns.append(Return(rets))
    return Schema(name, overload, params, returns, text)


DEFAULT_VARIANTS = ["function", "method", "inplace", "out"]


# Every key an ops.yaml entry may have (the fields of Op, named as in the yaml).
KNOWN_KEYS = {"func", "family", "kernel", "rule", "variants", "wrap", "aliases", "grad",
              "namespace", "numbers", "cpp", "out_dtype", "int_divisor", "bool_error", "checks",
              "kernel_checks", "grad_name", "tensor_varargs", "binding", "output_differentiability",
              "complex_autograd", "complex_autograd_when"}


def load_ops(doc: dict) -> list[Op]:
    ops = []
    for e in doc["ops"]:
        unknown = sorted(set(e) - KNOWN_KEYS)
        if unknown:  # a misspelt or stale key would otherwise be silently ignored
            raise ValueError(f"ops.yaml: {e.get('func', e)!r}: unknown key(s) {unknown}; "
                             f"known: {sorted(KNOWN_KEYS)}")
        schema = parse_schema(e["func"])
        family = e.get("family", "pointwise")
        ops.append(
            Op(
                schema=schema,
                family=family,
                kernel=e.get("kernel"),
                rule=e.get("rule", "promote"),
                variants=e.get("variants", DEFAULT_VARIANTS),
                wrap=e.get("wrap", False),
                aliases=e.get("aliases", []),
                grad=e.get("grad", {}),
                namespace=e.get("namespace"),
                numbers=e.get("numbers", []),
                cpp=e.get("cpp"),
                out_dtype=e.get("out_dtype", "castable"),
                int_divisor=e.get("int_divisor"),
                bool_error=e.get("bool_error"),
                checks=e.get("checks", []),
                kernel_checks=e.get("kernel_checks", []),
                grad_name=e.get("grad_name"),
                tensor_varargs=e.get("tensor_varargs", False),
                binding=e.get("binding"),
                output_differentiability=e.get("output_differentiability"),
                complex_autograd=e.get("complex_autograd"),
                complex_autograd_when=e.get("complex_autograd_when"),
            )
        )
    return ops
