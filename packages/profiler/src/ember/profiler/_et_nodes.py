"""Execution trace nodes: the core's raw op records -> Chakra execution-trace node dicts.

Each node is ``{"id", "name", "ctrl_deps", "inputs", "outputs", "attrs"}`` as torch writes them
(schema ``1.1.1-chakra.0.0.4``). Ids come from one counter shared by nodes, tensors and storages,
handed out in time order: a node's id and its input tensors' ids when it opens, its output
tensors' ids when it closes; nodes are listed as they close (children before their parent).

What the core records for every op is its inputs' shapes, dtypes and strides (and the values
of plain Python arguments when concrete arguments are on). Outputs and tensor identities are
known only for ops a Python call reached directly (see ``CallRecord``); an input tensor of an
op nested inside another op has no known identity and gets fresh tensor/storage ids.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

# torch's RecordScope values the trace's `scope` attribute uses.
SCOPE_FUNCTION = 0
SCOPE_BACKWARD_FUNCTION = 1
SCOPE_USER = 7

# The core's C++ dtype names (as torch prints them) -> element size in bytes.
ITEMSIZE = {
    "bool": 1, "unsigned char": 1, "signed char": 1, "short int": 2, "int": 4, "long int": 8,
    "c10::Half": 2, "c10::BFloat16": 2, "float": 4, "double": 8, "c10::complex<float>": 8,
    "c10::complex<double>": 16, "unsigned short": 2, "unsigned int": 4, "unsigned long": 8,
    "c10::complex<c10::Half>": 4,
}
# ember dtype names (str(dtype) without "ember.") -> the C++ names above.
CTYPE = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
    "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
    "float64": "double", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
    "uint16": "unsigned short", "uint32": "unsigned int", "uint64": "unsigned long",
    "complex32": "c10::complex<c10::Half>",
}


@dataclass
class TensorInfo:
    """A tensor seen by a Python call: identity keys plus what the trace prints about it."""

    key: int  # id() of the tensor object
    storage_key: int  # the storage's data pointer
    offset: int
    numel: int
    itemsize: int
    device: str
    shape: list[int]
    ctype: str
    strides: list[int]


@dataclass
class CallRecord:
    """One Python-level call seen by the observer's function mode: its time span (core clock),
    the tensors among its arguments in order, and its flattened results."""

    start_ns: int
    end_ns: int
    inputs: list[TensorInfo]
    outputs: list[Any]  # TensorInfo or plain values


@dataclass
class IdState:
    """The observer's id counter and the ids given to tensors/storages it has identified."""

    next_id: int = 1  # 1 is the process node; take() hands out 2 first
    tensors: dict[int, int] = field(default_factory=dict)
    storages: dict[int, int] = field(default_factory=dict)
    threads: dict[int, int] = field(default_factory=dict)  # raw thread -> (thread node id)
    thread_numbers: dict[int, int] = field(default_factory=dict)  # raw thread -> 1, 2, ...
    rf_id: int = 0

    def take(self) -> int:
        self.next_id += 1
        return self.next_id


def _attrs(rf_id: int, fw_parent: int, seq_id: int, scope: int, tid: int, fw_tid: int) -> list[dict[str, Any]]:
    return [
        {"name": "rf_id", "type": "uint64", "value": rf_id},
        {"name": "fw_parent", "type": "uint64", "value": fw_parent},
        {"name": "seq_id", "type": "int64", "value": seq_id},
        {"name": "scope", "type": "uint64", "value": scope},
        {"name": "tid", "type": "uint64", "value": tid},
        {"name": "fw_tid", "type": "uint64", "value": fw_tid},
        {"name": "op_schema", "type": "string", "value": ""},
        {"name": "kernel_backend", "type": "string", "value": ""},
        {"name": "kernel_file", "type": "string", "value": ""},
        {"name": "tensor_range", "type": "string", "value": ""},
    ]


def _empty_io() -> dict[str, list[Any]]:
    return {"values": [], "shapes": [], "types": [], "strides": []}


def make_node(node_id: int, name: str, ctrl_deps: int, attrs: list[dict[str, Any]],
              inputs: dict[str, list[Any]] | None = None,
              outputs: dict[str, list[Any]] | None = None) -> dict[str, Any]:
    """A node dict with torch's key order."""
    return {
        "id": node_id, "name": name, "ctrl_deps": ctrl_deps,
        "inputs": inputs or _empty_io(), "outputs": outputs or _empty_io(), "attrs": attrs,
    }


