"""Random benchmark inputs: :class:`Fuzzer` draws parameters, then builds tensors from them.

Needs NumPy (a ``numpy.random.RandomState`` drives every draw, so a seed
reproduces the whole sequence).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import ember

__all__ = ["Fuzzer", "FuzzedParameter", "ParameterAlias", "FuzzedTensor"]

_DISTRIBUTIONS = ("loguniform", "uniform")


def _numpy() -> Any:
    try:
        import numpy
    except ImportError as e:
        raise ImportError("ember.utils.benchmark's Fuzzer needs NumPy: pip install numpy") from e
    return numpy


class FuzzedParameter:
    """A named parameter drawn from a distribution for each fuzzed case.

    ``distribution``: ``"loguniform"`` (integers, uniform in log2 space over
    ``[minval, maxval]``), ``"uniform"`` (integers when both bounds are ints,
    else continuous), or a dict ``{value: probability}`` (probabilities
    summing to 1; ``minval``/``maxval`` must then be None).  A ``strict``
    parameter keeps its first draw while the Fuzzer resamples the others to
    satisfy constraints.
    """

    def __init__(self, name: str, minval: int | float | None = None, maxval: int | float | None = None,
                 distribution: str | dict[Any, float] | None = None, strict: bool = False) -> None:
        self._name = name
        self._minval = minval
        self._maxval = maxval
        self._distribution = self._check_distribution(distribution)
        self.strict = strict

    @property
    def name(self) -> str:
        return self._name

    def sample(self, state: Any) -> Any:
        """Draws one value for this parameter from ``state`` (a numpy RandomState), per its
        distribution."""
        if self._distribution == "loguniform":
            return self._loguniform(state)
        if self._distribution == "uniform":
            return self._uniform(state)
        return self._custom_distribution(state)

    def _check_distribution(self, distribution: Any) -> Any:
        if not isinstance(distribution, dict):
            if distribution not in _DISTRIBUTIONS:
                raise AssertionError(f"Unknown distribution: {distribution}")
            return distribution
        if any(p < 0 for p in distribution.values()):
            raise AssertionError("Probabilities cannot be negative")
        # PyTorch 2.13 inverts this test (it rejects normalized dicts); ember checks what is documented.
        if abs(sum(distribution.values()) - 1) > 1e-5:
            raise AssertionError("Distribution is not normalized")
        if self._minval is not None:
            raise AssertionError("When passing a custom distribution, 'minval' must be None")
        if self._maxval is not None:
            raise AssertionError("When passing a custom distribution, 'maxval' must be None")
        return distribution

    def _loguniform(self, state: Any) -> int:
        np = _numpy()
        value = int(2 ** state.uniform(low=np.log2(self._minval), high=np.log2(self._maxval)))
        # int() truncates and the float draw can land a hair outside: clamp to the bounds.
        return min(max(value, self._minval), self._maxval)  # type: ignore[type-var]

    def _uniform(self, state: Any) -> int | float:
        if isinstance(self._minval, int) and isinstance(self._maxval, int):
            return int(state.randint(low=self._minval, high=self._maxval + 1))
        return state.uniform(low=self._minval, high=self._maxval)

    def _custom_distribution(self, state: Any) -> Any:
        np = _numpy()
        # Draw an index, not a key: numpy would turn the keys into numpy scalars.
        keys = list(self._distribution)
        index = state.choice(np.arange(len(keys)), p=tuple(self._distribution.values()))
        return keys[index]


class ParameterAlias:
    """A parameter value that copies another parameter's (chains allowed, cycles are an error).

    E.g. ``FuzzedParameter("y_len", distribution={1: 0.5, ParameterAlias("x_len"): 0.5})``
    gives ``y`` either length 1 (broadcasting) or the length of ``x``.
    """

    def __init__(self, alias_to: str) -> None:
        self.alias_to = alias_to

    def __repr__(self) -> str:
        return f"ParameterAlias[alias_to: {self.alias_to}]"


def dtype_size(dtype: Any) -> int:
    """Bytes per element of an ember dtype."""
    return int(dtype.itemsize)


def prod(values: Iterable[Any], base: int = 1) -> int:
    """Product in Python ints: NumPy's fixed-width product could overflow and pass a size check."""
    return functools.reduce(lambda x, y: int(x) * int(y), values, base)


