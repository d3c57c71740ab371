"""Model and optimizer state dicts with canonical keys, the same for plain, DDP and FSDP2
models: parameter FQNs without wrapper prefixes (``module.``, ``_fsdp_wrapped_module.``...),
and optimizer state keyed by those FQNs instead of integer ids, so a checkpoint saved from
one wrapping (or number of ranks) loads into another.

``full_state_dict`` gathers sharded (DTensor) values into full tensors, ``cpu_offload`` moves
values to the CPU (and, with ``full_state_dict``, keeps them on rank 0 only),
``broadcast_from_rank0`` on set takes rank 0's full values and gives each rank its shard."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ember
import ember.distributed as dist

from . import _dtensor as D

__all__ = [
    "StateDictOptions", "get_model_state_dict", "get_optimizer_state_dict", "get_state_dict",
    "set_model_state_dict", "set_optimizer_state_dict", "set_state_dict",
]

_WRAPPER_ATTRS = ("_fsdp_wrapped_module", "_checkpoint_wrapped_module", "_orig_mod")


@dataclass
class StateDictOptions:
    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False
    dsd_fqn_modifiers: str = "_fqn_modifiers"


def _is_ddp(m: Any) -> bool:
    from .._ddp.module import DistributedDataParallel

    return isinstance(m, DistributedDataParallel)


def _canonical(model: Any, key: str) -> str:
    """``module.0.weight`` of a DDP model -> ``0.weight``: drop every wrapper's segment."""
    parts = key.split(".")
    out = []
    cur = model
    for i, seg in enumerate(parts):
        children = getattr(cur, "_modules", None) or {}
        last = i == len(parts) - 1
        if not last and ((seg == "module" and _is_ddp(cur)) or seg in _WRAPPER_ATTRS):
            cur = children.get(seg)
            continue
        out.append(seg)
        cur = children.get(seg) if not last else None
    return ".".join(out)


def _options(options: StateDictOptions | None) -> StateDictOptions:
    opts = options or StateDictOptions()
    if opts.broadcast_from_rank0 and not opts.full_state_dict:
        raise ValueError("full_state_dict must be True when broadcast_from_rank0 is True.")
    return opts


def _optims(optimizers: Any) -> list[Any]:
    if isinstance(optimizers, ember.optim.Optimizer):
        return [optimizers]
    return list(optimizers)


def _rank0_only(opts: StateDictOptions) -> bool:
    return opts.full_state_dict and opts.cpu_offload and dist.is_initialized() and dist.get_rank() != 0


def _export(v: Any, opts: StateDictOptions) -> Any:
    """A value as get_* hands it out: gathered if full_state_dict, on CPU if cpu_offload."""
    if D.is_dtensor(v) and opts.full_state_dict:
        v = v.full_tensor()  # a collective: every rank walks the values in the same order
    if opts.cpu_offload and isinstance(v, ember.Tensor) and v.device.type != "cpu":
        v = v.cpu()
    return v


def _submodule_filter(model: Any, submodules: Any, opts: StateDictOptions) -> Any:
    if not submodules:
        return None
    prefixes = [_canonical(model, name) + "." for name, m in model.named_modules() if m in submodules and name]

    def keep(fqn: str) -> str | None:
        for p in prefixes:
            if fqn.startswith(p):
                return fqn if opts.keep_submodule_prefixes else fqn[len(p):]
        return None

    return keep


def get_model_state_dict(model: Any, *, submodules: Any = None,
                         options: StateDictOptions | None = None) -> dict[str, Any]:
    """``model.state_dict()`` with canonical FQNs (see the module doc for the options)."""
    opts = _options(options)
    frozen = {id(p) for p in model.parameters() if not p.requires_grad} if opts.ignore_frozen_params else set()
    keep = _submodule_filter(model, submodules, opts)
    out: dict[str, Any] = {}
    for key, v in model.state_dict(keep_vars=True).items():
        if id(v) in frozen:
            continue
        fqn = _canonical(model, key)
        if keep is not None:
            fqn = keep(fqn)
            if fqn is None:
                continue
        v = v.detach() if isinstance(v, ember.Tensor) else v
        out[fqn] = _export(v, opts)
    return {} if _rank0_only(opts) else out


def _param_fqns(model: Any) -> dict[int, str]:
    """id(param) -> canonical FQN (a shared parameter keeps its first name)."""
    out: dict[int, str] = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        out.setdefault(id(p), _canonical(model, name))
    return out


