"""add_graph: a TensorFlow GraphDef of an ember Module, traced by running it once.

Module forward hooks give the scopes (`Net/Linear[fc1]`) and the tensors flowing in and out of
each module; the profiler (record_shapes) gives the aten ops run inside each scope and their
timings (stored as RunMetadata step stats, shown by TensorBoard's "compute time" colouring).
Data edges between modules follow tensor identity; ops inside one scope are chained in
execution order, and a module input that no traced node produced (e.g. the result of a
functional op) is connected to the node that ran just before it in the enclosing scope.
"""

from __future__ import annotations

from typing import Any

from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.config_pb2 import RunMetadata
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.step_stats_pb2 import DeviceStepStats, NodeExecStats, StepStats
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.compat.proto.versions_pb2 import VersionDef

_DEVICE = "/device:CPU:0"


def _tensors(obj: Any) -> list[Any]:
    """Tensors in a (nested) tuple/list/dict of module inputs or outputs, in order."""
    if hasattr(obj, "shape") and hasattr(obj, "detach"):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _tensors(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _tensors(o)]
    return []


def _shapes_attr(shapes: list[list[int]]) -> AttrValue:
    protos = [TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(d)) for d in s]) for s in shapes]
    return AttrValue(list=AttrValue.ListValue(shape=protos))


def _scope_names(model: Any) -> dict[int, str]:
    """id(module) -> `Root/Child[attr]/...` in TensorBoard's usual scope spelling."""
    names = {id(model): type(model).__name__}
    for qualified, mod in model.named_modules():
        if not qualified or id(mod) in names:
            continue
        parts = qualified.split(".")
        parent = model
        path = type(model).__name__
        for p in parts:
            parent = getattr(parent, "_modules", {}).get(p) or getattr(parent, p)
            path += f"/{type(parent).__name__}[{p}]"
        names[id(mod)] = path
    return names


class _Tracer:
    def __init__(self) -> None:
        self.nodes: list[NodeDef] = []
        self.used: dict[str, int] = {}
        self.producer: dict[int, str] = {}  # id(tensor) -> node name
        self.keep: list[Any] = []  # keeps traced tensors alive so ids stay unique
        self.last: dict[str, str] = {}  # scope -> last node run in it (children's results included)
        self.stats: list[NodeExecStats] = []

    def unique(self, name: str) -> str:
        n = self.used.get(name, 0)
        self.used[name] = n + 1
        return name if n == 0 else f"{name}.{n}"

    def add(self, name: str, op: str, inputs: list[str], shapes: list[list[int]] | None = None,
            extra: dict[str, str] | None = None) -> str:
        node = NodeDef(name=self.unique(name), op=op, input=inputs, device=_DEVICE)
        if shapes is not None:
            node.attr["_output_shapes"].CopyFrom(_shapes_attr(shapes))
        for k, v in (extra or {}).items():
            node.attr[k].CopyFrom(AttrValue(s=v.encode("utf-8")))
        self.nodes.append(node)
        return node.name


def _op_children(range_evt: Any) -> list[Any]:
    """Ops run directly in a module's range: children that are ops, not nested module ranges."""
    return [c for c in range_evt.cpu_children if not c.is_user_annotation]


