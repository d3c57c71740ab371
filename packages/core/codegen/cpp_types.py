"""Map schema types to C++ parameter types and to binding accessors."""

from __future__ import annotations

import re

from schema import Param, Schema

CPP_TYPE = {
    "Tensor": "const Tensor&",
    "Tensor?": "const Tensor&",  # undefined Tensor stands for None
    "Tensor[]": "const TensorList&",
    "Tensor?[]": "const TensorList&",  # an undefined element stands for None (index_put's indices)
    "Scalar": "const Scalar&",
    "Scalar?": "const std::optional<Scalar>&",
    "int": "int64_t",
    "int?": "std::optional<int64_t>",
    "int[]": "IntArrayRef",
    "int[]?": "std::optional<IntArrayRef>",
    "float": "double",
    "float?": "std::optional<double>",
    "bool": "bool",
    "bool?": "std::optional<bool>",
    "str": "std::string_view",
    "str?": "std::optional<std::string_view>",
    "ScalarType": "ScalarType",
    "ScalarType?": "std::optional<ScalarType>",
    "Device?": "std::optional<Device>",
    "MemoryFormat": "MemoryFormat",
    "MemoryFormat?": "std::optional<MemoryFormat>",
    "Generator?": "Generator*",  # nullptr: the default generator
}

# Accessor on the runtime Signature that converts the parsed PyObject*.
ACCESSOR = {
    "Tensor": "tensor",
    "Tensor?": "opt_tensor",
    "Tensor[]": "tensor_list",
    "Tensor?[]": "tensor_list",
    "Scalar": "scalar",
    "Scalar?": "opt_scalar",
    "int": "int64",
    "int?": "opt_int64",
    "int[]": "int_list",
    "int[]?": "opt_int_list",
    "float": "dbl",
    "float?": "opt_dbl",
    "bool": "boolean",
    "bool?": "opt_boolean",
    "str": "string",
    "str?": "opt_string",
    "ScalarType": "dtype",
    "ScalarType?": "opt_dtype",
    "Device?": "opt_device",
    "MemoryFormat": "memory_format",
    "MemoryFormat?": "opt_memory_format",
    "Generator?": "generator",
}

PY_TYPE = {
    "Tensor": "Tensor",
    "Tensor[]": "Sequence[Tensor]",
    "Tensor?[]": "Sequence[Tensor | None]",
    "Scalar": "Number",
    "int": "int",
    "int[]": "Sequence[int] | int",
    "float": "float",
    "bool": "bool",
    "str": "str",
    "ScalarType": "dtype",
    "Device": "Device",
    "MemoryFormat": "memory_format",
    "Layout": "layout",
    "Generator": "Generator",
}


def norm(p: Param) -> str:
    return p.base + ("?" if p.optional else "")


def cpp_type(p: Param) -> str:
    return CPP_TYPE[norm(p)]


def returns_cpp(s: Schema) -> str:
    rets = s.returns
    if len(rets) == 1:
        return {"Tensor": "Tensor", "bool": "bool", "Tensor[]": "TensorList", "Scalar": "Scalar"}[
            rets[0].type
        ]
    return "std::tuple<" + ", ".join("Tensor" for _ in rets) + ">"


def cpp_default(p: Param) -> str | None:
    """The schema default as a C++ default argument, or None where C++ cannot say it."""
    d, t = p.default, norm(p)
    if d is None:
        return None
    if d == "None":
        return {"Tensor?": "Tensor()", "Generator?": "nullptr"}.get(t, "std::nullopt" if t.endswith("?") else None)
    if t == "bool":
        return {"True": "true", "False": "false"}.get(d)
    if t in ("int", "float"):
        return d
    if t == "Scalar":
        return f"Scalar({d})" if re.search(r"[.e]", d) else f"Scalar(int64_t({d}))"
    if t == "str" and len(d) >= 2 and d[0] in "'\"":
        return '"' + d[1:-1] + '"'
    if t == "int[]" and d == "[]":
        return "{}"
    return None


def cpp_decl(name: str, s: Schema, *, out: bool = False, self_first: bool = False,
             first_default: int | None = None) -> str:
    """The C++ signature; first_default: C++ default arguments from that parameter on (each
    one up to the end must have one, see ops_h_defaults)."""
    params = [f"{cpp_type(p)} {p.name}" for p in s.cpp_params]
    if first_default is not None:
        for i, p in enumerate(s.cpp_params[first_default:], first_default):
            params[i] += f" = {cpp_default(p)}"
    if self_first and params:
        params[0] = params[0].replace(f" {s.cpp_params[0].name}", " self")
    if out:
        if len(s.returns) > 1:
            params += [f"const Tensor& {r.name or f'out{i}'}" for i, r in enumerate(s.returns)]
        else:
            params.append("const Tensor& out")
    return f"{returns_cpp(s)} {name}({', '.join(params)})"


def default_from(s: Schema) -> int:
    """Index of the first parameter of the trailing run that C++ default arguments can give."""
    ps = s.cpp_params
    i = len(ps)
    while i > 0 and cpp_default(ps[i - 1]) is not None:
        i -= 1
    return i


def py_type(p: Param) -> str:
    t = PY_TYPE.get(p.base, "object")
    if p.base == "Tensor" and p.name not in ("input", "self"):
        t = "Tensor | Number"
    return f"{t} | None" if p.optional else t
