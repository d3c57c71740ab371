"""``Optimizer``: parameter groups, per-parameter state, state dicts and step hooks (as torch.optim)."""

from __future__ import annotations

import copy
import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from typing import Any

import ember
from ember import Tensor
from ember._lib import _C
from ember.nn.modules._grad import zero_grads
from ember.nn.modules._hooks import RemovableHandle

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Singleton marking a default that every param group must provide."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_global_step_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
_global_step_post_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()


def register_optimizer_step_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    handle = RemovableHandle(_global_step_pre_hooks)
    _global_step_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable[..., Any]) -> RemovableHandle:
    handle = RemovableHandle(_global_step_post_hooks)
    _global_step_post_hooks[handle.id] = hook
    return handle


def _wrap_step(step: Callable[..., Any]) -> Callable[..., Any]:
    """Run pre/post hooks around ``step`` and record that it was called (for the LR schedulers)."""

    @functools.wraps(step)
    def wrapper(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        # PyTorch's profiler label around the hooks and the step (one C call when not profiling).
        if not _C._profiler_active():
            return _hooked_step(self, args, kwargs)
        _C._record_function_enter(f"Optimizer.step#{type(self).__name__}.step")
        try:
            return _hooked_step(self, args, kwargs)
        finally:
            if _C._profiler_active():
                _C._record_function_exit()

    def _hooked_step(self: Optimizer, args: Any, kwargs: Any) -> Any:
        # torch hands the hooks the step's positional arguments including the optimizer itself
        args = (self, *args)
        for hook in list(_global_step_pre_hooks.values()) + list(self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{hook} must return None or a tuple of (new_args, new_kwargs), but got "
                                       f"{result}.")
                args, kwargs = result
        out = step(*args, **kwargs)
        self._opt_called = True
        for hook in list(self._optimizer_step_post_hooks.values()) + list(_global_step_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    wrapper._hooked = True  # type: ignore[attr-defined]
    return wrapper


_HOOK_DICTS = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
               "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
               "_optimizer_load_state_dict_post_hooks")


def _add_hook(hooks: OrderedDict[int, Callable[..., Any]], hook: Callable[..., Any], prepend: bool) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


class Optimizer:
    """Base class: subclasses implement ``step`` over ``self.param_groups`` and ``self.state``."""

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {ember.typename(params)}")
        self.state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__ and not getattr(cls.__dict__["step"], "_hooked", False):
            cls.step = _wrap_step(cls.__dict__["step"])  # type: ignore[method-assign]

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in _HOOK_DICTS:
            self.__dict__.setdefault(name, OrderedDict())
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        out = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            out += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    out += f"    {key}: {group[key]}\n"
        return out + ")"

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters; missing hyperparameters come from ``defaults``."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)
        tensors, names = [], []
        for p in params:
            if isinstance(p, tuple):  # (name, tensor) pairs from named_parameters()
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + ember.typename(p))
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len({id(p) for p in tensors}) != len(tensors):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen: set[int] = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                current = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {current} to the optimizer")
        if any(id(p) in seen for p in tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets the gradient of every parameter: to None (the default) or, with ``set_to_none=False``, to zeros."""
        params = (p for group in self.param_groups for p in group["params"])
        if not _C._profiler_active():
            zero_grads(params, set_to_none)
            return
        _C._record_function_enter(f"Optimizer.zero_grad#{type(self).__name__}.zero_grad")  # PyTorch's label
        try:
            zero_grads(params, set_to_none)
        finally:
            if _C._profiler_active():
                _C._record_function_exit()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Updates every parameter once from its ``.grad``, with the algorithm's rule.

        Args:
            closure: a function that recomputes the loss (clears the gradients, runs forward and
                backward, returns the loss); optional except for optimizers that evaluate the
                loss several times per step (LBFGS).

        Returns:
            The closure's loss, or None without a closure.
        """
        raise NotImplementedError

    def _step_grad_mode(self) -> Any:
        """The grad mode a step runs in: off, unless the optimizer was made ``differentiable=True``
        (then the update is recorded, so a loss of the stepped parameters differentiates through it:
        torch's ``_use_grad_for_differentiable``)."""
        return ember.set_grad_enabled(bool(self.defaults.get("differentiable", False)))

    def _run_closure(self, closure: Callable[[], Any] | None) -> Any:
        if closure is None:
            return None
        with ember.enable_grad():
            return closure()

    # ---- hooks -----------------------------------------------------------------------------
    def register_step_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` before each step; may return ``(new_args, new_kwargs)``."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` after each step."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` before ``state_dict()`` packs the state."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` after packing; a returned dict replaces the state dict."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` before loading; a returned dict is loaded instead."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` after ``load_state_dict()`` has restored the state."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ---- state dicts -------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """``{'state': {index: ...}, 'param_groups': [{..., 'params': [indices]}]}``; tensors not cloned."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        mapping: dict[int, int] = {}
        start = 0

        def pack(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": state, "param_groups": groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _cast_state(param: Tensor, value: Any, key: Any = None, step_float32: bool = False) -> Any:
        """A loaded state value for ``param``: tensors take its dtype (when it is floating point),
        except ``step``, which stays as saved unless its group is fused or capturable (float32 then);
        dicts, lists and tuples are rebuilt around their cast members, as torch does."""
        if isinstance(value, Tensor):
            if key == "step":
                return value.to(dtype=ember.float32) if step_float32 else value
            return value.to(dtype=param.dtype) if param.is_floating_point() else value
        if isinstance(value, dict):
            return {k: Optimizer._cast_state(param, v, k, step_float32) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(Optimizer._cast_state(param, v, None, step_float32) for v in value)
        return value

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restores the per-parameter state and the groups' options from a ``state_dict()`` of an
        optimizer built the same way."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups, strict=False)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = {old: p for g, s in zip(groups, saved_groups, strict=True)
                  for old, p in zip(s["params"], g["params"], strict=True)}
        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        # which saved group holds each index decides how its step is cast (as torch)
        step_float32 = {i: bool(g.get("fused", False) or g.get("capturable", False))
                        for g in reversed(state_dict["param_groups"]) for i in g["params"]}
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = self._cast_state(param, v, None, step_float32.get(k, False))
            else:
                state[k] = v

        def update_group(group: dict[str, Any], new_group: dict[str, Any]) -> dict[str, Any]:
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        self.__setstate__({"state": state,
                           "param_groups": [update_group(g, ng) for g, ng in zip(groups, saved_groups, strict=False)]})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)


def _check(cond: bool, message: str) -> None:
    if not cond:
        raise ValueError(message)


def _check_common(lr: float, eps: float | None = None, betas: tuple[float, float] | None = None,
                  weight_decay: float = 0.0) -> None:
    _check(0.0 <= lr, f"Invalid learning rate: {lr}")
    if eps is not None:
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
    if betas is not None:
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
    _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")


def _scalar(x: Any) -> Any:
    """A hyperparameter given as a (0-d) tensor, as a Python number; numbers as they are."""
    return float(x.item()) if isinstance(x, Tensor) else x


def _step_tensor() -> Tensor:
    # PyTorch keeps the step count as a float32 0-d tensor in the state.
    return ember.tensor(0.0, dtype=ember.float32)


def _restore_state(opt: Optimizer, flags: tuple[str, ...], numbers: tuple[str, ...] = ("step",)) -> None:
    """After unpickling: the groups' missing flags default (``foreach`` None, others False) and the
    state's counters that old checkpoints kept as Python numbers become float32 tensors."""
    for group in opt.param_groups:
        for flag in flags:
            group.setdefault(flag, None if flag == "foreach" else False)
        for p in group["params"]:
            p_state = opt.state.get(p, {})
            for key in numbers:
                if key in p_state and not isinstance(p_state[key], Tensor):
                    p_state[key] = ember.tensor(float(p_state[key]), dtype=ember.float32)


def _check_capturable(group: dict[str, Any], single: str = "params and state_steps", multi: str | None = None,
                      xla: tuple[bool, bool] = (True, False)) -> None:
    """capturable=True needs accelerator tensors: on ember's CPU tensors torch's step raises this
    AssertionError (its text differs between the per-parameter and the foreach paths)."""
    if not group.get("capturable"):
        return
    foreach = bool(group.get("foreach"))
    what = (multi or single) if foreach else single
    devices = ["cuda", "xpu", "hpu", "privateuseone"] + (["xla"] if xla[foreach] else [])
    raise AssertionError(f"If capturable=True, {what} must be on supported devices: {devices}.")


def _real(t: Tensor) -> Tensor:
    """A complex tensor as its real view (``[..., 2]``): the adaptive optimizers treat the real and
    imaginary parts as independent coordinates, as torch does; real tensors as they are."""
    return ember.view_as_real(t) if t.is_complex() else t


def _params_with_grad(group: dict[str, Any]) -> Iterable[Tensor]:
    for p in group["params"]:
        if p.grad is not None:
            yield p
