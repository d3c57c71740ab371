"""End to end: an MLP trained for a few steps matches torch (model, loss, optimizer, scheduler, clipping)."""

from __future__ import annotations

from typing import Any

import ember
import numpy as np
from _nn_testutil import close, copy_params


def _build(lib: Any) -> tuple[Any, Any, Any, Any]:
    nn = lib.nn
    model = nn.Sequential(nn.Linear(5, 8), nn.GELU(), nn.LayerNorm(8), nn.Linear(8, 8), nn.SiLU(), nn.Linear(8, 3))
    opt = lib.optim.AdamW(model.parameters(), lr=0.05, weight_decay=0.1)
    sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=6)
    return model, nn.CrossEntropyLoss(label_smoothing=0.1), opt, sched


def test_training_loop_matches_torch(torch: Any) -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(16, 5)).astype("float32")
    y = rng.integers(0, 3, size=16)
    mt, lt, ot, st = _build(torch)
    me, le, oe, se = _build(ember)
    copy_params(mt, me)
    xe, xt = ember.from_numpy(x), torch.from_numpy(x)
    ye, yt = ember.tensor(y.tolist()), torch.from_numpy(y)
    for _ in range(5):
        sides = ((me, le, oe, se, ember, xe, ye), (mt, lt, ot, st, torch, xt, yt))
        for model, loss_fn, opt, sched, lib, xx, yy in sides:
            opt.zero_grad()
            loss = loss_fn(model(xx), yy)
            loss.backward()
            lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
        assert se.get_last_lr() == st.get_last_lr()
    for (_, pe), (_, pt) in zip(me.named_parameters(), mt.named_parameters(), strict=True):
        close(pe, pt, atol=1e-5)
    close(le(me(xe), ye), lt(mt(xt), yt), atol=1e-5)
