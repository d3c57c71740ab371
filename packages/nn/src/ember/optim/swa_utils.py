"""Stochastic weight averaging and EMA (as ``torch.optim.swa_utils``): ``AveragedModel``
keeps a running average of a model's parameters, ``SWALR`` anneals the learning rate to a
constant SWA rate, ``update_bn`` recomputes BatchNorm statistics for the averaged weights."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any

import ember
from ember import Tensor
from ember.nn.modules.module import Module
from ember.nn.modules.normalization import _BatchNorm
from ember.optim.lr_scheduler import LRScheduler
from ember.optim.optimizer import Optimizer

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]

ParamList = list[Tensor] | tuple[Tensor, ...]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable[[ParamList, ParamList, Any], None]:
    """EMA over whole parameter lists: ema = decay * ema + (1 - decay) * current."""
    _check_decay(decay)

    def ema_update(ema_param_list: ParamList, current_param_list: ParamList, _: Any) -> None:
        with ember.no_grad():
            if ema_param_list[0].is_floating_point():
                ember._foreach_lerp_(ema_param_list, current_param_list, 1 - decay)
            else:
                for p_ema, p_model in zip(ema_param_list, current_param_list, strict=False):
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable[[ParamList, ParamList, Any], None]:
    """Running mean over whole parameter lists: avg += (current - avg) / (n + 1)."""

    def swa_update(averaged_param_list: ParamList, current_param_list: ParamList, num_averaged: Any) -> None:
        with ember.no_grad():
            if averaged_param_list[0].is_floating_point():
                ember._foreach_lerp_(averaged_param_list, current_param_list, float(1 / (num_averaged + 1)))
            else:
                diffs = ember._foreach_sub(current_param_list, averaged_param_list)
                ember._foreach_add_(averaged_param_list, list(diffs), alpha=1.0 / (float(num_averaged) + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable[[Tensor, Tensor, Any], Tensor]:
    """EMA of one parameter (returns the new average)."""
    _check_decay(decay)

    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        with ember.no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable[[Tensor, Tensor, Any], Tensor]:
    """Running mean of one parameter (returns the new average)."""

    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        with ember.no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters track an average (SWA by default, or ``avg_fn`` /
    ``multi_avg_fn``, e.g. EMA) of ``model``'s, updated by :meth:`update_parameters`."""

    def __init__(self, model: Module, device: Any = None, avg_fn: Callable[..., Tensor] | None = None,
                 multi_avg_fn: Callable[..., None] | None = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", ember.tensor(0, dtype=ember.long))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current parameters (and buffers, with use_buffers) into the average."""
        self_param = (itertools.chain(self.module.parameters(), self.module.buffers()) if self.use_buffers
                      else self.parameters())
        model_param = itertools.chain(model.parameters(), model.buffers()) if self.use_buffers else model.parameters()
        averaged: list[Tensor] = []
        current: list[Tensor] = []
        first = int(self.n_averaged) == 0
        for p_averaged, p_model in zip(self_param, model_param, strict=False):
            p_model_ = p_model.detach()
            averaged.append(p_averaged.detach())
            current.append(p_model_)
            if first:
                with ember.no_grad():
                    p_averaged.detach().copy_(p_model_)
        if not first:
            n = self.n_averaged.clone()
            if self.multi_avg_fn is not None:
                # One call per dtype group (the lists must be homogeneous).
                groups: dict[Any, tuple[list[Tensor], list[Tensor]]] = {}
                for a, c in zip(averaged, current, strict=False):
                    g = groups.setdefault(a.dtype, ([], []))
                    g[0].append(a)
                    g[1].append(c)
                for avg_list, cur_list in groups.values():
                    self.multi_avg_fn(avg_list, cur_list, n)
            else:
                # torch on CPU averages one tensor at a time (get_swa_avg_fn by default).
                fn = self.avg_fn or get_swa_avg_fn()
                with ember.no_grad():
                    for a, c in zip(averaged, current, strict=False):
                        a.copy_(fn(a, c, n))
        if not self.use_buffers:
            # Buffers (e.g. BatchNorm statistics) are copied, not averaged.
            with ember.no_grad():
                for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=False):
                    b_swa.detach().copy_(b_model.detach())
        with ember.no_grad():
            self.n_averaged += 1


def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recompute every BatchNorm's running statistics with one pass over ``loader``."""
    with ember.no_grad():
        momenta: dict[Module, Any] = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None  # a cumulative average over the whole pass
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
        for bn_module, momentum in momenta.items():
            bn_module.momentum = momentum
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to ``swa_lr`` over ``anneal_epochs`` (cos or linear),
    then hold it there."""

    def __init__(self, optimizer: Optimizer, swa_lr: float | list[float], anneal_epochs: int = 10,
                 anneal_strategy: str = "cos", last_epoch: int = -1) -> None:
        swa_lrs = list(swa_lr) if isinstance(swa_lr, (list, tuple)) else [swa_lr] * len(optimizer.param_groups)
        if len(swa_lrs) != len(optimizer.param_groups):
            raise ValueError(f"swa_lr must have the same length as optimizer.param_groups: swa_lr has "
                             f"{len(swa_lrs)}, optimizer.param_groups has {len(optimizer.param_groups)}")
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=False):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        # Invert lr = swa_lr * alpha + lr0 * (1 - alpha) for the rate before annealing.
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[float]:
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        groups = self.optimizer.param_groups
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(groups, prev_lrs, strict=True)]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
