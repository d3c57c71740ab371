"""First pass of the CUDA audit behind packages/core/cuda_support.yaml (issue 24).

For every op in ops.yaml it follows the op body's C++ (csrc/ops/**, by function name, so
overloads and same-named helpers merge: an over-approximation) and reports
  - the backend entries it reaches (backend(x).<family>.<entry>, or through a
    `const XKernels& k = backend(x).<family>;` alias),
  - the statements that may read tensor memory on the host (data<>, raw(), item, memcpy,
    a LAPACK call) outside a backend call, which a CUDA tensor must never reach,
and proposes `kernel` (every entry reached is in the CUDA table, no host reads) or
`unsupported`. It is a heuristic: hand-check what it proposes before editing the yaml.

    python tools/cuda_support_audit.py                    # a table: op, proposal, why
    python tools/cuda_support_audit.py --diff             # only where the yaml disagrees
    python tools/cuda_support_audit.py --op nonzero -v    # one op, with the lines it flags
    python tools/cuda_support_audit.py --set index.take   # count more entries as set
    python tools/cuda_support_audit.py --src /tmp/merged/packages/core --diff   # another tree

`--src` reads another checkout (one with pending kernel branches merged, say); its
cuda_support.yaml is what --diff compares with. REVIEWED lists the functions whose host reads
were checked by hand (device branches), OVERRIDES the ops decided by hand.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "packages" / "core"

# A function definition at namespace level: clang-format puts it at column 0.
DEF = re.compile(r"^(?:template\s*<[^>]*>\s*)?(?:static\s+|inline\s+|constexpr\s+)*[\w:<>,\s\*&]+?[\s\*&](\w+)\s*\(",
                 re.M)
BACKEND = re.compile(r"backend\([^;{}]*?\)\s*\.\s*(\w+)(?:\s*\.\s*(\w+))?")
ALIAS = re.compile(r"(?:const\s+)?(?:\w+Kernels(?:<\w+>)?|auto)\s*&\s*(\w+)\s*=\s*backend\([^;]*?\)\s*\.\s*(\w+)")
# Tensor::item() copies a device element to the host first, so it is not listed.
HOST = re.compile(r"\.data<|\.raw\(\)|std::memcpy|memcpy\(|cpu_alloc|lapack")
TRANSFER = re.compile(r"device_from_host|device_to_host|device_to_device")
# A free call (not std::max, x.size(), p->f()): what the call graph follows.
CALL = re.compile(r"(?<![\w.>:])((?:\w+::)*)(\w+)\s*(?:<[^;()]*?>)?\s*\(")


def calls(body: str) -> set[str]:
    return {n for q, n in CALL.findall(body) if not q.startswith(("std::", "c10::"))}
DEVICE_AWARE = re.compile(r"is_cpu\(\)|\.cpu\(|device_to_host|to_host\(")
# Entries reached only for some dtypes, where the table says so (the bf16/packed GEMMs behind
# *_available()) or on an edge path (baddbmm into a self-overlapping out): a CUDA call there
# hits the runtime "no CUDA kernel" error, PyTorch's NotImplementedError naming the op; they
# do not decide the op's status.
DTYPE_LEVEL = {"complex.pointwise", "complex.conj", "complex.from_parts", "complex.angle", "complex.abs",
               "gemm.bf16gemm", "gemm.pack_b", "gemm.packed_gemm", "pool.max2x2_planes", "matrix.scaled_store",
               # reached on the CPU path only: index_search.cpp's device branches go around as_doubles
               "index.to_doubles"}
# Decided by hand where the first pass cannot see it (none at present: complex / polar / angle,
# which need a complex entry for every dtype, have CUDA ones).
OVERRIDES: dict[str, str] = {}
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "static_cast", "reinterpret_cast", "const_cast",
            "EMBER_CHECK", "decltype", "catch", "constexpr", "else", "operator", "noexcept", "alignas"}


# Hand-checked: their host pointers are the transfer's own (a device tensor is never read there).
TRUSTED_FILES = {"csrc/ops/core/device_copy.cpp"}

# Functions whose host pointers were read by hand and found device-safe: a branch on the
# device (a CUDA tensor is copied over, or checked by a backend entry, first), or pointers
# only handed to a kernel. Re-read one when it changes.
REVIEWED = {
    ("csrc/ops/index/index_bounds.cpp", "first_outside"),  # device: backend range check, one value back
    ("csrc/ops/random/random_internal.h", "fill_in_order"),  # the pointer goes to the backend sampler
    ("csrc/ops/shape/shape_reorder.cpp", "flip"),  # pointer arithmetic for strided_gather
    ("csrc/ops/index/index.cpp", "wrapped_dim_index"),  # device branch first
    ("csrc/ops/index/index.cpp", "reduce_identity"),  # a CPU 0-d tensor it makes itself
    ("csrc/ops/index/index_take_put.cpp", "masked_scatter_"),  # device branch: count_true
    ("csrc/ops/index/index_take_put.cpp", "put_"),  # device branch: first_outside
    ("csrc/ops/index/index_advanced.cpp", "make_plan"),  # on_device ? device offsets : host ones
    ("csrc/ops/nn/nn_one_hot.cpp", "nn_one_hot"),  # device branch: min / max come back
    ("csrc/ops/nn/nn_embedding.cpp", "checked_indices"),  # the CPU table's path (the device one is apart)
    ("csrc/ops/random/random.cpp", "bernoulli_"),  # device branch: one flag comes back
    ("csrc/ops/random/random_sample.cpp", "check_std_tensor"),  # device branch: one flag comes back
    ("csrc/ops/nn/nn_norm.cpp", "channel_values"),  # moved to the CPU first
    ("csrc/ops/nn/nn_layer_norm.cpp", "affine_or"),  # moved to the CPU first
    ("csrc/ops/nn/nn_nll_loss.cpp", "class_weights"),  # on_host() first
    ("csrc/ops/nn/nn_nll_loss.cpp", "nn_nll_loss_backward"),  # on_host() first
    ("csrc/ops/nn/nn_attention.cpp", "mask_view"),  # the mask's pointer, for the kernel
    ("csrc/ops/nn/nn_attention.cpp", "nn_sdpa_flash"),  # pointers into the kernel's arguments
    ("csrc/ops/nn/nn_attention.cpp", "nn_sdpa_flash_backward"),
    ("csrc/ops/index/index.cpp", "check_scatter_value"),  # device branch: one element copied over
    ("csrc/ops/index/index.cpp", "index_add_"),  # device branch: first_outside
    ("csrc/ops/index/index.cpp", "index_fill_"),  # a host copy of the index
    ("csrc/ops/index/index.cpp", "take"),  # device branch: first_outside
    ("csrc/ops/index/index_advanced.cpp", "rows_for"),  # host vectors copied to the device
    ("csrc/ops/nn/nn_pool_common.cpp", "plane_scatter"),  # a host copy of the index is checked
    ("csrc/ops/nn/nn_rnn.cpp", "cptr"),  # pointer helpers: the pointers go to the RNN / GEMM entries
    ("csrc/ops/nn/nn_rnn.cpp", "mptr"),
    ("csrc/ops/nn/nn_rnn.cpp", "at_step"),
    ("csrc/ops/nn/nn_rnn.cpp", "hidden_gemm"),
    ("csrc/ops/nn/nn_rnn.cpp", "hidden_grad_gemm"),
    ("csrc/ops/nn/nn_rnn.cpp", "seq_forward"),
    ("csrc/ops/nn/nn_rnn.cpp", "seq_backward"),
    ("csrc/ops/nn/nn_rnn.cpp", "pack_weight"),  # only where gemm.packed_available(): never on CUDA
    ("csrc/ops/index/index_search.cpp", "search_impl"),  # a device result returns through search_on_device first
    ("csrc/ops/index/index_search.cpp", "search_on_device"),  # pointers into the kernel's arguments
    ("csrc/ops/index/index_search.cpp", "bincount"),  # device branch: min / max reduced there
}


def struct_members(backend_h: str, struct: str) -> list[str]:
    """The function-pointer members of one backend.h family, in order."""
    m = re.search(rf"struct {struct} {{(.*?)\n}};", backend_h, re.S)
    body = re.sub(r"//[^\n]*", "", m.group(1)) if m else ""
    return re.findall(r"\(\*(\w+)\)\s*\(", body) + re.findall(r"^\s*(?:LapackKernels<\w+>|MatrixPasses<\w+>)\s+(\w+);",
                                                               body, re.M)


def cuda_table(cuda_dir: Path, backend_h: Path) -> set[str]:
    """The entries kernels/cuda/cuda_backend.cpp sets: `b.fam.entry = x`, `b.fam = {x, y}` (by
    position; an item copied from the raising table, `r.poisson`, stays unset) and
    `fill_x(b.fam)` helpers in kernels/cuda/*.cpp (their `k.entry = x` lines)."""
    text = (cuda_dir / "cuda_backend.cpp").read_text()
    header = backend_h.read_text()
    fams = dict(re.findall(r"^\s+(\w+Kernels) (\w+);", header, re.M))
    struct_of = {v: k for k, v in fams.items()}
    got = {f"{m[0]}.{m[1]}" for m in re.findall(r"\bb\.(\w+)\.(\w+)\s*=", text)}
    for fam, items in re.findall(r"\bb\.(\w+)\s*=\s*\{(.*?)\};", text, re.S):
        names = struct_members(header, struct_of.get(fam, ""))
        for name, item in zip(names, [i.strip() for i in items.split(",")]):
            if item.startswith("cuda::") or "::" in item or "[" in item:
                got.add(f"{fam}.{name}")
    others = "".join(f.read_text() for f in sorted(cuda_dir.glob("*.cpp")))
    for fn, fam in re.findall(r"(?:cuda::)?(fill_\w+)\(b\.(\w+)\)", text):
        m = re.search(rf"void {fn}\(\w+&\s*(\w+)\)\s*{{(.*?)\n}}", others, re.S)
        if m:
            got |= {f"{fam}.{e}" for e in re.findall(rf"\b{m.group(1)}\.(\w+)\s*=", m.group(2))}
    if "fill_pointwise(b.pointwise)" in text:
        got.add("pointwise.*")
    return got


def is_set_any(fam: str, table: set[str]) -> bool:
    return any(e.split(".")[0] == fam for e in table)


# Backend members that are helpers over entries (ComplexKernels::gemm calls cgemm / zgemm): the
# float entry stands for the pair.
HELPERS = {"complex.gemm": "complex.cgemm", "rnn.cell_rows": "rnn.cell_rows_f", "rnn.lstm_seq": "rnn.lstm_seq_f",
           "attention.flash_forward": "attention.flash_forward_f",
           "attention.flash_backward": "attention.flash_backward_f", "linalg.lu_solve": "linalg.lu_solve_f",
           "linalg.lapack": "linalg.lapack_f", "matrix.passes": "matrix.passes_f"}


def is_set(entry: str, table: set[str]) -> bool:
    entry = HELPERS.get(entry, entry)
    fam = entry.split(".")[0]
    if entry == f"{fam}.*":  # the family handed on whole: the callee picks its entries
        return is_set_any(fam, table)
    return entry in table or f"{fam}.*" in table


def functions(src: Path) -> dict[str, list[tuple[str, int, str]]]:
    """name -> [(file, line, body)] for every function defined at column 0 under csrc/ops and
    csrc/autograd (the composites: foreach, real/imag, the sequence RNNs)."""
    res: dict[str, list[tuple[str, int, str]]] = {}
    for f in sorted([*(src / "csrc" / "ops").rglob("*"), *(src / "csrc" / "autograd").rglob("*")]):
        if f.suffix not in (".cpp", ".h"):
            continue
        text = f.read_text()
        for m in DEF.finditer(text):
            name = m.group(1)
            if name in KEYWORDS:
                continue
            # the body: from the first `{` after the parameter list to its match (a `;` first: a declaration)
            i, depth = m.end(), 1
            while i < len(text) and depth:
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
            j = i
            while j < len(text) and text[j] not in "{;":
                j += 1
            if j >= len(text) or text[j] == ";":
                continue
            k, depth = j + 1, 1
            while k < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[k], 0)
                k += 1
            line = text.count("\n", 0, m.start()) + 1
            res.setdefault(name, []).append((str(f.relative_to(src)), line, text[j:k]))
    return res


def strip_comments(body: str) -> str:
    body = re.sub(r"//[^\n]*", "", body)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', body)


def analyse(body: str) -> tuple[set[str], list[str], set[str], bool]:
    """(backend entries, host-read statements, callees, device-aware) of one function body."""
    body = strip_comments(body)
    entries = {f"{a}.{b}" if b else f"{a}.?" for a, b in BACKEND.findall(body)}
    aliases = dict(ALIAS.findall(body))
    for var, fam in aliases.items():
        entries.discard(f"{fam}.?")
        used = {f"{fam}.{e}" for e in re.findall(rf"\b{var}\s*\.\s*(\w+)", body)}
        entries |= used or {f"{fam}.*"}  # handed on whole (EMBER_KERNEL(k, gelu)): any entry of it
        if re.search(rf"\b{var}\s*\(", body):  # GemmKernels' operator()
            entries.add(f"{fam}.sgemm")
    entries = {e for e in entries if not e.endswith(".?")} or entries
    host = []
    for stmt in re.split(r"[;{}]", body):
        if not HOST.search(stmt):
            continue
        if "backend(" in stmt or TRANSFER.search(stmt) or any(re.search(rf"\b{v}\s*[.(]", stmt) for v in aliases):
            continue  # pointers handed to a backend entry: the kernel reads them
        host.append(" ".join(stmt.split())[:140])
    callees = calls(body) - KEYWORDS
    return entries, host, callees, bool(DEVICE_AWARE.search(body))


def load_ops(core: Path):
    sys.path.insert(0, str(core / "codegen"))
    from schema import load_ops as load  # noqa: PLC0415

    doc = yaml.safe_load((core / "ops.yaml").read_text())
    for extra in sorted((core / "ops").glob("*.yaml")):
        more = yaml.safe_load(extra.read_text()) or {}
        doc["ops"].extend(more.get("ops") or [])
    return load(doc)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", type=Path, default=CORE, help="packages/core of the tree to audit")
    ap.add_argument("--set", nargs="*", default=[], help="more entries to count as set (fam.entry or fam.*)")
    ap.add_argument("--op", help="only this op")
    ap.add_argument("--diff", action="store_true", help="only ops whose proposal differs from cuda_support.yaml")
    ap.add_argument("--why", help="print the call chain by which each op reaches this entry or function")
    ap.add_argument("--yaml", action="store_true", help="print the proposals as cuda_support.yaml lines")
    ap.add_argument("-v", action="store_true", help="print the host-read statements and the entries")
    a = ap.parse_args()
    table = cuda_table(a.src / "csrc" / "kernels" / "cuda", a.src / "csrc" / "kernels" / "backend.h") | set(a.set)
    fns = functions(a.src)
    # Nodes are (file, name): a callee defined in the caller's own file is that one (a static
    # helper); otherwise every definition of the name (overloads merge: an over-approximation).
    info, where = {}, {}
    for name, defs in fns.items():
        for f, line, body in defs:
            e, h, c, d = analyse(body)
            node = (f, name)
            old = info.get(node, (set(), [], set(), False))
            h = [] if f in TRUSTED_FILES or (f, name) in REVIEWED else [f"{f}:{line} {name}(): {s}" for s in h]
            info[node] = (old[0] | e, old[1] + h, old[2] | c, old[3] or d)
            where.setdefault(name, set()).add(f)

    # Another file's function is reachable only if a header declares it (ops.h: every op; the
    # ops/**/*.h helpers); a same-named static helper of another .cpp is not.
    public = {n for op in load_ops(a.src) for base in [op.cpp or {"std": "std_dev"}.get(op.schema.name,
              op.schema.name)] for n in (base, base + "_", base + "_out")}
    for h in [*(a.src / "csrc" / "ops").rglob("*.h"), *(a.src / "csrc" / "autograd").rglob("*.h")]:
        public |= calls(strip_comments(h.read_text()))

    # The generated pointwise ops (ops_pointwise.cpp, not under csrc/ops): a call reaches their kernel.
    for op in load_ops(a.src):
        if op.family == "pointwise":
            base = op.cpp or op.schema.name
            for n in (base, base + "_", base + "_out"):
                info.setdefault(("<generated>", n), ({f"pointwise.{op.kernel}"}, [], set(), False))
                where.setdefault(n, set()).add("<generated>")

    def resolve(f: str, callee: str) -> list[tuple[str, str]]:
        files = where.get(callee, set())
        if f in files:
            return [(f, callee)]
        return [(g, callee) for g in sorted(files)] if callee in public else []
    declared = {}
    ypath = a.src / "cuda_support.yaml"
    if ypath.exists():
        declared = yaml.safe_load(ypath.read_text()) or {}
    props: dict[str, list[tuple[str, str, set[str], list[str]]]] = {}  # name -> [(full name, proposal, ...)]
    for op in load_ops(a.src):
        name = op.schema.name
        if a.op and name != a.op:
            continue
        cpp = op.cpp or {"std": "std_dev"}.get(name, name)
        start: list[tuple[str, str]] = []
        if op.family == "pointwise":
            entries, host, aware = {f"pointwise.{op.kernel}"}, [], False
        else:
            entries, host, aware = set(), [], False
            start = [n for fn in (cpp, cpp + "_", cpp + "_out") for n in resolve("", fn)]
            parent = {n: None for n in start}
            queue = list(start)
            while queue:
                node = queue.pop(0)
                e, h, c, d = info[node]
                entries |= e - DTYPE_LEVEL
                host += h
                aware = aware or d
                if a.why and a.why in e | {node[1]}:
                    chain = [node]
                    while parent[chain[-1]]:
                        chain.append(parent[chain[-1]])
                    print(f"{op.schema.full_name}: {' <- '.join(f'{n[1]} ({n[0]})' for n in chain)}")
                for callee in sorted(c):
                    for nxt in resolve(node[0], callee):
                        if nxt not in parent:
                            parent[nxt] = node
                            queue.append(nxt)
        missing = sorted(e for e in entries if not is_set(e, table))
        if op.family != "pointwise" and not start:
            prop = "unsupported: no body found under csrc/ops or csrc/autograd (read it by hand)"
        elif missing:
            prop = f"unsupported: reaches {', '.join(missing)} (no CUDA entry)"
        elif host:
            prop = f"unsupported: {len(host)} host read(s){' (device-aware)' if aware else ''}"
        else:
            prop = "kernel"
        if name in OVERRIDES:
            prop = f"{OVERRIDES[name]}: decided by hand (OVERRIDES)"
        props.setdefault(name, []).append((op.schema.full_name, prop, entries, host))
    for name, rows in props.items():
        # one entry per name where its overloads agree, else one per overload
        if len({r[1].split(":")[0] for r in rows}) == 1:
            rows = [(name, rows[0][1], set().union(*(r[2] for r in rows)), [h for r in rows for h in r[3]])]
        for key, prop, entries, host in rows:
            mine = declared.get(key, declared.get(key.split(".")[0]))
            mine_kind = None if mine is None else ("kernel" if "kernel" in mine else "unsupported")
            if a.diff and mine_kind == prop.split(":")[0]:
                continue
            if a.yaml:
                fams = sorted({e.split(".")[0] for e in entries})
                print(f"{key}: {{kernel: [{', '.join(fams)}]}}" if prop == "kernel" else f"{key}: {{{prop}}}")
                continue
            print(f"{key:40s} {prop}   [{', '.join(sorted(entries))}]" + (f"  yaml: {mine}" if a.diff else ""))
            if a.v:
                for s in host:
                    print("      host:", s)

if __name__ == "__main__":
    main()
