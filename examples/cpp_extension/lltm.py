"""The LLTM cell from lltm.cpp inside ember.autograd.Function: gradcheck, then a short training.

    python lltm.py            # JIT build with ember.utils.cpp_extension.load (cached)
    python lltm.py --setup    # use the module built by `python setup.py build_ext --inplace`
"""

from __future__ import annotations

import math
import os
import sys
import time

import ember as torch
from ember.utils.cpp_extension import load

HERE = os.path.dirname(os.path.abspath(__file__))


def build() -> object:
    if "--setup" in sys.argv:
        sys.path.insert(0, HERE)
        import lltm_cpp  # type: ignore[import-not-found]

        return lltm_cpp
    return load(name="lltm_cpp", sources=[os.path.join(HERE, "lltm.cpp")], verbose=False)


lltm_cpp = build()


class LLTMFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weights, bias, old_h, old_cell):  # type: ignore[no-untyped-def]
        outputs = lltm_cpp.forward(input, weights, bias, old_h, old_cell)
        new_h, new_cell = outputs[:2]
        ctx.save_for_backward(*outputs[1:], weights)
        return new_h, new_cell

    @staticmethod
    def backward(ctx, grad_h, grad_cell):  # type: ignore[no-untyped-def]
        d_old_h, d_input, d_weights, d_bias, d_old_cell = lltm_cpp.backward(
            grad_h.contiguous(), grad_cell.contiguous(), *ctx.saved_tensors)
        return d_input, d_weights, d_bias, d_old_h, d_old_cell


class LLTM(torch.nn.Module):
    def __init__(self, input_features: int, state_size: int) -> None:
        super().__init__()
        self.state_size = state_size
        self.weights = torch.nn.Parameter(torch.empty(3 * state_size, input_features + state_size))
        self.bias = torch.nn.Parameter(torch.empty(3 * state_size))
        stdv = 1.0 / math.sqrt(state_size)
        for p in self.parameters():
            p.data.uniform_(-stdv, stdv)

    def forward(self, input, state):  # type: ignore[no-untyped-def]
        return LLTMFunction.apply(input, self.weights, self.bias, *state)


def main() -> None:
    torch.manual_seed(0)
    batch, features, state = 4, 6, 5
    args = [torch.randn(batch, features, dtype=torch.float64),
            torch.randn(3 * state, features + state, dtype=torch.float64),
            torch.randn(3 * state, dtype=torch.float64),
            torch.randn(batch, state, dtype=torch.float64),
            torch.randn(batch, state, dtype=torch.float64)]
    args = [a.requires_grad_() for a in args]
    print("gradcheck:", torch.autograd.gradcheck(LLTMFunction.apply, args))

    model = LLTM(features, state)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    x = torch.randn(32, features)
    h, c = torch.zeros(32, state), torch.zeros(32, state)
    target = torch.tanh(x[:, :state])
    start = time.perf_counter()
    for step in range(100):
        opt.zero_grad()
        new_h, _ = model(x, (h, c))
        loss = ((new_h - target) ** 2).mean()
        loss.backward()
        opt.step()
        if step % 25 == 0 or step == 99:
            print(f"step {step:3d}  loss {loss.item():.4f}")
    print(f"100 steps in {time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    main()