def process_node() -> dict[str, Any]:
    """The root node every trace ends with (id 1, its own parent)."""
    return make_node(1, "[pytorch|profiler|execution_trace|process]", 1, _attrs(0, 0, -1, SCOPE_USER, 0, 0))


def _literal(text: str) -> Any:
    if not text:
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None


def _scalar_type(value: Any) -> str:
    if isinstance(value, bool):
        return "Bool"
    if isinstance(value, int):
        return "Int"
    if isinstance(value, float):
        return "Double"
    if isinstance(value, str):
        return "String"
    return "Scalar"  # a value the core could not print (a dtype, a device...)


def _tensor_value(ids: IdState, info: TensorInfo | None, shape: list[int], ctype: str) -> list[Any]:
    if info is None:  # identity unknown: fresh ids, so no false data dependency is implied
        numel = 1
        for d in shape:
            numel *= d
        return [ids.take(), ids.take(), 0, numel, ITEMSIZE.get(ctype, 0), "cpu"]
    tid = ids.tensors.get(info.key)
    if tid is None:
        tid = ids.tensors[info.key] = ids.take()
    sid = ids.storages.get(info.storage_key)
    if sid is None:
        sid = ids.storages[info.storage_key] = ids.take()
    return [tid, sid, info.offset, info.numel, info.itemsize, info.device]


def build_inputs(ids: IdState, shapes_text: str, concrete_text: str,
                 call: CallRecord | None) -> dict[str, list[Any]]:
    """An op's ``inputs`` from the core's shapes/types/strides text and concrete arguments; the
    tensors take the identities of the matched Python call's tensor arguments when the counts agree."""
    parsed = _literal(shapes_text)
    if not (isinstance(parsed, tuple) and len(parsed) == 3):
        return _empty_io()
    dims, types, strides = parsed
    concrete = _literal(concrete_text)
    if not isinstance(concrete, list) or len(concrete) != len(types):
        concrete = [None] * len(types)
    n_tensors = sum(1 for t in types if t in ITEMSIZE)
    known = call.inputs if call is not None and len(call.inputs) == n_tensors else []
    out = _empty_io()
    k = 0
    for i, typ in enumerate(types):
        if typ in ITEMSIZE:
            info = known[k] if known else None
            k += 1
            out["values"].append(_tensor_value(ids, info, dims[i], typ))
            out["shapes"].append(dims[i])
            out["types"].append(f"Tensor({typ})")
            out["strides"].append(strides[i])
        elif typ == "ScalarList":
            items = concrete[i] if isinstance(concrete[i], list) else []
            out["values"].append(items if items else None)
            out["shapes"].append([[] for _ in items])
            out["types"].append("GenericList[" + ",".join(_scalar_type(v) for v in items) + "]")
            out["strides"].append([[] for _ in items])
        elif typ == "":
            out["values"].append("<None>")
            out["shapes"].append([])
            out["types"].append("None")
            out["strides"].append([])
        else:
            value = concrete[i]
            out["values"].append(value)
            out["shapes"].append([])
            out["types"].append(_scalar_type(value))
            out["strides"].append([])
    return out


def build_outputs(ids: IdState, call: CallRecord | None) -> dict[str, list[Any]]:
    """An op's ``outputs``: the matched Python call's results (empty when there is none)."""
    out = _empty_io()
    if call is None:
        return out
    for item in call.outputs:
        if isinstance(item, TensorInfo):
            out["values"].append(_tensor_value(ids, item, item.shape, item.ctype))
            out["shapes"].append(item.shape)
            out["types"].append(f"Tensor({item.ctype})")
            out["strides"].append(item.strides)
        elif item is None:
            out["values"].append("<None>")
            out["shapes"].append([])
            out["types"].append("None")
            out["strides"].append([])
        else:
            out["values"].append(item)
            out["shapes"].append([])
            out["types"].append(_scalar_type(item))
            out["strides"].append([])
    return out