def _init_optim_state(optim: Any) -> None:
    """Create the optimizer's state (zero step, lr 0) so it can be saved before training."""
    if optim.state:
        return
    params = [p for g in optim.param_groups for p in g["params"]]
    if any(p.grad is not None for p in params):
        return
    for p in params:
        if p.requires_grad:
            p.grad = ember.zeros_like(p)
    lrs = []
    for g in optim.param_groups:
        if "lr" in g:
            lrs.append(g["lr"])
            g["lr"] = ember.tensor(0.0) if isinstance(g["lr"], ember.Tensor) else 0.0
    optim.step()
    for g in optim.param_groups:
        if "lr" in g:
            g["lr"] = lrs.pop(0)
    optim.zero_grad(set_to_none=True)


def _flatten_osd(osd: dict[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for fqn, st in osd["state"].items():
        for k, v in st.items():
            flat[f"state.{fqn}.{k}"] = v
    for g in osd["param_groups"]:
        for fqn in g["params"]:
            for k, v in g.items():
                if k != "params":
                    flat[f"param_groups.{fqn}.{k}"] = v
    return flat


def _unflatten_osd(flat: dict[str, Any], optim: Any, fqns: dict[int, str]) -> dict[str, Any]:
    state: dict[str, Any] = {}
    groups = []
    for g in optim.param_groups:
        names = [fqns[id(p)] for p in g["params"]]
        for fqn in names:
            pre = f"state.{fqn}."
            st = {k[len(pre):]: v for k, v in flat.items() if k.startswith(pre)}
            if st:
                state[fqn] = st
        pre = f"param_groups.{names[0]}." if names else None
        hyper = {k[len(pre):]: v for k, v in flat.items() if pre and k.startswith(pre)}
        groups.append({**hyper, "params": names})
    return {"state": state, "param_groups": groups}


def get_optimizer_state_dict(model: Any, optimizers: Any, *, submodules: Any = None,
                             options: StateDictOptions | None = None) -> dict[str, Any]:
    """The optimizers' state keyed by parameter FQN: ``{'state': {fqn: {...}}, 'param_groups':
    [{..., 'params': [fqn, ...]}]}`` (several optimizers are merged)."""
    opts = _options(options)
    fqns = _param_fqns(model)
    state: dict[str, Any] = {}
    groups: list[dict[str, Any]] = []
    for optim in _optims(optimizers):
        _init_optim_state(optim)
        params = [p for g in optim.param_groups for p in g["params"]]
        osd = optim.state_dict()
        for i, st in osd["state"].items():
            p = params[i]
            state[fqns[id(p)]] = {k: _export(_as_param_layout(v, p), opts) for k, v in st.items()}
        for g in osd["param_groups"]:
            groups.append({**g, "params": [fqns[id(params[i])] for i in g["params"]]})
    out = {"state": state, "param_groups": groups}
    if opts.flatten_optimizer_state_dict:
        out = _flatten_osd(out)
    return {} if _rank0_only(opts) else out


def get_state_dict(model: Any, optimizers: Any, *, submodules: Any = None,
                   options: StateDictOptions | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(get_model_state_dict(...), get_optimizer_state_dict(...))``."""
    return (get_model_state_dict(model, submodules=submodules, options=options),
            get_optimizer_state_dict(model, optimizers, submodules=submodules, options=options))


def _broadcast_value(v: Any, like: Any) -> Any:
    """Rank 0's full value of a tensor shaped like ``like`` (global shape), on every rank."""
    shape = tuple(like.shape)
    if dist.get_rank() == 0:
        buf = v.detach().to(like.dtype).contiguous()
        if tuple(buf.shape) != shape:
            raise ValueError(f"broadcast_from_rank0: rank 0's value has shape {tuple(buf.shape)}, "
                             f"the model expects {shape}")
    else:
        buf = ember.empty(shape, dtype=like.dtype)
    dist.broadcast(buf, src=0)
    return buf


def _shard_of(full: Any, like: Any) -> Any:
    """This rank's piece of ``full`` for the DTensor ``like`` (a view)."""
    from .default_planner import narrow_tensor_by_index

    offsets, sizes = D.local_chunk(like)
    return narrow_tensor_by_index(full, offsets, sizes)


def _copy_into(cur: Any, v: Any) -> None:
    """cur (a DTensor) <- v (a full tensor or a DTensor of the same sharding), in place."""
    if v is cur:
        return
    src = v.to_local() if D.is_dtensor(v) else _shard_of(v, cur)
    with ember.no_grad():
        cur.to_local().copy_(src)


def set_model_state_dict(model: Any, model_state_dict: dict[str, Any], *,
                         options: StateDictOptions | None = None) -> Any:
    """Load canonical-FQN ``model_state_dict`` into ``model`` (full or sharded values)."""
    from ember.nn.modules.module import _IncompatibleKeys

    opts = _options(options)
    current = model.state_dict(keep_vars=True)
    by_fqn = {_canonical(model, k): k for k in current}
    if opts.broadcast_from_rank0:
        model_state_dict = {fqn: _broadcast_value(model_state_dict.get(fqn) if dist.get_rank() == 0 else None,
                                                  current[key])
                            for fqn, key in by_fqn.items()
                            if isinstance(current[key], ember.Tensor) or D.is_dtensor(current[key])}
    plain: dict[str, Any] = {}
    done: set[str] = set()
    unexpected: list[str] = []
    for fqn, v in model_state_dict.items():
        key = by_fqn.get(fqn, fqn)
        if key not in current:
            unexpected.append(key)
            continue
        if D.is_dtensor(current[key]):
            _copy_into(current[key], v)
            done.add(key)
        else:
            plain[key] = v
    result = model.load_state_dict(plain, strict=False)
    missing = [k for k in result.missing_keys if k not in done]
    unexpected += list(result.unexpected_keys)
    if opts.strict and (missing or unexpected):
        parts = []
        if unexpected:
            parts.append("Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
        if missing:
            parts.append("Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
            type(model).__name__, "\n\t".join(parts)))
    return _IncompatibleKeys(missing, unexpected)


def _as_param_layout(v: Any, p: Any) -> Any:
    """An optimizer-state tensor of sharded param ``p`` as a DTensor of p's layout (sharing
    memory), as torch presents it: the optimizers keep the local shard (``zeros_like`` of a
    DTensor parameter runs on its local tensor), scalars such as ``step`` stay plain."""
    if (D.is_dtensor(p) and isinstance(v, ember.Tensor) and not D.is_dtensor(v)
            and v.dim() == p.dim() and tuple(v.shape) == tuple(p.to_local().shape)):
        return type(p).from_local(v, p.device_mesh, p.placements, run_check=False,
                                  shape=p.shape, stride=p.stride())
    return v


def _to_param_layout(v: Any, p: Any) -> Any:
    """The local tensor the optimizer keeps for sharded param ``p``: this rank's piece of a
    full value, or the local tensor of a DTensor (redistributed if its placements differ)."""
    if not D.is_dtensor(p) or not isinstance(v, ember.Tensor) or v.dim() != p.dim():
        return v
    if D.is_dtensor(v):
        if tuple(v.placements) != tuple(p.placements):
            v = v.redistribute(p.device_mesh, p.placements)
        return v.to_local()
    if tuple(v.shape) == tuple(p.shape):
        return _shard_of(v, p).clone()
    return v


def set_optimizer_state_dict(model: Any, optimizers: Any, optim_state_dict: dict[str, Any], *,
                             options: StateDictOptions | None = None) -> None:
    """Load FQN-keyed ``optim_state_dict`` (from ``get_optimizer_state_dict``) into the optimizers."""
    opts = _options(options)
    if opts.broadcast_from_rank0 and dist.is_initialized():
        box = [optim_state_dict if dist.get_rank() == 0 else None]
        dist.broadcast_object_list(box, src=0)
        optim_state_dict = box[0]
    fqns = _param_fqns(model)
    for optim in _optims(optimizers):
        _init_optim_state(optim)
        osd = optim_state_dict
        if "state" not in osd or "param_groups" not in osd:
            osd = _unflatten_osd(osd, optim, fqns)
        params = [p for g in optim.param_groups for p in g["params"]]
        ids = {fqns[id(p)]: i for i, p in enumerate(params)}
        state = {ids[fqn]: {k: _to_param_layout(v, params[ids[fqn]]) for k, v in st.items()}
                 for fqn, st in osd["state"].items() if fqn in ids}
        groups = []
        for g in optim.param_groups:
            names = [fqns[id(p)] for p in g["params"]]
            saved = next((sg for sg in osd["param_groups"] if names and names[0] in sg["params"]), None)
            if saved is None:
                raise ValueError(f"set_optimizer_state_dict: no param group in the state dict holds {names[:1]}")
            groups.append({**{k: v for k, v in saved.items() if k != "params"},
                           "params": [ids[n] for n in names]})
        optim.load_state_dict({"state": state, "param_groups": groups})


def set_state_dict(model: Any, optimizers: Any, *, model_state_dict: dict[str, Any],
                   optim_state_dict: dict[str, Any], options: StateDictOptions | None = None) -> Any:
    """``set_model_state_dict`` then ``set_optimizer_state_dict``; returns the model's
    ``_IncompatibleKeys``."""
    result = set_model_state_dict(model, model_state_dict, options=options)
    set_optimizer_state_dict(model, optimizers, optim_state_dict, options=options)
    return result
