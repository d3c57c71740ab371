"""Weight pruning (``torch.nn.utils.prune``): zero out part of a tensor through a mask.

Pruning ``module.<name>`` moves the parameter to ``<name>_orig``, adds a buffer ``<name>_mask`` and a
forward pre-hook (the pruning method object itself) that sets the plain attribute ``<name>`` to
``<name>_orig * <name>_mask`` before each call, so gradients reach ``<name>_orig`` through the mask.
Pruning an already pruned tensor again chains the methods in a :class:`PruningContainer`: each new
method only sees what earlier ones left (the unpruned entries, or the unpruned channels), so an
``amount`` is always relative to what remains. :func:`remove` makes the pruning permanent.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import ember
from ember import Tensor
from ember.nn.modules.module import Module

__all__ = ["BasePruningMethod", "CustomFromMask", "Identity", "L1Unstructured", "LnStructured", "PruningContainer",
           "RandomStructured", "RandomUnstructured", "custom_from_mask", "global_unstructured", "identity",
           "is_pruned", "l1_unstructured", "ln_structured", "random_structured", "random_unstructured", "remove"]

M = TypeVar("M", bound=Module)


# ---- amount helpers ------------------------------------------------------------------------
def _check_amount(amount: Any) -> None:
    """At construction: an int >= 0 (a count) or a float in [0, 1] (a fraction)."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and int(amount) < 0) or (
            not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _count_to_prune(amount: Any, size: int) -> int:
    """How many of ``size`` units to prune; a count must not exceed ``size``, a fraction is rounded."""
    if isinstance(amount, numbers.Integral):
        if int(amount) > size:
            raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={size}")
        return int(amount)
    return round(float(amount) * size)


def _drop_extremes(amount: Any, default_mask: Tensor, scores: Callable[[], Tensor], largest: bool) -> Tensor:
    """``default_mask`` with the ``amount`` entries of largest (or smallest) score zeroed; the scores are
    computed only when something is pruned (a random draw must not happen for amount 0)."""
    k = _count_to_prune(amount, default_mask.nelement())
    mask = default_mask.clone(memory_format=ember.contiguous_format)
    if k != 0:
        mask.view(-1)[ember.topk(scores().view(-1), k=k, largest=largest).indices] = 0
    return mask


def _check_structured(t: Tensor, dim: int) -> None:
    if t.dim() <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. Found tensor of "
                         f"shape {t.shape} with {t.dim()} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _channel_index(ndim: int, dim: int, index: Any) -> tuple[Any, ...]:
    """An index that selects ``index`` along ``dim`` and everything along the other dims."""
    return (slice(None),) * (dim % ndim) + (index,)


def _keep_channels(t: Tensor, dim: int, keep: Tensor, default_mask: Tensor) -> Tensor:
    """A mask of ones on the channels ``keep`` (indices or booleans along ``dim``), times the old mask."""
    mask = ember.zeros_like(default_mask)
    mask[_channel_index(t.dim(), dim, keep)] = 1
    return mask * default_mask


# ---- methods -------------------------------------------------------------------------------
class BasePruningMethod(ABC):
    """A way to compute a mask; an instance attached to a module is also its forward pre-hook.

    ``PRUNING_TYPE`` says what a method acts on when chained: "unstructured" (single entries),
    "structured" (whole channels along ``dim``) or "global" (the whole tensor at once).
    """

    PRUNING_TYPE: str | None = None
    _tensor_name: str

    def __call__(self, module: Module, inputs: Any) -> None:
        # recompute the pruned tensor from the (possibly updated) original before each forward
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The new mask for ``t``, given the mask already in place (ones where nothing is pruned)."""

    def apply_mask(self, module: Module) -> Tensor:
        """``<name>_orig * <name>_mask`` of ``module``, the pruned tensor."""
        name = self._tensor_name
        return getattr(module, name + "_orig") * getattr(module, name + "_mask")

    @classmethod
    def apply(cls, module: Module, name: str, *args: Any, importance_scores: Tensor | None = None,
              **kwargs: Any) -> BasePruningMethod:
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``; returns the method now hooked (a
        container when the tensor was pruned before)."""
        method = cls(*args, **kwargs)
        method._tensor_name = name
        return _attach(module, name, method, importance_scores)

    def prune(self, t: Tensor, default_mask: Tensor | None = None, importance_scores: Tensor | None = None) -> Tensor:
        """``t`` times the mask computed from ``importance_scores`` (``t`` itself by default)."""
        if importance_scores is not None and importance_scores.shape != t.shape:
            raise ValueError("importance_scores should have the same shape as tensor t")
        scores = t if importance_scores is None else importance_scores
        mask = ember.ones_like(t) if default_mask is None else default_mask
        return t * self.compute_mask(scores, default_mask=mask)

    def remove(self, module: Module) -> None:
        """Make the pruning permanent: ``<name>`` becomes the ``<name>_orig`` parameter, masked in place
        (the same Parameter object, so optimizers that hold it keep working)."""
        name = self._tensor_name
        mask = getattr(module, name + "_mask")
        if name in module.__dict__:
            delattr(module, name)
        orig = module._parameters.pop(name + "_orig")
        del module._buffers[name + "_mask"]
        module._non_persistent_buffers_set.discard(name + "_mask")
        with ember.no_grad():
            orig.mul_(mask.to(orig.dtype))
        setattr(module, name, orig)


