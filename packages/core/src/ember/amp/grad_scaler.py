"""``ember.amp.GradScaler``: loss scaling with PyTorch's growth/backoff rules and messages."""

from __future__ import annotations

import warnings
from collections import defaultdict
from enum import Enum
from typing import Any

import ember


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state() -> dict[str, Any]:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class _MultiDeviceReplicator:
    """Lazily serves copies of a master tensor on the devices asked for (PyTorch's helper)."""

    def __init__(self, master_tensor: Any) -> None:
        self.master = master_tensor
        self._per_device_tensors: dict[Any, Any] = {}

    def get(self, device: Any) -> Any:
        retval = self._per_device_tensors.get(device, None)
        if retval is None:
            # a copy to the CPU blocks: an asynchronous one (pinned) could be read before it lands
            retval = self.master.to(device=device, non_blocking=device.type != "cpu", copy=True)
            self._per_device_tensors[device] = retval
        return retval


def _amp_foreach_non_finite_check_and_unscale_(grads: list, found_inf: Any, inv_scale: Any) -> None:
    """grads *= inv_scale in place; found_inf becomes 1.0 if any grad holds inf or NaN."""
    for g in grads:
        if not bool(ember.isfinite(g).all()):
            found_inf.fill_(1.0)
        g.mul_(inv_scale)


def _amp_update_scale_(scale: Any, growth_tracker: Any, found_inf: Any, growth_factor: float,
                       backoff_factor: float, growth_interval: int) -> Any:
    """Back off on a non-finite step; grow after ``growth_interval`` clean steps in a row (when
    finite)."""
    if float(found_inf.item()) != 0:
        scale.mul_(backoff_factor)
        growth_tracker.fill_(0)
        return scale
    successful = int(growth_tracker.item()) + 1
    if successful == growth_interval:
        grown = scale * growth_factor
        if bool(ember.isfinite(grown).all()):
            scale.copy_(grown)
        growth_tracker.fill_(0)
    else:
        growth_tracker.fill_(successful)
    return scale


class GradScaler:
    """Scale the loss so small gradients survive low precision; unscale before the optimizer step.
    ``device`` is where the scale lives (the device of the first outputs scaled); a ``"cuda"`` scaler
    disables itself, with PyTorch's warning, when no CUDA device is available."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled:
            from ember.cuda.amp.common import amp_definitely_not_available

            if amp_definitely_not_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                              stacklevel=2)
                self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: Any = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: Any = None
            self._per_optimizer_states: defaultdict = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname: str) -> tuple[Any, Any]:
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev: Any) -> None:
        if self._growth_tracker is not None:
            raise AssertionError("_growth_tracker initialized before _scale")
        self._scale = ember.full((), self._init_scale, dtype=ember.float32, device=dev)
        self._growth_tracker = ember.full((), self._init_growth_tracker, dtype=ember.int32, device=dev)

    def scale(self, outputs: Any) -> Any:
        """outputs * scale (a tensor, or an iterable of them, kept in its container type)."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, ember.Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device, non_blocking=outputs.device.type != "cpu")

        stash: list[_MultiDeviceReplicator] = []  # one copy of the scale per device the outputs are on

        def apply_scale(val: Any) -> Any:
            if isinstance(val, ember.Tensor):
                if not stash:
                    if self._scale is None:
                        self._lazy_init_scale_growth_tracker(val.device)
                    stash.append(_MultiDeviceReplicator(self._scale))
                return val * stash[0].get(val.device)
            if isinstance(val, (list, tuple)):
                return type(val)(apply_scale(v) for v in val)
            if hasattr(val, "__iter__"):
                return map(apply_scale, val)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer: Any, inv_scale: Any, found_inf: Any, allow_fp16: bool) -> dict:
        per_device_inv_scale = _MultiDeviceReplicator(inv_scale)
        per_device_found_inf = _MultiDeviceReplicator(found_inf)
        per_device_and_dtype_grads: dict[Any, dict[Any, list]] = defaultdict(lambda: defaultdict(list))
        with ember.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if not allow_fp16 and param.grad.dtype == ember.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    per_device_and_dtype_grads[param.grad.device][param.grad.dtype].append(param.grad)
            for device, per_dtype_grads in per_device_and_dtype_grads.items():
                for grads in per_dtype_grads.values():
                    _amp_foreach_non_finite_check_and_unscale_(grads, per_device_found_inf.get(device),
                                                               per_device_inv_scale.get(device))
        return per_device_found_inf._per_device_tensors

    def unscale_(self, optimizer: Any) -> None:
        """Divide this optimizer's gradients by the scale (once per step), recording inf/NaN."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = ember.full((), 1.0 / float(self._scale.double().item()), dtype=ember.float32,
                               device=self._scale.device)
        found_inf = ember.full((), 0.0, dtype=ember.float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscale (if not done yet) and step, unless a gradient held inf or NaN (then skip)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale: Any = None) -> None:
        """Set the scale for the next iteration: ``new_scale``, or grown/backed off from this one."""
        if not self._enabled:
            return
        _scale, _growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or torch.FloatTensor "
                          "with requires_grad=False.")
                if not isinstance(new_scale, ember.Tensor) or new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                self._scale.copy_(new_scale)
        else:
            blocking = _scale.device.type == "cpu"  # an asynchronous copy to the CPU could be read too early
            found_infs = [f.to(device=_scale.device, non_blocking=not blocking)
                          for s in self._per_optimizer_states.values() for f in s["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            found_inf_combined = found_infs[0]
            for f in found_infs[1:]:
                found_inf_combined = found_inf_combined + f
            _amp_update_scale_(_scale, _growth_tracker, found_inf_combined, self._growth_factor,
                               self._backoff_factor, self._growth_interval)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self) -> Any:
        return self._scale

    def get_scale(self) -> float:
        """The current loss scale (1.0 when the scaler is disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self) -> float:
        """The factor the scale is multiplied by after ``growth_interval`` steps without inf/NaN."""
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Sets the factor the scale grows by."""
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        """The factor the scale is multiplied by after a step with inf/NaN gradients."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Sets the factor the scale shrinks by."""
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        """How many consecutive steps without inf/NaN gradients make the scale grow."""
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Sets how many clean steps make the scale grow."""
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker.item())

    def is_enabled(self) -> bool:
        """Whether the scaler scales (else its methods pass through)."""
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """The scale, the factors, the interval and the count of clean steps, for checkpoints."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restores what ``state_dict`` returned."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        if self._enabled:
            state["_per_optimizer_states"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self._enabled:
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)
