"""Map schema types to C++ parameter types and to binding accessors."""

from __future__ import annotations

from schema import Param, Schema

CPP_TYPE = {
    "Tensor": "const Tensor&",
    "Tensor?": "const Tensor&",  # undefined Tensor stands for None
    "Tensor[]": "const TensorList&",
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
}

# Accessor on the runtime Signature that converts the parsed PyObject*.
ACCESSOR = {
    "Tensor": "tensor",
    "Tensor?": "opt_tensor",
    "Tensor[]": "tensor_list",
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
}

PY_TYPE = {
    "Tensor": "Tensor",
    "Tensor[]": "Sequence[Tensor]",
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


def cpp_decl(name: str, s: Schema, *, out: bool = False, self_first: bool = False) -> str:
    params = [f"{cpp_type(p)} {p.name}" for p in s.cpp_params]
    if self_first and params:
        params[0] = params[0].replace(f" {s.cpp_params[0].name}", " self")
    if out:
        if len(s.returns) > 1:
            params += [f"const Tensor& {r.name or f'out{i}'}" for i, r in enumerate(s.returns)]
        else:
            params.append("const Tensor& out")
    return f"{returns_cpp(s)} {name}({', '.join(params)})"


def py_type(p: Param) -> str:
    t = PY_TYPE.get(p.base, "object")
    if p.base == "Tensor" and p.name not in ("input", "self"):
        t = "Tensor | Number"
    return f"{t} | None" if p.optional else t
