"""The distances and losses PyTorch also exposes at top level (torch.cosine_similarity, torch.kl_div,
torch.ctc_loss, ...), with aten's signatures: losses take an int reduction (0 none, 1 mean, 2 sum).
They are composed in ember-nn and forwarded to it at call time (see _toplevel_nn)."""

from __future__ import annotations

from typing import Any

from ember._tensor import Tensor
from ember._toplevel_nn import _NO_REDUCTION, _nn, _reduce, _reduction

__all__ = ["bilinear", "binary_cross_entropy_with_logits", "cosine_embedding_loss", "cosine_similarity", "ctc_loss",
           "hinge_embedding_loss", "kl_div", "margin_ranking_loss", "pairwise_distance", "pdist", "poisson_nll_loss",
           "triplet_margin_loss"]


# ------------------------------------------------------------------------------------------
# linear maps and distances (composed in ember-nn)
# ------------------------------------------------------------------------------------------


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """Bilinear map ``y[n, o] = x1[n] @ weight[o] @ x2[n] + bias[o]`` of two batches of features.

    Args:
        input1 (Tensor): the first features, ``(*, in1)``.
        input2 (Tensor): the second features, ``(*, in2)``.
        weight (Tensor): ``(out, in1, in2)``.
        bias (Tensor, optional): ``(out,)``.

    Returns:
        Tensor: ``(*, out)``.

    Example::

        >>> w = ember.ones(1, 2, 2)
        >>> ember.bilinear(ember.tensor([[1., 2.]]), ember.tensor([[3., 4.]]), w)
        tensor([[21.]])
    """
    return _nn("bilinear").bilinear(input1, input2, weight, bias)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Cosine of the angle between ``x1`` and ``x2`` along ``dim``, after broadcasting them; each norm
    is clamped below by ``eps``.

    Args:
        x1 (Tensor): the first vectors.
        x2 (Tensor): the second vectors.
        dim (int): the dimension holding the vectors.
        eps (float): the smallest norm used in the division.

    Returns:
        Tensor: the similarities, with ``dim`` removed.

    Example::

        >>> ember.cosine_similarity(ember.tensor([[1., 0.], [1., 1.]]), ember.tensor([[0., 1.], [2., 2.]]))
        tensor([0.0000, 1.0000])
    """
    return _nn("cosine_similarity").cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """The p-norm distance between the rows of ``x1`` and ``x2`` (``eps`` is added to the difference
    so the norm is differentiable at zero).

    Args:
        x1 (Tensor): the first vectors, ``(N, D)`` or ``(D,)``.
        x2 (Tensor): the second vectors, broadcastable to ``x1``.
        p (float): the norm's order.
        eps (float): added to each difference.
        keepdim (bool): keep the last dimension with size 1.

    Returns:
        Tensor: one distance per row.

    Example::

        >>> ember.pairwise_distance(ember.tensor([[0., 0.]]), ember.tensor([[3., 4.]]), eps=0.0)
        tensor([5.])
    """
    return _nn("pairwise_distance").pairwise_distance(x1, x2, p, eps, keepdim)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distances between every pair of rows of an ``(N, M)`` tensor, as the condensed
    upper triangle (row pairs ``(0, 1), (0, 2), ..., (N-2, N-1)``).

    Args:
        input (Tensor): the points, one per row.
        p (float): the norm's order.

    Returns:
        Tensor: ``N * (N - 1) / 2`` distances.

    Example::

        >>> ember.pdist(ember.tensor([[0., 0.], [3., 4.], [6., 8.]]))
        tensor([ 5., 10.,  5.])
    """
    return _nn("pdist").pdist(input, p)


# ------------------------------------------------------------------------------------------
# losses (composed in ember-nn): aten's int reduction, and none of torch.nn.functional's extra checks
# ------------------------------------------------------------------------------------------


