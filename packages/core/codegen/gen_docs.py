"""Docstrings and introspectable signatures for the generated bindings.

Each op's prose lives in docs_ops/<area>.yaml beside ops.yaml, keyed by its Python name
(``add``, ``linalg.inv``); this module turns it, with the schema, into the docstring of the
function and its Tensor methods. The docstring starts with CPython's text-signature block
(``add(input, other, *, alpha=1, out=None)\\n--\\n\\n``), so ``inspect.signature`` and
``help()`` work on the compiled functions at no cost per call.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from cpp_types import py_type
from schema import Op, Param, Schema

# Every key a docs_ops entry may have; any other is an error (as schema.KNOWN_KEYS for ops).
DOC_KEYS = {"summary", "args", "returns", "example", "signature"}
# The hand-written bindings' docs (csrc/python: random, unique, dtype helpers, the types...):
# keyed by the ember name or ``Tensor.<method>``, each with its text signature, as no schema
# gives one. The bindings take them at module set-up (document_bindings, binding_doc).
BINDINGS_FILE = "bindings.yaml"

# Argument descriptions shared by many ops (an entry's own `args` wins).
COMMON_ARGS = {
    "out": "a tensor to write the result into; it is resized if it has the wrong shape.",
    "dtype": "the dtype of the result; by default the usual type promotion decides.",
    "device": "the device the result lives on (ember computes on the CPU).",
    "layout": "must be ``ember.strided``, the only layout ember has.",
    "requires_grad": "if True, autograd records operations on the result.",
    "pin_memory": "accepted for compatibility; must be False on a CPU-only build.",
    "keepdim": "if True, the reduced dimensions stay in the result with size 1.",
    "memory_format": "the memory layout the result is allocated with.",
    "generator": "the random number generator to draw from (the default one if None).",
    "alpha": "a multiplier applied to ``other`` before it is combined with ``input``.",
}


@dataclass
class OpDoc:
    summary: str
    args: dict[str, str] = field(default_factory=dict)
    returns: str | None = None
    example: str | None = None
    signature: str | None = None  # text signature where the overloads cannot be merged


def load_docs(docs_dir: Path, ops: list[Op]) -> dict[str, OpDoc]:
    """Read docs_ops/*.yaml; unknown keys and names that are no op are errors."""
    known = {py_path(op) for op in ops}
    docs: dict[str, OpDoc] = {}
    for f in sorted(docs_dir.glob("*.yaml")):
        if f.name == BINDINGS_FILE:
            continue
        for name, e in (yaml.safe_load(f.read_text()) or {}).items():
            where = f"{f.name}: {name}"
            if name not in known:
                raise ValueError(f"{where}: no op of that name in ops.yaml")
            if name in docs:
                raise ValueError(f"{where}: documented twice")
            docs[name] = _entry(where, e)
    return docs


def _entry(where: str, e: dict) -> OpDoc:
    unknown = sorted(set(e) - DOC_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown}; known: {sorted(DOC_KEYS)}")
    if not str(e.get("summary", "")).strip():
        raise ValueError(f"{where}: `summary` is required")
    return OpDoc(**{k: (v.strip() if isinstance(v, str) else v) for k, v in e.items()})


def load_binding_docs(docs_dir: Path) -> dict[str, OpDoc]:
    """docs_ops/bindings.yaml; a ``signature`` (no schema gives one) is required of every
    function and method, and optional for a type that cannot be called (``dtype``)."""
    docs = {}
    for name, e in (yaml.safe_load((docs_dir / BINDINGS_FILE).read_text()) or {}).items():
        doc = _entry(f"{BINDINGS_FILE}: {name}", e)
        is_type = name.rsplit(".", 1)[-1][:1].isupper() or name in UNCALLABLE_TYPES
        if (doc.signature or not is_type) and not str(doc.signature or "").startswith("("):
            raise ValueError(f"{BINDINGS_FILE}: {name}: `signature` is required, as '(param, ...)'")
        docs[name] = doc
    return docs


UNCALLABLE_TYPES = {"dtype", "layout", "memory_format"}  # their instances are ember's constants


def py_path(op: Op) -> str:
    """The op's public name below ``ember``: ``add``, ``linalg.inv``, ``_nn.threshold_backward``."""
    return f"{op.namespace}.{op.schema.name}" if op.namespace else op.schema.name


# ---------------------------------------------------------------- signatures

# Schema defaults that are not Python literals, spelled as the literal a caller would pass.
_DEFAULTS = {"[]": "()", "[0,1]": "(0, 1)"}


def _default(d: str) -> str:
    return _DEFAULTS.get(d, d)


def _params(s: Schema, with_out: bool) -> list[Param]:
    ps = list(s.params)
    if with_out:
        ps.append(Param("Tensor[]?" if len(s.returns) > 1 else "Tensor?", "out", "None", True))
    return ps


def merged_params(schemas: list[Schema], with_out: list[bool]) -> list[tuple[str, str | None, bool]] | None:
    """One signature (name, default, kw_only) accepting every overload's calls, or None.

    Positional parameters must agree by position; one missing from some overload becomes
    optional. None when two overloads name a position differently (max(input, dim | other))."""
    pos: list[str] = []
    kw: list[str] = []
    defaults: dict[str, list[str | None]] = {}
    seen_in: dict[str, int] = {}
    for s, wo in zip(schemas, with_out):
        i = 0
        for p in _params(s, wo):
            if not p.kw_only:
                if i < len(pos) and pos[i] != p.name:
                    return None
                if i == len(pos):
                    pos.append(p.name)
                i += 1
            elif p.name not in kw:
                kw.append(p.name)
            defaults.setdefault(p.name, []).append(p.default)
            seen_in[p.name] = seen_in.get(p.name, 0) + 1
    kw = [k for k in kw if k not in pos]
    out: list[tuple[str, str | None, bool]] = []
    for name in pos + kw:
        ds = defaults[name]
        given = [d for d in ds if d is not None]
        if len(given) == len(ds) and seen_in[name] == len(schemas):
            default = given[0] if len(set(given)) == 1 else "None"
        elif seen_in[name] < len(schemas) or given:
            default = given[0] if given and len(set(given)) == 1 else "None"
        else:
            default = None
        out.append((name, default, name in kw))
    # A required positional parameter after an optional one is not a Python signature.
    seen_default = False
    for _name, default, is_kw in out:
        if is_kw:
            continue
        if default is None and seen_default:
            return None
        seen_default |= default is not None
    return out


def is_varargs(s: Schema, method: bool) -> bool:
    """The binding takes a lone positional int[] as varargs too: zeros(2, 3), x.view(2, 3)."""
    pos = [p for p in s.params[1 if method else 0:] if not p.kw_only]
    return len(pos) == 1 and pos[0].base == "int[]"


def text_signature(pyname: str, ops: list[Op], kind: str, doc: OpDoc | None) -> str:
    """CPython's ``name(params)`` text signature for a binding (``$self`` for methods)."""
    method = kind != "function"
    if doc is not None and doc.signature:
        inner = doc.signature.strip().removeprefix("(").removesuffix(")")
        if method:  # the override is the function's: drop its first parameter
            inner = ", ".join(inner.split(", ")[1:])
    else:
        with_out = [kind == "function" and "out" in op.variants for op in ops]
        merged = merged_params([op.schema for op in ops], with_out)
        if merged is None:
            inner = "*args, **kwargs"
        else:
            if method:
                merged = merged[1:]  # self
            varargs = len(ops) == 1 and is_varargs(ops[0].schema, method)
            parts, star = [], False
            for name, default, is_kw in merged:
                if varargs and not is_kw:
                    parts.append(f"*{name}")
                    star = True
                    continue
                if is_kw and not star:
                    parts.append("*")
                    star = True
                parts.append(name if default is None else f"{name}={_default(default)}")
            inner = ", ".join(parts)
    if method:
        inner = "$self" + (", " + inner if inner else "")
    return f"{pyname}({inner})"


# ---------------------------------------------------------------- docstrings

_RET = {"Tensor": "Tensor", "bool": "bool", "Tensor[]": "list[Tensor]", "Scalar": "Number"}


def typed_line(name: str, s: Schema, with_out: bool, skip_self: bool) -> str:
    parts, kw = [], False
    for i, p in enumerate(_params(s, with_out)):
        if skip_self and i == 0:
            continue
        if p.kw_only and not kw:
            parts.append("*")
            kw = True
        t = "Tensor | None" if p.name == "out" and p.type == "Tensor?" else py_type(p)
        parts.append(f"{p.name}: {t}" + (f" = {_default(p.default)}" if p.default is not None else ""))
    rets = [_RET.get(r.type, r.type) for r in s.returns]
    ret = rets[0] if len(rets) == 1 else f"tuple[{', '.join(rets)}]"
    return f"{name}({', '.join(parts)}) -> {ret}"


def _arg_lines(ops: list[Op], doc: OpDoc | None, with_out: bool, skip_self: bool) -> list[str]:
    seen: dict[str, str] = {}
    for op in ops:
        for i, p in enumerate(_params(op.schema, with_out and "out" in op.variants)):
            if skip_self and i == 0:
                continue
            t = "Tensor" if p.name == "out" else py_type(p)
            prev = seen.get(p.name)
            seen[p.name] = t if prev in (None, t) else f"{prev} or {t}"
    lines = []
    for name, t in seen.items():
        text = (doc.args.get(name) if doc else None) or COMMON_ARGS.get(name)
        head = f"{name} ({t})"
        lines.append(_fill(f"{head}: {text}", "        ", "    ") if text else "    " + head)
    return lines


def _fill(text: str, indent: str, first: str = "") -> str:
    return textwrap.fill(" ".join(text.split()), 88, initial_indent=first, subsequent_indent=indent,
                         break_on_hyphens=False)


def docstring(pyname: str, ops: list[Op], kind: str, doc: OpDoc | None) -> str:
    """The full __doc__ text: text signature block, then the rendered documentation."""
    method = kind != "function"
    shown = f"Tensor.{pyname}" if method else pyname
    with_out = kind == "function"
    lines = [text_signature(pyname, ops, kind, doc), "--", ""]
    lines += [typed_line(shown, op.schema, with_out and "out" in op.variants, method) for op in ops]
    if doc is None:
        return "\n".join(lines)
    base = pyname.rstrip("_") if kind == "inplace" else pyname
    lines.append("")
    if kind == "inplace":
        lines += [f"In-place form of ``Tensor.{base}``: the result is written into this tensor,"
                  " which is returned.", ""]
    elif method and "function" in ops[0].variants:
        lines += [f"Method form of ``ember.{base}``: ``x.{base}(...)`` is ``ember.{base}(x, ...)``.", ""]
    # Examples show on the function, or on the method of a method-only op (x.view).
    example = kind == "function" or (kind == "method" and "function" not in ops[0].variants)
    return "\n".join(lines + _body(doc, _arg_lines(ops, doc, with_out, method), example))


def _body(doc: OpDoc, args: list[str], example: bool) -> list[str]:
    """Summary, Args, Returns and Example sections."""
    lines = [_fill(doc.summary, "")]
    if args:
        lines += ["", "Args:", *args]
    if doc.returns:
        lines += ["", "Returns:", _fill(doc.returns, "    ", "    ")]
    if doc.example and example:
        lines += ["", "Example::", ""] + [f"    {ln}" if ln else "" for ln in doc.example.splitlines()]
    return lines


def binding_docstring(key: str, doc: OpDoc) -> str:
    """The __doc__ of a hand-written binding: its text-signature block, then the prose. A method
    (``Tensor.x``) gets ``$self`` first; a type's signature is its constructor's."""
    name = key.rsplit(".", 1)[-1]
    args = [_fill(f"{n}: {t}", "        ", "    ") for n, t in doc.args.items()]
    if not doc.signature:
        return "\n".join(_body(doc, args, True))
    inner = doc.signature.strip().removeprefix("(").removesuffix(")")
    if key.startswith("Tensor."):
        inner = "$self" + (", " + inner if inner else "")
    return "\n".join([f"{name}({inner})", "--", "", *_body(doc, args, True)])


def c_string(text: str) -> str:
    """``text`` as a C++ string literal, one source line per docstring line."""
    esc = text.replace("\\", "\\\\").replace('"', '\\"')
    parts = esc.split("\n")
    return "\n  ".join(f'"{ln}\\n"' for ln in parts[:-1]) + ("\n  " if len(parts) > 1 else "") + f'"{parts[-1]}"'