class PruningContainer(BasePruningMethod):
    """The methods applied one after the other to the same tensor (its pruning history)."""

    def __init__(self, *args: BasePruningMethod) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        if args:
            self._tensor_name = args[0]._tensor_name
        for method in args:
            self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod | None) -> None:
        if method is None:
            return
        if not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named '{self._tensor_name}' "
                             f"to PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Iterator[BasePruningMethod]:
        return iter(self._pruning_methods)

    def __getitem__(self, idx: int) -> BasePruningMethod:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The newest method's mask, computed on the part of ``t`` that the old mask leaves alive."""
        method = self._pruning_methods[-1]
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            region: Any = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError("Pruning methods of PRUNING_TYPE 'structured' need to have the attribute `dim` "
                                     "defined.")
            dim = method.dim % t.dim()
            others = [d for d in range(t.dim()) if d != dim]
            alive = default_mask.sum(dim=others) != 0  # channels not yet fully pruned
            region = _channel_index(t.dim(), dim, alive)
        elif kind == "global":
            region = (slice(None),) * t.dim()
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        new_mask = default_mask.clone()
        new_mask[region] = method.compute_mask(t[region], default_mask=default_mask[region]).to(new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones (a way to get the ``_orig``/``_mask`` layout)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` entries (a count, or a fraction of the tensor) picked at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: int | float) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        # the k entries with the largest uniform draws
        return _drop_extremes(self.amount, default_mask, lambda: ember.rand_like(t), largest=True)

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries of smallest absolute value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: int | float) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return _drop_extremes(self.amount, default_mask, lambda: ember.abs(t), largest=False)

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float,  # type: ignore[override]
              importance_scores: Tensor | None = None) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim``, picked at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _check_structured(t, self.dim)
        k = _count_to_prune(self.amount, t.shape[self.dim])
        if k == 0:
            return default_mask
        # keep the channels whose uniform draw is above the k-th smallest one
        draws = ember.rand(t.shape[self.dim])
        keep = draws > ember.kthvalue(draws, k=k).values
        return _keep_channels(t, self.dim, keep, default_mask)

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float,  # type: ignore[override]
              dim: int = -1) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest ``n``-norm (``n`` as ``ember.norm``'s ``p``)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, n: int | float | str, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        k = _count_to_prune(self.amount, channels)
        if k == 0:
            return default_mask
        others = [d for d in range(t.dim()) if d != self.dim % t.dim()]
        norms = ember.norm(t, p=self.n, dim=others)  # type: ignore[arg-type]
        keep = ember.topk(norms, k=channels - k, largest=True).indices
        return _keep_channels(t, self.dim, keep, default_mask)

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float, n: int | float | str,  # type: ignore[override]
              dim: int, importance_scores: Tensor | None = None) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where the given ``mask`` is zero (on top of the existing mask)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: Tensor) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name, mask=mask)


# ---- attaching to a module -----------------------------------------------------------------
def _pruning_hook(module: Module, name: str) -> tuple[int, BasePruningMethod] | None:
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            return key, hook
    return None


def _attach(module: Module, name: str, method: BasePruningMethod,
            importance_scores: Tensor | None) -> BasePruningMethod:
    """Compute the mask first (so that a bad amount leaves the module as it was), then rewire it."""
    current = getattr(module, name)
    scores = current if importance_scores is None else importance_scores
    if scores.shape != current.shape:
        raise AssertionError(f"importance_scores should have the same shape as parameter {name} of {module}, got "
                             f"{scores.shape} vs {current.shape}")
    found = _pruning_hook(module, name)
    hook = method
    if found is None:
        default_mask = ember.ones_like(current)
    else:
        default_mask = getattr(module, name + "_mask").detach().clone(memory_format=ember.contiguous_format)
        old = found[1]
        hook = old if isinstance(old, PruningContainer) else PruningContainer(old)
        hook.add_pruning_method(method)
    try:
        mask = hook.compute_mask(scores, default_mask=default_mask)
    except BaseException:
        if found is not None and hook is found[1]:
            hook._pruning_methods = hook._pruning_methods[:-1]  # type: ignore[attr-defined]
        raise
    if found is None:
        module.register_parameter(name + "_orig", current)
        del module._parameters[name]
    else:
        del module._forward_pre_hooks[found[0]]
    module.register_buffer(name + "_mask", mask)
    setattr(module, name, method.apply_mask(module))
    module.register_forward_pre_hook(hook)
    return hook


# ---- functional interface ------------------------------------------------------------------
def identity(module: M, name: str) -> M:
    """Give ``module.<name>`` the pruned layout with nothing pruned (a mask of ones)."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: M, name: str, amount: int | float) -> M:
    """Prune ``amount`` randomly chosen entries of ``module.<name>``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: M, name: str, amount: int | float, importance_scores: Tensor | None = None) -> M:
    """Prune the ``amount`` entries of ``module.<name>`` with the smallest absolute importance."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: M, name: str, amount: int | float, dim: int) -> M:
    """Prune ``amount`` random channels of ``module.<name>`` along ``dim``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module: M, name: str, amount: int | float, n: int | float | str, dim: int,
                  importance_scores: Tensor | None = None) -> M:
    """Prune the ``amount`` channels of ``module.<name>`` along ``dim`` with the smallest ``n``-norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module: M, name: str, mask: Tensor) -> M:
    """Prune ``module.<name>`` where ``mask`` is zero."""
    CustomFromMask.apply(module, name, mask=mask)
    return module


def global_unstructured(parameters: Iterable[tuple[Module, str]], pruning_method: type[BasePruningMethod],
                        importance_scores: dict[tuple[Module, str], Tensor] | None = None, **kwargs: Any) -> None:
    """Prune the given ``(module, name)`` tensors as if they were one: e.g. the globally smallest 20% with
    ``L1Unstructured, amount=0.2``; each tensor then gets its share as a custom mask."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    scores_by_param = importance_scores if importance_scores is not None else {}
    if not isinstance(scores_by_param, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    params = list(parameters)
    scores = ember.cat([scores_by_param.get((m, n), getattr(m, n)).reshape(-1) for m, n in params])
    masks = ember.cat([(getattr(m, n + "_mask") if hasattr(m, n + "_mask") else ember.ones_like(getattr(m, n)))
                       .reshape(-1) for m, n in params])
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    # a container restricts the method to the entries still alive across all the tensors
    container = PruningContainer(method)
    final = container.compute_mask(scores, default_mask=masks)
    start = 0
    for m, n in params:
        p = getattr(m, n)
        custom_from_mask(m, n, mask=final[start:start + p.numel()].view(p.shape))
        start += p.numel()


def remove(module: M, name: str) -> M:
    """Make the pruning of ``module.<name>`` permanent: drop the mask, the hook and ``<name>_orig``."""
    found = _pruning_hook(module, name)
    if found is None:
        raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")
    key, hook = found
    hook.remove(module)
    del module._forward_pre_hooks[key]
    return module


def is_pruned(module: Module) -> bool:
    """Whether ``module`` or one of its submodules carries a pruning hook."""
    return any(isinstance(hook, BasePruningMethod)
               for m in module.modules() for hook in m._forward_pre_hooks.values())