class FuzzedTensor:
    """How to build one tensor from the drawn parameters.

    ``size`` and ``steps`` are tuples of ints or parameter names; a tensor of
    ``size * steps`` is allocated and sliced with ``steps``.  With probability
    ``1 - probability_contiguous`` the memory is laid out in a random
    dimension order (permute, ``.contiguous()``, permute back).
    ``dim_parameter`` truncates (or pads with 1) ``size`` to that many dims.
    ``min_elements``/``max_elements``/``max_allocation_bytes`` reject draws.
    ``tensor_constructor(size=..., dtype=..., **params)`` replaces the default
    ``rand`` (floating) / ``randint(1, 127)`` (integer) construction.
    """

    def __init__(self, name: str, size: tuple[str | int, ...], steps: tuple[str | int, ...] | None = None,
                 probability_contiguous: float = 0.5, min_elements: int | None = None,
                 max_elements: int | None = None, max_allocation_bytes: int | None = None,
                 dim_parameter: str | None = None, roll_parameter: str | None = None, dtype: Any = ember.float32,
                 cuda: bool = False, tensor_constructor: Callable[..., Any] | None = None) -> None:
        self._name = name
        self._size = size
        self._steps = steps
        self._probability_contiguous = probability_contiguous
        self._min_elements = min_elements
        self._max_elements = max_elements
        self._max_allocation_bytes = max_allocation_bytes
        self._dim_parameter = dim_parameter
        self._roll_parameter = roll_parameter  # accepted for signature parity; unused, as in PyTorch
        self._dtype = dtype
        self._cuda = cuda
        self._tensor_constructor = tensor_constructor

    @property
    def name(self) -> str:
        return self._name

    @staticmethod
    def default_tensor_constructor(size: tuple[int, ...], dtype: Any, **kwargs: Any) -> Any:
        """Makes a random tensor of ``size`` and ``dtype`` (uniform floats, or integers for integer
        dtypes): the constructor used when none is given."""
        if dtype.is_floating_point or dtype.is_complex:
            return ember.rand(size=size, dtype=dtype, device="cpu")
        randint = getattr(ember, "randint", None)
        if randint is not None:
            return randint(1, 127, size=size, dtype=dtype, device="cpu")
        # Cores without randint: the same uniform integers in [1, 127) from rand.
        return (ember.rand(size=size, dtype=ember.float64, device="cpu") * 126 + 1).floor().to(dtype)

    def _make_tensor(self, params: dict[str, Any], state: Any) -> tuple[Any, dict[str, Any]]:
        np = _numpy()
        size, steps, allocation_size = self._get_size_and_steps(params)
        constructor = self._tensor_constructor or self.default_tensor_constructor
        raw = constructor(size=allocation_size, dtype=self._dtype, **params)
        if self._cuda:
            raw = raw.cuda()

        dim = len(size)
        order = np.arange(dim)
        if state.rand() > self._probability_contiguous:
            # A random memory order other than the identity (1-d tensors have no other).
            while dim > 1 and np.all(order == np.arange(dim)):
                order = state.permutation(raw.dim())
            raw = raw.permute(tuple(int(i) for i in order)).contiguous()
            raw = raw.permute(tuple(int(i) for i in np.argsort(order)))

        tensor = raw[tuple(slice(0, n * step, step) for n, step in zip(size, steps, strict=True))]
        properties = {
            "numel": int(tensor.numel()),
            "order": order,
            "steps": steps,
            "is_contiguous": tensor.is_contiguous(),
            "dtype": str(self._dtype),
        }
        return tensor, properties

    def _get_size_and_steps(self, params: dict[str, Any]) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        dim = params[self._dim_parameter] if self._dim_parameter is not None else len(self._size)

        def resolve(values: tuple[Any, ...]) -> tuple[int, ...]:
            concrete = tuple(params.get(v, v) for v in values)[:dim]
            return concrete + (1,) * (dim - len(concrete))

        size = resolve(self._size)
        steps = resolve(self._steps or ())
        allocation = tuple(n * step for n, step in zip(size, steps, strict=True))
        return size, steps, allocation

    def satisfies_constraints(self, params: dict[str, Any]) -> bool:
        """Whether the drawn ``params`` give a tensor within this spec's size limits (the fuzzer
        draws again otherwise)."""
        size, _, allocation = self._get_size_and_steps(params)
        elements = prod(size)
        if elements < 0:
            raise AssertionError("Computed number of elements is negative")
        allocation_bytes = prod(allocation, base=dtype_size(self._dtype))
        if self._max_elements is not None and elements > self._max_elements:
            return False
        if self._min_elements is not None and elements < self._min_elements:
            return False
        return not (self._max_allocation_bytes is not None and allocation_bytes > self._max_allocation_bytes)


