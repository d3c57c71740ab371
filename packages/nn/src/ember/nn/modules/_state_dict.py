"""``Module.state_dict`` / ``load_state_dict``: PyTorch's key order, metadata and error messages."""

from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import ember
from ember import Tensor

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


def get_extra_state(self: Any) -> Any:
    """State to save in ``state_dict`` beyond parameters and buffers; a subclass that has some
    defines this and ``set_extra_state``. The base has none.
    """
    raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called. ")


def set_extra_state(self: Any, state: Any) -> None:
    """Restores what ``get_extra_state`` returned, when ``load_state_dict`` finds it."""
    raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called. ")


def _has_extra_state(module: Any) -> bool:
    from ember.nn.modules.module import Module

    return type(module).get_extra_state is not Module.get_extra_state


def _save_to_state_dict(self: Any, destination: dict[str, Any], prefix: str, keep_vars: bool) -> None:
    for name, param in self._parameters.items():
        if param is not None:
            destination[prefix + name] = param if keep_vars else param.detach()
    for name, buf in self._buffers.items():
        if buf is not None and name not in self._non_persistent_buffers_set:
            destination[prefix + name] = buf if keep_vars else buf.detach()
    if _has_extra_state(self):
        destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()


def state_dict(self: Any, *args: Any, destination: Any = None, prefix: str = "", keep_vars: bool = False) -> Any:
    """An OrderedDict of parameters then persistent buffers, module by module (depth first)."""
    if args:  # the deprecated positional form (destination, prefix, keep_vars)
        destination = args[0] if len(args) > 0 else destination
        prefix = args[1] if len(args) > 1 else prefix
        keep_vars = args[2] if len(args) > 2 else keep_vars
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    local_metadata = {"version": self._version}
    if hasattr(destination, "_metadata"):
        destination._metadata[prefix[:-1]] = local_metadata
    for hook in self._state_dict_pre_hooks.values():
        hook(self, prefix, keep_vars)
    self._save_to_state_dict(destination, prefix, keep_vars)
    for name, module in self._modules.items():
        if module is not None:
            module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
    for hook in self._state_dict_hooks.values():
        result = hook(self, destination, prefix, local_metadata)
        if getattr(hook, "_from_public_api", False):
            if result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        elif result is not None:
            destination = result
    return destination


def _load_from_state_dict(self: Any, state_dict: Mapping[str, Any], prefix: str, local_metadata: dict[str, Any],
                          strict: bool, missing_keys: list[str], unexpected_keys: list[str],
                          error_msgs: list[str]) -> None:
    from ember.nn.parameter import Parameter, is_lazy

    for hook in self._load_state_dict_pre_hooks.values():
        hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
    persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
    local_state = {k: v for k, v in list(self._parameters.items()) + list(persistent.items()) if v is not None}
    assign = local_metadata.get("assign_to_params_buffers", False)
    for name, param in local_state.items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing_keys.append(key)
            continue
        value = state_dict[key]
        if not isinstance(value, Tensor):
            error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(value)}")
            continue
        lazy = is_lazy(param)  # an uninitialized one (still lazy: the value has no shape) takes any shape
        if not lazy and param.dim() == 0 and len(value.shape) == 1 and value.shape[0] == 1:
            value = value[0]  # checkpoints from before 0-d tensors stored scalars as 1-element vectors
        if not lazy and tuple(value.shape) != tuple(param.shape):
            error_msgs.append(f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, "
                              f"the shape in current model is {param.shape}.")
            continue
        if param.is_meta and not value.is_meta and not assign:
            warnings.warn(f"for {key}: copying from a non-meta parameter in the checkpoint to a meta parameter in the "
                          "current model, which is a no-op. (Did you mean to pass `assign=True` to assign items in the "
                          "state dictionary to their corresponding key in the module instead of copying them in "
                          "place?)", stacklevel=2)
        try:
            with ember.no_grad():
                if assign:
                    if isinstance(param, Parameter):
                        if not isinstance(value, Parameter):
                            value = Parameter(value, requires_grad=param.requires_grad)
                        else:
                            value.requires_grad_(param.requires_grad)
                    setattr(self, name, value)
                else:
                    param.copy_(value)
        except Exception as ex:
            error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                              f"{param.shape} and whose dimensions in the checkpoint are {value.shape}, an exception "
                              f"occurred : {ex.args}.")
    extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
    if _has_extra_state(self):
        if extra_key in state_dict:
            self.set_extra_state(state_dict[extra_key])
        elif strict:
            missing_keys.append(extra_key)
    elif strict and extra_key in state_dict:
        unexpected_keys.append(extra_key)
    if strict:
        for key in state_dict.keys():
            if key.startswith(prefix) and key != extra_key:
                head = key[len(prefix):].split(".", 1)
                if len(head) > 1:
                    if head[0] not in self._modules:
                        unexpected_keys.append(key)
                elif head[0] not in local_state:
                    unexpected_keys.append(key)


def load_state_dict(self: Any, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False) -> Any:
    """Copy parameters and buffers from ``state_dict``; returns ``_IncompatibleKeys``."""
    from ember.nn.modules.module import _IncompatibleKeys

    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing: list[str] = []
    unexpected: list[str] = []
    errors: list[str] = []
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)
    if metadata is not None:
        state_dict._metadata = metadata  # type: ignore[attr-defined]

    def load(module: Any, local_state: Mapping[str, Any], prefix: str = "") -> None:
        local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        module._load_from_state_dict(local_state, prefix, local_metadata, True, missing, unexpected, errors)
        for name, child in module._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                child_state = {k: v for k, v in local_state.items() if k.startswith(child_prefix)}
                load(child, child_state, child_prefix)
        incompatible = _IncompatibleKeys(missing, unexpected)
        for hook in module._load_state_dict_post_hooks.values():
            out = hook(module, incompatible)
            if out is not None:
                raise RuntimeError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                   "expected to return new values, if incompatible_keys need to be modified,"
                                   "it should be done inplace.")

    load(self, state_dict)
    if strict:
        if unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
    if errors:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__,
                                                                               "\n\t".join(errors)))
    return _IncompatibleKeys(missing, unexpected)