def match_calls(records: list[tuple[Any, ...]], calls: list[CallRecord]) -> dict[int, CallRecord]:
    """Index (into records) -> the Python call that reached that op directly: the call's span
    holds exactly one outermost op record."""
    matched: dict[int, CallRecord] = {}
    if not calls:
        return matched
    starts = [r[2] for r in records]
    import bisect

    for call in calls:
        lo = bisect.bisect_left(starts, call.start_ns)
        hi = bisect.bisect_right(starts, call.end_ns)
        inside = [i for i in range(lo, hi) if records[i][3] <= call.end_ns]
        if not inside:
            continue
        top = min(records[i][5] for i in inside)
        roots = [i for i in inside if records[i][5] == top]
        if len(roots) == 1 and records[roots[0]][1] == "op":
            matched[roots[0]] = call
    return matched


def convert(records: list[tuple[Any, ...]], calls: list[CallRecord], ids: IdState,
            nodes: list[dict[str, Any]]) -> None:
    """Append the nodes of ``records`` (the core's raw tuples, in start order, memory records
    removed) to ``nodes``."""
    matched = match_calls(records, calls)
    # Per thread: open (depth, end_ns, node_id, record index, parent id) entries.
    stacks: dict[int, list[tuple[int, int, int, int, int]]] = {}
    pending: list[tuple[int, int, int, int, int]] = []  # all open entries, to close in time order

    def close(entry: tuple[int, int, int, int, int]) -> None:
        _depth, _end, node_id, idx, parent_id = entry
        rec = records[idx]
        name, kind, raw_thread, seq = rec[0], rec[1], rec[4], rec[6]
        call = matched.get(idx)
        tid = ids.thread_numbers[raw_thread]
        if kind == "user":
            scope, fw_parent, fw_tid = SCOPE_USER, 0, 0
        elif kind == "backward" and not name.startswith("autograd::engine::evaluate_function"):
            scope, fw_parent, fw_tid = SCOPE_BACKWARD_FUNCTION, parent_id, tid
        else:
            scope, fw_parent, fw_tid = SCOPE_FUNCTION, 0, 0
            if kind == "backward":  # the engine's wrapper range: the node inside it carries the seq
                seq = -1
        rf_id = rf_ids[idx]
        backward_node = scope == SCOPE_BACKWARD_FUNCTION
        outputs = _empty_io() if kind == "user" or backward_node else build_outputs(ids, call)
        nodes.append(make_node(node_id, name, parent_id, _attrs(rf_id, fw_parent, seq, scope, tid, fw_tid),
                               inputs_of[idx], outputs))

    inputs_of: dict[int, dict[str, list[Any]]] = {}
    rf_ids: dict[int, int] = {}
    for idx, rec in enumerate(records):
        start_ns, raw_thread, depth = rec[2], rec[4], rec[5]
        # Ops that ended before this one started close first (post-order, ids in time order).
        while pending and pending[0][1] <= start_ns:
            entry = pending.pop(0)
            stacks[records[entry[3]][4]].remove(entry)
            close(entry)
        if raw_thread not in ids.threads:
            ids.thread_numbers[raw_thread] = len(ids.thread_numbers) + 1
            thread_id = ids.threads[raw_thread] = ids.take()
            nodes.append(make_node(thread_id, "[pytorch|profiler|execution_trace|thread]", 1,
                                   _attrs(0, 0, -1, SCOPE_USER, ids.thread_numbers[raw_thread], 0)))
        stack = stacks.setdefault(raw_thread, [])
        while stack and stack[-1][0] >= depth:  # defensive: nesting says these have closed
            entry = stack.pop()
            pending.remove(entry)
            close(entry)
        parent_id = stack[-1][2] if stack else ids.threads[raw_thread]
        node_id = ids.take()
        ids.rf_id += 1
        rf_ids[idx] = ids.rf_id
        kind = rec[1]
        inputs_of[idx] = (build_inputs(ids, rec[7], rec[10] if len(rec) > 10 else "", matched.get(idx))
                          if kind != "user" else _empty_io())
        entry = (depth, rec[3], node_id, idx, parent_id)
        stack.append(entry)
        # Keep `pending` ordered by end time, deeper (inner) entries first on ties.
        pos = len(pending)
        while pos > 0 and (pending[pos - 1][1], -pending[pos - 1][0]) > (rec[3], -depth):
            pos -= 1
        pending.insert(pos, entry)
    while pending:
        close(pending.pop(0))
