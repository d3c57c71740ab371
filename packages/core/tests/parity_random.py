"""Parity inputs for the random samplers (ops/random.yaml). Values differ between two
generators, so every case compares dtype and shape only (meta); test_random.py checks the
streams value for value against PyTorch under a shared seed."""

from __future__ import annotations

from typing import Any

import parity_inputs as H

T, DT, Case = H.T, H.DT, H.Case


def C(id: str, *args: Any, m: bool = False, ip: bool = False, out: bool = False, **kwargs: Any) -> Case:
    return Case(id, args, kwargs, method=m, inplace=ip, out=out, meta=True)


def factory(*lead: Any) -> Any:
    def build(op: dict) -> list:
        return [C("size", *lead, (2, 3), out=True), C("float64", *lead, (2, 3), dtype=DT("float64")),
                C("empty", *lead, (0, 3))]
    return build


def like(*rest: Any) -> Any:
    def build(op: dict) -> list:
        return [C("float32", T((3, 4)), *rest), C("t", T((3, 4), view="t"), *rest),
                C("float64", T((3, 4)), *rest, dtype=DT("float64"))]
    return build


def in_place(*rest: Any) -> Any:
    def build(op: dict) -> list:
        return [C("float32", T((3, 4)), *rest), C("float64", T((5,), "float64"), *rest),
                C("t", T((3, 4), view="t"), *rest)]
    return build


POS = "positive"
PROBS = T((3, 4), values=(0.0, 1.0, 0.5, 0.25) * 3)  # probabilities in [0, 1]
BUILDERS = {
    "rand": factory(), "randn": factory(), "randint": factory(5), "randint.low": factory(-3, 5),
    "randperm": lambda op: [C("n5", 5, out=True), C("float32", 4, dtype=DT("float32")), C("n0", 0)],
    "normal.float_float": factory(1.0, 2.0),
    "rand_like": like(), "randn_like": like(), "randint_like": like(7),
    "randint_like.low_dtype": like(2, 7),
    "normal.Tensor_Tensor": lambda op: [C("tt", T((3,)), T((3,), dom=POS), out=True),
                                        C("broadcast", T((2, 3)), T((3,), dom=POS))],
    "normal.Tensor_float": lambda op: [C("tf", T((3,)), 2.0, out=True)],
    "normal.float_Tensor": lambda op: [C("ft", 1.0, T((3,), dom=POS), out=True)],
    "bernoulli": lambda op: [C("probs", PROBS, m=True, out=True)],
    "bernoulli.p": lambda op: [C("p", T((3, 4)), 0.5, m=True)],
    "multinomial": lambda op: [C("rows", T((2, 4), dom=POS), 3, True, m=True, out=True),
                               C("1d", T((4,), dom=POS), 2, m=True)],
    "poisson": lambda op: [C("rates", T((5,), dom=POS))],
    "uniform_": in_place(0.0, 2.0), "normal_": in_place(1.0, 3.0), "cauchy_": in_place(),
    "log_normal_": in_place(), "exponential_": in_place(2.0), "geometric_": in_place(0.3),
    "random_": in_place(), "random_.to": in_place(10), "random_.from": in_place(2, 10),
    "bernoulli_.Tensor": lambda op: [C("p", T((3, 4)), PROBS)],
    "bernoulli_.float": in_place(0.25),
}
