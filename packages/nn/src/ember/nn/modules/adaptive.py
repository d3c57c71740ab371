"""AdaptiveLogSoftmaxWithLoss: the efficient softmax approximation of Grave et al. (2016), as
PyTorch's module -- a head over the frequent classes plus one token per cluster of the rest,
each cluster a two-layer projection of smaller width (``in_features / div_value**(i+1)``)."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from typing import Any

import ember
from ember import Tensor
from ember.nn import functional as F
from ember.nn.modules.container import ModuleList, Sequential
from ember.nn.modules.linear import Linear
from ember.nn.modules.module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Log-probabilities of the targets through a head (the ``cutoffs[0]`` frequent classes and one
    entry per cluster) and the clusters' tails; ``forward(input, target)`` returns
    ``(output, loss)``: each row's target log-probability and their negated mean.

    Args:
        in_features (int): the input's features.
        n_classes (int): the number of classes.
        cutoffs (Sequence[int]): increasing class boundaries of the clusters, in (0, n_classes).
        div_value (float): each cluster's width is the previous one's divided by this.
        head_bias (bool): whether the head has a bias.
    """

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int], div_value: float = 4.0,
                 head_bias: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features, self.n_classes, self.div_value, self.head_bias = in_features, n_classes, div_value, head_bias
        self.cutoffs = cutoffs + [n_classes]
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        kw = {"device": device, "dtype": dtype}
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            width = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, width, bias=False, **kw),
                                        Linear(width, size, bias=False, **kw)))

    def reset_parameters(self) -> None:
        """Re-initialise the head and every tail projection (Linear's initialisation)."""
        self.head.reset_parameters()
        for projection in self.tail:
            for layer in projection.children():
                layer.reset_parameters()  # type: ignore[operator]

    def forward(self, input_: Tensor, target_: Tensor) -> Any:
        if target_.dim() == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{input_.size()}")
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        rows = target.size(0)
        output = input.new_zeros(rows)
        head_index = target.new_empty(rows)  # each row's entry in the head: its class, or its cluster's
        covered = 0
        bounds = [0] + self.cutoffs
        for i in range(len(bounds) - 1):
            low, high = bounds[i], bounds[i + 1]
            in_range: Tensor = (target >= low) & (target < high)  # type: ignore[assignment]
            row_indices = in_range.nonzero().squeeze(1)
            if row_indices.numel() == 0:
                continue
            if i == 0:
                head_index.index_copy_(0, row_indices, target[in_range])
            else:
                cluster_logprob = F.log_softmax(self.tail[i - 1](input.index_select(0, row_indices)), dim=1)
                local = cluster_logprob.gather(1, (target[in_range] - low).unsqueeze(1))
                head_index.index_fill_(0, row_indices, self.shortlist_size + i - 1)
                output.index_copy_(0, row_indices, local.squeeze(1))
            covered += row_indices.numel()
        if covered != rows:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min().item()}, {target.max().item()}] were found. ")
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = output + head_logprob.gather(1, head_index.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _get_full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        """Every class's log-probability: the head's for the shortlist, a cluster's plus its head entry's."""
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, : self.shortlist_size] = head_logprob[:, : self.shortlist_size]
        for i, (start, stop) in enumerate(zip(self.cutoffs, self.cutoffs[1:])):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start:stop] = cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1)
        return out

    def log_prob(self, input: Tensor) -> Tensor:
        """The log-probability of every class for each row of a (batch, in_features) input."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """Each row's most probable class (the full distribution computed only where the head's best
        entry is a cluster)."""
        head_output = self.head(input)
        output = ember.argmax(head_output, dim=1)
        elsewhere = output >= self.shortlist_size
        if bool(elsewhere.all()):
            return ember.argmax(self._get_full_log_prob(input, head_output), dim=1)
        if bool(elsewhere.any()):
            output[elsewhere] = ember.argmax(self._get_full_log_prob(input[elsewhere], head_output[elsewhere]), dim=1)
        return output
