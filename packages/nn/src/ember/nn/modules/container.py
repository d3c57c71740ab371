"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain, islice
from typing import Any

from ember import Tensor
from ember.nn.modules.module import Module, _addindent
from ember.nn.parameter import Parameter

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _norm_index(idx: Any, n: int) -> int:
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return idx % n


class Sequential(Module):
    """Chains modules: ``forward`` feeds each output into the next module."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _get_item_by_idx(self, iterator: Iterable[Any], idx: int) -> Any:
        size = len(self)
        idx = operator.index(idx)
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        idx %= size
        return next(islice(iterator, idx, None))

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._get_item_by_idx(self._modules.values(), idx)

    def __setitem__(self, idx: int, module: Module) -> None:
        key = self._get_item_by_idx(self._modules.keys(), idx)
        setattr(self, key, module)

    def __delitem__(self, idx: Any) -> None:
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, self._get_item_by_idx(self._modules.keys(), idx))
        # renumber so keys stay "0".."n-1"
        items = list(self._modules.items())
        self._modules.clear()
        self._modules.update((str(i), m) for i, (_, m) in enumerate(items))

    def __len__(self) -> int:
        return len(self._modules)

    def __add__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        ret = Sequential()
        for layer in chain(self, other):
            ret.append(layer)
        return ret

    def __iadd__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        for layer in other:
            self.append(layer)
        return self

    def __mul__(self, other: int) -> Sequential:
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        ret = Sequential()
        for _ in range(other):
            for layer in self:
                ret.append(layer)
        return ret

    __rmul__ = __mul__

    def pop(self, key: int | slice) -> Module:
        """Removes and returns the module at ``key``."""
        v = self[key]
        del self[key]
        return v

    def __dir__(self) -> list[str]:
        return [k for k in super().__dir__() if not k.isdigit()]

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        """Adds ``module`` at the end; returns the Sequential."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Inserts ``module`` before position ``index``; returns the Sequential."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        """Appends every module of ``sequential``; returns the Sequential."""
        for layer in sequential:
            self.append(layer)
        return self

    def forward(self, input: Any) -> Any:
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered so that parameters() sees them; has no forward."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_norm_index(idx, len(self)))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, str(_norm_index(idx, len(self))), module)

    def __delitem__(self, idx: Any) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_norm_index(idx, len(self))))
        values = list(self._modules.values())
        self._modules.clear()
        self._modules.update((str(i), m) for i, m in enumerate(values))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __repr__(self) -> str:
        # Runs of identical reprs collapse to "(0-2): 3 x Linear(...)".
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        groups: list[list[int]] = [[0, 0]]
        for i in range(1, len(reprs)):
            if reprs[i] == reprs[groups[-1][0]]:
                groups[-1][1] = i
            else:
                groups.append([i, i])
        lines = []
        for start, end in groups:
            text = _addindent(reprs[start], 2)
            if start == end:
                lines.append(f"({start}): {text}")
            else:
                lines.append(f"({start}-{end}): {end - start + 1} x {text}")
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self) -> list[str]:
        return [k for k in super().__dir__() if not k.isdigit()]

    def insert(self, index: int, module: Module) -> None:
        """Inserts ``module`` before position ``index``."""
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module: Module) -> ModuleList:
        """Adds ``module`` at the end; returns the list."""
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key: int | slice) -> Module:
        """Removes and returns the module at ``key``."""
        v = self[key]
        del self[key]
        return v

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Appends every module of ``modules``; returns the list."""
        if not isinstance(modules, Iterable) or isinstance(modules, (str, bytes)):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


class ModuleDict(Module):
    """An ordered dict of modules."""

    def __init__(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Removes every module."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Removes the module under ``key`` and returns it."""
        v = self[key]
        del self[key]
        return v

    def keys(self) -> Iterable[str]:
        """The names, in insertion order."""
        return self._modules.keys()

    def items(self) -> Iterable[tuple[str, Module]]:
        """The ``(name, module)`` pairs, in insertion order."""
        return self._modules.items()

    def values(self) -> Iterable[Module]:
        """The modules, in insertion order."""
        return self._modules.values()

    def update(self, modules: Any) -> None:
        """Adds or replaces modules from a mapping or an iterable of ``(name, module)`` pairs."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, but got "
                            + type(modules).__name__)
        if isinstance(modules, (OrderedDict, ModuleDict, Mapping)):
            for key, module in modules.items():
                self[key] = module
        else:
            for j, m in enumerate(modules):
                if not isinstance(m, Iterable):
                    raise TypeError(f"ModuleDict update sequence element #{j} should be Iterable; is "
                                    + type(m).__name__)
                if not len(m) == 2:
                    raise ValueError(f"ModuleDict update sequence element #{j} has length {len(m)}; 2 is required")
                self[m[0]] = m[1]


def _param_line(p: Any, legacy_type: bool = False) -> str:
    # ParameterList prints the dtype, ParameterDict the legacy type name (as PyTorch does).
    if isinstance(p, Tensor):
        size_str = "x".join(str(s) for s in p.size())
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        return f"{kind} containing: [{p.type() if legacy_type else p.dtype} of size {size_str}]"
    return "Object of type: " + type(p).__name__


class ParameterList(Module):
    """A list of parameters; plain tensors are wrapped into Parameters on insertion."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            out = self.__class__()
            for i in range(len(self))[idx]:
                out.append(self[i])
            return out
        return getattr(self, str(_norm_index(idx, len(self))))

    def __setitem__(self, idx: int, param: Any) -> None:
        idx = _norm_index(idx, len(self)) if idx < len(self) or idx < 0 else idx
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, str(idx), param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> ParameterList:
        return self.extend(parameters)

    def __dir__(self) -> list[str]:
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, value: Any) -> ParameterList:
        """Adds ``value`` at the end (a tensor becomes a Parameter); returns the list."""
        new_idx = len(self)
        self._size += 1
        self[new_idx] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        """Appends every value of ``values``; returns the list."""
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(f"  ({i}): " + _param_line(p) for i, p in enumerate(self))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters; plain tensors are wrapped into Parameters on insertion."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key: str) -> str:
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a string "
                            f"(type is '{type(key).__name__}'). Open an issue on github if you need "
                            "non-string keys.")
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, self._key_to_attr(key), value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(list(self._keys))

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        """A shallow copy: a new ParameterDict holding the same parameters."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default: Any = None) -> Any:
        """The parameter under ``key``, after storing ``default`` there if the key was absent."""
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        """Removes every parameter."""
        for k in list(self._keys):
            del self[k]

    def pop(self, key: str) -> Any:
        """Removes the parameter under ``key`` and returns it."""
        v = self[key]
        del self[key]
        return v

    def popitem(self) -> tuple[str, Any]:
        """Removes and returns the last inserted ``(key, parameter)`` pair."""
        k = list(self._keys)[-1]
        v = self[k]
        del self[k]
        return k, v

    def get(self, key: str, default: Any = None) -> Any:
        """The parameter under ``key``, or ``default`` if there is none."""
        return self[key] if key in self else default

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        """A new ParameterDict with every key of ``keys`` holding ``default``."""
        return ParameterDict((k, default) for k in keys)

    def keys(self) -> Iterable[str]:
        """The keys, in insertion order."""
        return self._keys.keys()

    def items(self) -> Iterable[tuple[str, Any]]:
        """The ``(key, parameter)`` pairs, in insertion order."""
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterable[Any]:
        """The parameters, in insertion order."""
        return (self[k] for k in self._keys)

    def update(self, parameters: Any) -> None:
        """Adds or replaces parameters from a mapping or an iterable of ``(key, value)`` pairs."""
        if not isinstance(parameters, Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of key/value pairs, but got "
                            + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, parameter in parameters.items():
                self[key] = parameter
        elif isinstance(parameters, Mapping):
            for key, parameter in sorted(parameters.items()):
                self[key] = parameter
        else:
            for j, p in enumerate(parameters):
                if not isinstance(p, Iterable):
                    raise TypeError(f"ParameterDict update sequence element #{j} should be Iterable; is "
                                    + type(p).__name__)
                if not len(p) == 2:
                    raise ValueError(f"ParameterDict update sequence element #{j} has length {len(p)}; 2 is required")
                self[p[0]] = p[1]

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): " + _param_line(p, True) for k, p in self.items())

    def __call__(self, input: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")


# PyTorch's container.py also holds the deprecated Container; ember's modules holding them import this file, so they are
# found on first use
_LAZY = {
    "Container": "deprecated"
}
__all__ += [n for n in _LAZY if not n.startswith("_") and n != "LazyModuleMixin" and n != "PairwiseDistance"]


def __getattr__(name: str) -> Any:
    """The classes listed in ``_LAZY``, imported from their ember file on first use."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"ember.nn.modules.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
