"""``nn.LinearCrossEntropyOptions``: how ``F.linear_cross_entropy`` chunks its batch (PyTorch's
fields, defaults, validation and resolution of the ``"auto"`` picks)."""

from __future__ import annotations

import dataclasses
from typing import Any

import ember

__all__ = ["LinearCrossEntropyOptions"]

# PyTorch's per-(device type, input dtype) picks for "auto": (acc_policy, chunking_method)
_AUTO_DEFAULTS = {("cpu", "bfloat16"): ("accurate", "aspect_ratio"),
                  ("cpu", "float16"): ("accurate", "aspect_ratio"),
                  ("cuda", "bfloat16"): ("compact", "aspect_ratio:2"),
                  ("cuda", "float16"): ("compact", "aspect_ratio:2")}
_AUTO_FALLBACK = ("compact", "aspect_ratio:2")


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Configuration of the chunked path of :func:`ember.nn.functional.linear_cross_entropy`.

    The chunked path computes the loss ``batch_chunk_size`` rows at a time, so the whole
    ``(N, C)`` logits tensor never exists at once: useful when the number of classes is much
    larger than ``in_features`` (a language model's vocabulary head). ``options=None`` runs
    the reference path (``linear`` then ``cross_entropy``).

    Args:
        allow_retain_graph (bool): allow a second ``backward`` through the same graph (with
            ``retain_graph=True``); without it a second backward raises, as in PyTorch.
        batch_chunk_size (int, optional): rows per chunk; ``None``: from ``chunking_method``.
        chunking_method (str, optional): ``"auto"``, ``"aspect_ratio"`` or ``"aspect_ratio:N"``
            (chunks whose logits take as much memory as the input, divided by ``N``), or ``None``
            to use ``batch_chunk_size``.
        acc_policy (str): ``"auto"``, ``"accurate"``, ``"balanced"`` or ``"compact"``: which
            intermediates are kept in ``acc_dtype``.
        acc_dtype (ember.dtype, optional): the dtype the logits are accumulated in; ``None``:
            float32 for float16/bfloat16 inputs under ``"auto"``, else the input's dtype.

    Example::

        >>> LinearCrossEntropyOptions(batch_chunk_size=4).batch_chunk_size
        4
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"  # "accurate", "balanced", "compact" or "auto"
    acc_dtype: Any = None

    def __post_init__(self) -> None:
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not (name == "aspect_ratio" and (factor if sep else "1").isdigit() and int(factor if sep else "1") > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None
                or (isinstance(self.batch_chunk_size, int) and self.batch_chunk_size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in (ember.float16, ember.bfloat16, ember.float32,
                                                                 ember.float64):
            raise ValueError(f"acc_dtype must be one of {{None, ember.float16, ember.bfloat16, ember.float32, "
                             f"ember.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op pick "
                             "automatically.")

    @staticmethod
    def _chunk_for(method: str, num_batches: int, in_features: int, num_classes: int) -> int:
        factor = int(method.split(":", 1)[1]) if ":" in method else 1
        per_chunk = -(-num_batches // -(-num_classes // max(in_features, 1)))  # ceil(N / ceil(C / in))
        return min((1 << (per_chunk - 1).bit_length()) // factor, num_batches)

    def _adjust(self, num_batches: int, in_features: int, num_classes: int, dtype: Any,
                device: Any = None) -> LinearCrossEntropyOptions:
        """The options with every ``"auto"`` and ``None`` resolved for one call (PyTorch's rules)."""
        acc_policy: str = self.acc_policy
        chunking_method = self.chunking_method
        if chunking_method == "auto" and self.batch_chunk_size is not None:
            chunking_method = None  # an explicit chunk size wins over the heuristic
        if "auto" in (acc_policy, chunking_method):
            key = (device.type, str(dtype).split(".")[-1]) if device is not None else None
            ap, cm = _AUTO_DEFAULTS.get(key, _AUTO_FALLBACK) if key else _AUTO_FALLBACK
            acc_policy = ap if acc_policy == "auto" else acc_policy
            chunking_method = cm if chunking_method == "auto" else chunking_method
        chunk = num_batches if self.batch_chunk_size is None else min(self.batch_chunk_size, num_batches)
        if chunking_method is not None:
            chunk = self._chunk_for(chunking_method, num_batches, in_features, num_classes)
            if self.batch_chunk_size is not None and self.batch_chunk_size != chunk:
                raise ValueError(f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method "
                                 f"('{chunking_method}') give different chunk sizes ({self.batch_chunk_size} vs "
                                 f"{chunk}); pass only one.")
        acc_dtype = self.acc_dtype
        if acc_dtype is None:
            low = dtype in (ember.float16, ember.bfloat16) and device is not None and device.type == "cpu"
            acc_dtype = ember.float32 if self.acc_policy == "auto" and low else dtype
        return dataclasses.replace(self, acc_policy=acc_policy, chunking_method=chunking_method,
                                   batch_chunk_size=max(1, chunk), acc_dtype=acc_dtype)