def graph(model: Any, args: Any, verbose: bool = False) -> tuple[GraphDef, RunMetadata]:
    import ember
    from ember.profiler import profile, record_function

    if not callable(model) or not hasattr(model, "named_modules"):
        raise TypeError(f"add_graph: model must be an ember.nn.Module, got {type(model).__name__}")
    inputs = () if args is None else (tuple(args) if isinstance(args, (list, tuple)) else (args,))
    scopes = _scope_names(model)
    tr = _Tracer()
    for i, t in enumerate(_tensors(inputs)):
        tr.producer[id(t)] = tr.add(f"input/input.{i}", "IO Node", [], [list(t.shape)])
        tr.keep.append(t)
    calls: list[dict[str, Any]] = []  # per module call, in call order: scope, inputs, outputs, range
    open_ranges: list[tuple[record_function, dict[str, Any]]] = []

    def pre(mod: Any, margs: Any) -> None:
        scope = scopes.get(id(mod), type(mod).__name__)
        call = {"scope": scope, "mod": mod, "inputs": _tensors(margs), "outputs": []}
        calls.append(call)
        rf = record_function("scope:" + scope + f"#{len(calls) - 1}")
        rf.__enter__()
        open_ranges.append((rf, call))

    def post(mod: Any, margs: Any, out: Any) -> None:
        rf, call = open_ranges.pop()
        rf.__exit__(None, None, None)
        call["outputs"] = _tensors(out)
        tr.keep.extend(call["outputs"])

    handles = []
    for _, mod in model.named_modules():
        handles.append(mod.register_forward_pre_hook(pre))
        handles.append(mod.register_forward_hook(post))
    was_training = getattr(model, "training", False)
    model.eval()  # graphs are of inference behaviour (dropout off), as torch's tracer does
    try:
        with ember.no_grad(), profile(record_shapes=True) as prof:
            out = model(*inputs)
    finally:
        for h in handles:
            h.remove()
        model.train(was_training)
    tr.keep.append(out)

    ranges = {e.name: e for e in prof.events() if e.is_user_annotation and e.name.startswith("scope:")}
    base_us = min((e.time_range.start for e in ranges.values()), default=0.0)
    for idx, call in enumerate(calls):
        call["range"] = ranges.get("scope:" + call["scope"] + f"#{idx}")
    _emit(tr, calls, base_us)
    for i, t in enumerate(_tensors(out)):
        src = tr.producer.get(id(t))
        tr.add(f"output/output.{i}", "IO Node", [src] if src else [], [list(t.shape)])
    gdef = GraphDef(node=tr.nodes, versions=VersionDef(producer=22))
    if verbose:
        print(gdef)
    meta = RunMetadata(step_stats=StepStats(dev_stats=[DeviceStepStats(device=_DEVICE, node_stats=tr.stats)]))
    return gdef, meta


def _emit(tr: _Tracer, calls: list[dict[str, Any]], base_us: float) -> None:
    """Walk the root call's range in time order, adding parameter and op nodes per scope."""
    range_to_call = {id(c["range"]): c for c in calls if c.get("range") is not None}
    if calls:
        _walk(tr, calls[0], [], range_to_call, base_us)


def _walk(tr: _Tracer, call: dict[str, Any], before: list[str], range_to_call: dict[int, Any],
          base_us: float) -> list[str]:
    """Nodes of one module call; `before` is what ran just before it in the enclosing scope.
    Returns the call's result node(s)."""
    rng, scope = call.get("range"), call["scope"]
    # The module's inputs: their producers, else whatever ran last in the enclosing scope.
    feeds = [tr.producer[id(t)] for t in call["inputs"] if id(t) in tr.producer] or before
    params = [
        tr.add(f"{scope}/{pname}", "prim::Parameter", [], [list(p.shape)])
        for pname, p in call["mod"].named_parameters(recurse=False)
    ]
    prev, first = feeds, True
    items = [] if rng is None else sorted(rng.cpu_children, key=lambda e: e.time_range.start)
    for evt in items:
        if evt.is_user_annotation:
            child = range_to_call.get(id(evt))
            if child is not None:
                prev = _walk(tr, child, prev, range_to_call, base_us) or prev
            continue
        node = tr.add(f"{scope}/{evt.name.split('::')[-1]}", evt.name, prev + (params if first else []),
                      extra={"input_shapes": str(evt.input_shapes)})
        tr.stats.append(NodeExecStats(
            node_name=node, all_start_micros=int(evt.time_range.start - base_us), op_start_rel_micros=0,
            op_end_rel_micros=int(evt.cpu_time_total), all_end_rel_micros=int(evt.cpu_time_total),
        ))
        prev, first = [node], False
    if first and params:  # no op ran directly in this scope: keep the parameters attached
        prev = prev + params
    if not first and call["outputs"]:  # the scope's last op made the module's result
        node_def = next(n for n in reversed(tr.nodes) if n.name == prev[0])
        node_def.attr["_output_shapes"].CopyFrom(_shapes_attr([list(t.shape) for t in call["outputs"]]))
    for t in call["outputs"]:
        if prev:
            tr.producer[id(t)] = prev[0]
    return prev[:1]