class Fuzzer:
    """Draws parameter sets (resampling until all constraints hold) and builds tensors from them.

    ``parameters`` and ``tensors`` may contain lists (flattened one level).
    ``constraints`` are callables ``params -> bool``.  ``seed`` (random when
    None) seeds a NumPy RandomState and ember's RNG, so ``take`` is reproducible.
    """

    def __init__(self, parameters: list[FuzzedParameter | list[FuzzedParameter]],
                 tensors: list[FuzzedTensor | list[FuzzedTensor]],
                 constraints: list[Callable[[dict[str, Any]], bool]] | None = None,
                 seed: int | None = None) -> None:
        np = _numpy()
        if seed is None:
            seed = int(np.random.RandomState().randint(0, 2**32 - 1, dtype=np.int64))
        self._seed = seed
        self._parameters: tuple[FuzzedParameter, ...] = self._unpack(parameters, FuzzedParameter)
        self._tensors: tuple[FuzzedTensor, ...] = self._unpack(tensors, FuzzedTensor)
        self._constraints = tuple(constraints or ())

        overlap = {p.name for p in self._parameters} & {t.name for t in self._tensors}
        if overlap:
            raise ValueError(f"Duplicate names in parameters and tensors: {overlap}")
        self._rejections = 0
        self._total_generated = 0

    @staticmethod
    def _unpack(values: Iterable[Any], cls: type) -> tuple[Any, ...]:
        return tuple(itertools.chain.from_iterable([v] if isinstance(v, cls) else v for v in values))

    def take(self, n: int) -> Iterator[tuple[dict[str, Any], dict[str, dict[str, Any]], dict[str, Any]]]:
        """Yield ``n`` cases ``(tensors, tensor_properties, params)``, the same ones for the same
        seed."""
        np = _numpy()
        state = np.random.RandomState(self._seed)
        ember.manual_seed(int(state.randint(low=0, high=2**63, dtype=np.int64)))
        for _ in range(n):
            params = self._generate(state)
            tensors: dict[str, Any] = {}
            properties: dict[str, dict[str, Any]] = {}
            for t in self._tensors:
                tensors[t.name], properties[t.name] = t._make_tensor(params, state)
            yield tensors, properties, params

    @property
    def rejection_rate(self) -> float:
        return self._rejections / self._total_generated if self._total_generated else 0.0

    def _generate(self, state: Any) -> dict[str, Any]:
        strict: dict[str, Any] = {}
        for _ in range(1000):
            candidate: dict[str, Any] = {}
            for p in self._parameters:
                if p.strict and p.name in strict:
                    candidate[p.name] = strict[p.name]
                else:
                    candidate[p.name] = p.sample(state)
                    if p.strict:
                        strict[p.name] = candidate[p.name]
            candidate = self._resolve_aliases(candidate)
            self._total_generated += 1
            if all(f(candidate) for f in self._constraints) and all(
                t.satisfies_constraints(candidate) for t in self._tensors
            ):
                return candidate
            self._rejections += 1
        raise ValueError("Failed to generate a set of valid parameters.")

    @staticmethod
    def _resolve_aliases(params: dict[str, Any]) -> dict[str, Any]:
        params = dict(params)
        pending = sum(isinstance(v, ParameterAlias) for v in params.values())
        while pending:
            for k, v in params.items():
                if isinstance(v, ParameterAlias):
                    params[k] = params[v.alias_to]
            still = sum(isinstance(v, ParameterAlias) for v in params.values())
            if still == pending:
                raise ValueError(f"ParameterAlias cycle detected\n{params}")
            pending = still
        return params