def kl_div(input: Tensor, target: Tensor, reduction: int = _NO_REDUCTION, *,
           log_target: bool = False) -> Tensor:
    """Kullback-Leibler divergence with aten's arguments: ``input`` holds log-probabilities and
    ``target`` probabilities (log-probabilities with ``log_target=True``); the pointwise terms are
    ``target * (log(target) - input)``.

    Args:
        input (Tensor): log-probabilities.
        target (Tensor): the reference distribution.
        reduction (int): 0 keeps every term (the default here), 1 takes their mean, 2 their sum.
        log_target (bool): ``target`` is given as log-probabilities.

    Returns:
        Tensor: the terms or their reduction.

    Example::

        >>> p = ember.tensor([0.5, 0.5])
        >>> ember.kl_div(p.log(), p, 2)
        tensor(0.)
    """
    # elementwise in ember-nn, reduced here: aten's 'mean' is a plain mean, with no 'batchmean' warning
    return _reduce(_nn("kl_div").kl_div(input, target, reduction="none", log_target=log_target), reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: int = _NO_REDUCTION) -> Tensor:
    """Binary cross-entropy of ``sigmoid(input)`` against ``target``, computed from the logits in a
    numerically stable way.

    Args:
        input (Tensor): the logits.
        target (Tensor): the labels, in ``[0, 1]``, of ``input``'s shape.
        weight (Tensor, optional): a per-element rescaling, broadcast to ``input``.
        pos_weight (Tensor, optional): the weight of the positive term, per class.
        reduction (int): 0 keeps every term (the default here), 1 takes their mean, 2 their sum.

    Returns:
        Tensor: the losses or their reduction.

    Example::

        >>> ember.binary_cross_entropy_with_logits(ember.tensor([0.0]), ember.tensor([1.0]))
        tensor([0.6931])
    """
    return _nn("binary_cross_entropy_with_logits").binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction(reduction), pos_weight=pos_weight)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    """Negative log-likelihood of ``target`` under a Poisson distribution with rate ``input`` (or
    ``exp(input)`` when ``log_input``), with aten's positional arguments.

    Args:
        input (Tensor): the predicted rates (or their logs).
        target (Tensor): the observed counts.
        log_input (bool): ``input`` holds log-rates.
        full (bool): add the Stirling approximation of ``log(target!)``.
        eps (float): added to the rate before its log when ``log_input`` is False.
        reduction (int): 0 keeps every term, 1 takes their mean, 2 their sum.

    Returns:
        Tensor: the losses or their reduction.

    Example::

        >>> ember.poisson_nll_loss(ember.tensor([0.0]), ember.tensor([1.0]), True, False, 1e-8, 0)
        tensor([1.])
    """
    return _nn("poisson_nll_loss").poisson_nll_loss(input, target, log_input, full, eps=eps,
                                                    reduction=_reduction(reduction))


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2.0,
                        eps: float = 1e-6, swap: bool = False, reduction: int = _NO_REDUCTION) -> Tensor:
    """Triplet loss ``max(d(anchor, positive) - d(anchor, negative) + margin, 0)`` with ``d`` the
    p-norm distance; it pulls the positive closer to the anchor than the negative.

    Args:
        anchor (Tensor): the reference embeddings.
        positive (Tensor): embeddings of the same class.
        negative (Tensor): embeddings of another class.
        margin (float): the required gap between the two distances.
        p (float): the norm's order.
        eps (float): added to each difference.
        swap (bool): use the smaller of ``d(anchor, negative)`` and ``d(positive, negative)``.
        reduction (int): 0 keeps every term (the default here), 1 takes their mean, 2 their sum.

    Returns:
        Tensor: the losses or their reduction.

    Example::

        >>> a, pos, neg = ember.tensor([[0., 0.]]), ember.tensor([[0., 1.]]), ember.tensor([[0., 3.]])
        >>> ember.triplet_margin_loss(a, pos, neg, margin=1.0, eps=0.0)
        tensor([0.])
    """
    ops = _nn("triplet_margin_loss", "ember.nn._functional.loss_embedding_ranking")
    return ops.triplet_margin_loss_op(anchor, positive, negative, margin, p, eps, swap, _reduction(reduction))


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = _NO_REDUCTION) -> Tensor:
    """Ranking loss ``max(0, -target * (input1 - input2) + margin)``: ``target`` (1 or -1) says which
    input should rank higher.

    Args:
        input1 (Tensor): the first scores.
        input2 (Tensor): the second scores.
        target (Tensor): 1 where ``input1`` should be larger, -1 where ``input2`` should.
        margin (float): the required gap.
        reduction (int): 0 keeps every term (the default here), 1 takes their mean, 2 their sum.

    Returns:
        Tensor: the losses or their reduction.

    Example::

        >>> ember.margin_ranking_loss(ember.tensor([1., 1.]), ember.tensor([2., 0.]), ember.tensor([1., 1.]))
        tensor([1., 0.])
    """
    ops = _nn("margin_ranking_loss", "ember.nn._functional.loss_embedding_ranking")
    return ops.margin_ranking_loss_op(input1, input2, target, margin, _reduction(reduction))


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = _NO_REDUCTION) -> Tensor:
    """Embedding loss from cosine similarity: ``1 - cos(x1, x2)`` where ``target`` is 1, and
    ``max(0, cos(x1, x2) - margin)`` where it is -1.

    Args:
        input1 (Tensor): the first embeddings, ``(N, D)`` or ``(D,)``.
        input2 (Tensor): the second embeddings.
        target (Tensor): 1 (similar) or -1 (dissimilar) per pair.
        margin (float): the similarity below which dissimilar pairs cost nothing.
        reduction (int): 0 keeps every term (the default here), 1 takes their mean, 2 their sum.

    Returns:
        Tensor: the losses or their reduction.

    Example::

        >>> x = ember.tensor([[1., 0.]])
        >>> ember.cosine_embedding_loss(x, x, ember.tensor([1.]))
        tensor([0.])
    """
    return _nn("cosine_embedding_loss").cosine_embedding_loss(input1, input2, target, margin,
                                                              reduction=_reduction(reduction))


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         reduction: int = _NO_REDUCTION) -> Tensor:
    """Hinge loss for pairs labelled 1 or -1: ``input`` where ``target`` is 1 and
    ``max(0, margin - input)`` where it is -1 (``input`` is typically a distance).

    Args:
        input (Tensor): the distances.
        target (Tensor): 1 or -1 per element.
        margin (float): the distance dissimilar pairs should exceed.
        reduction (int): 0 keeps every term (the default here), 1 takes their mean, 2 their sum.

    Returns:
        Tensor: the losses or their reduction.

    Example::

        >>> ember.hinge_embedding_loss(ember.tensor([0.3, 0.3]), ember.tensor([1., -1.]))
        tensor([0.3000, 0.7000])
    """
    return _nn("hinge_embedding_loss").hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: int = _NO_REDUCTION, zero_infinity: bool = False) -> Tensor:
    """Connectionist temporal classification loss: the negative log-likelihood of each target
    sequence summed over every alignment of it to the input frames (with ``blank`` between
    repeated labels). Composed in ember-nn.

    Args:
        log_probs (Tensor): ``(T, N, C)`` log-probabilities per frame, batch entry and class.
        targets (Tensor): the label sequences, padded ``(N, S)`` or concatenated.
        input_lengths (sequence of int or Tensor): the number of frames of each batch entry.
        target_lengths (sequence of int or Tensor): the length of each target.
        blank (int): the blank label.
        reduction (int): 0 keeps one loss per batch entry (the default here), 1 averages them
            divided by the target lengths, 2 sums them.
        zero_infinity (bool): replace infinite losses (impossible alignments) by zero.

    Returns:
        Tensor: the losses or their reduction.

    Example::

        >>> lp = ember.full((2, 1, 2), 0.5).log()
        >>> ember.ctc_loss(lp, ember.tensor([[1]]), [2], [1])
        tensor([0.2877])
    """
    return _nn("ctc_loss").ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                                    _reduction(reduction), zero_infinity)
