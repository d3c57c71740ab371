"""Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import ember
import ember.nn as nn
import pytest


def test_sequential_indexing_and_editing(torch: Any) -> None:
    a, b, c = nn.Linear(1, 2), nn.ReLU(), nn.Linear(2, 1)
    s = nn.Sequential(a, b, c)
    assert len(s) == 3 and s[0] is a and s[-1] is c and list(s) == [a, b, c]
    sub = s[1:]
    assert isinstance(sub, nn.Sequential) and list(sub._modules) == ["1", "2"]
    with pytest.raises(IndexError):
        s[3]
    s.append(nn.Tanh())
    s.insert(1, nn.Identity())
    assert [type(m).__name__ for m in s] == ["Linear", "Identity", "ReLU", "Linear", "Tanh"]
    del s[1]
    assert list(s._modules) == ["0", "1", "2", "3"]
    s.extend([nn.Sigmoid()])
    assert type(s.pop(-1)).__name__ == "Sigmoid"
    named = nn.Sequential(OrderedDict([("fc", a), ("act", b)]))
    assert named.fc is a and list(named.state_dict()) == ["fc.weight", "fc.bias"]
    assert len(s + named) == len(s) + 2 and len(named * 2) == 4
    y = nn.Sequential(nn.Identity(), nn.ReLU())(ember.tensor([-1.0, 2.0]))
    assert y.tolist() == [0.0, 2.0]


def test_modulelist() -> None:
    ml = nn.ModuleList([nn.Linear(1, 1), nn.ReLU()])
    ml += [nn.Tanh()]
    ml.append(nn.Sigmoid())
    ml.insert(0, nn.Identity())
    assert [type(m).__name__ for m in ml] == ["Identity", "Linear", "ReLU", "Tanh", "Sigmoid"]
    assert isinstance(ml[-1], nn.Sigmoid) and len(ml[1:3]) == 2
    ml[0] = nn.GELU()
    assert isinstance(ml[0], nn.GELU)
    del ml[0]
    assert list(ml._modules) == ["0", "1", "2", "3"]
    assert isinstance(ml.pop(0), nn.Linear)
    assert len(list(nn.ModuleList([nn.Linear(1, 1)] * 2).parameters())) == 2
    with pytest.raises(NotImplementedError):
        ml(1)


def test_moduledict() -> None:
    md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})
    assert list(md.keys()) == ["b", "a"] and "a" in md and len(md) == 2
    md.update([("c", nn.Identity())])
    md["d"] = nn.Linear(1, 1)
    assert list(md) == ["b", "a", "c", "d"]
    assert isinstance(md.pop("a"), nn.Tanh) and "a" not in md
    assert list(md.state_dict()) == ["d.weight", "d.bias"]
    md.clear()
    assert len(md) == 0


def test_parameterlist_and_dict(torch: Any) -> None:
    pl = nn.ParameterList([ember.ones(2), nn.Parameter(ember.zeros(1)), 3])
    assert isinstance(pl[0], nn.Parameter) and pl[2] == 3 and len(pl) == 3
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"]
    tpl = torch.nn.ParameterList([torch.ones(2), torch.nn.Parameter(torch.zeros(1)), 3])
    assert repr(pl) == repr(tpl)
    pl.append(ember.ones(3))
    assert isinstance(pl[-1], nn.Parameter)
    pd = nn.ParameterDict({"w": ember.ones(2), "s": "x"})
    tpd = torch.nn.ParameterDict({"w": torch.ones(2), "s": "x"})
    assert repr(pd) == repr(tpd)
    assert isinstance(pd["w"], nn.Parameter) and pd["s"] == "x" and "w" in pd
    pd["b"] = ember.zeros(1)
    assert list(pd.keys()) == list(tpd.keys()) + ["b"]
    assert [n for n, _ in pd.named_parameters()] == ["w", "b"]
    assert isinstance(pd.pop("b"), nn.Parameter) and len(pd) == 2
