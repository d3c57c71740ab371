"""User script: a small ResNet-style CNN (residual blocks, SGD+nesterov, OneCycleLR, label smoothing,
gradient clipping, CPU bfloat16 autocast) under torch and ember."""

from __future__ import annotations

from typing import Any

import ember
import numpy as np
import pytest
from _user_scripts_util import assert_runs_match


def _resnet_script(lib: Any, x_np: np.ndarray, y_np: np.ndarray, steps: int = 8, amp: bool = False,
                   sched: str = "onecycle") -> dict[str, Any]:
    torch = lib
    nn = torch.nn
    F = torch.nn.functional

    class BasicBlock(nn.Module):
        expansion = 1

        def __init__(self, in_planes: int, planes: int, stride: int = 1) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding="same", bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.shortcut = nn.Sequential()
            if stride != 1 or in_planes != planes:
                self.shortcut = nn.Sequential(nn.Conv2d(in_planes, planes, 1, stride=stride, bias=False),
                                              nn.BatchNorm2d(planes))

        def forward(self, x: Any) -> Any:
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += self.shortcut(x)
            return F.relu(out)

    class ResNet(nn.Module):
        def __init__(self, num_blocks: list[int], num_classes: int = 10) -> None:
            super().__init__()
            self.in_planes = 8
            self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
                                      nn.MaxPool2d(kernel_size=2, stride=2, ceil_mode=True))
            self.layer1 = self._make_layer(8, num_blocks[0], stride=1)
            self.layer2 = self._make_layer(16, num_blocks[1], stride=2)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.dropout = nn.Dropout(p=0.0)
            self.fc = nn.Linear(16 * BasicBlock.expansion, num_classes)
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)

        def _make_layer(self, planes: int, n: int, stride: int) -> Any:
            layers = []
            for s in [stride] + [1] * (n - 1):
                layers.append(BasicBlock(self.in_planes, planes, s))
                self.in_planes = planes * BasicBlock.expansion
            return nn.Sequential(*layers)

        def forward(self, x: Any) -> Any:
            x = self.stem(x)
            x = self.layer2(self.layer1(x))
            x = torch.flatten(self.avgpool(x), 1)
            return self.fc(self.dropout(x))

    torch.manual_seed(3)
    model = ResNet([1, 2]).to(memory_format=torch.channels_last) if not amp else ResNet([1, 1])
    decay, no_decay = [], []
    for _name, p in model.named_parameters():
        (no_decay if p.ndim <= 1 else decay).append(p)
    optimizer = torch.optim.SGD([{"params": decay, "weight_decay": 5e-4}, {"params": no_decay, "weight_decay": 0.0}],
                                lr=0.05, momentum=0.9, nesterov=True)
    if sched == "onecycle":
        scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=steps, pct_start=0.3,
                                                        anneal_strategy="cos", div_factor=10.0)
    else:
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps, eta_min=1e-4)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    ds = torch.utils.data.TensorDataset(torch.from_numpy(x_np), torch.from_numpy(y_np))
    loader = torch.utils.data.DataLoader(ds, batch_size=8, shuffle=False, drop_last=True)
    losses: list[float] = []
    step = 0
    while step < steps:
        for inputs, targets in loader:
            model.train()
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
                outputs = model(inputs.contiguous(memory_format=torch.channels_last))
                loss = criterion(outputs, targets)
            loss.backward()
            gn = nn.utils.clip_grad_norm_(model.parameters(), max_norm=2.0, norm_type=2.0)
            optimizer.step()
            scheduler.step()
            _, predicted = outputs.max(1)
            acc = predicted.eq(targets).sum().item() / targets.size(0)
            losses += [loss.item(), float(gn), acc, scheduler.get_last_lr()[0]]
            step += 1
            if step == steps:
                break
    model.eval()
    with torch.inference_mode():
        logits = model(torch.from_numpy(x_np[:8]))
    return {"losses": losses, "params": {**model.state_dict(), "logits": logits}}


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    return rng.normal(size=(32, 3, 16, 16)).astype(np.float32), rng.integers(0, 10, size=32)


@pytest.mark.parametrize("sched", ["onecycle", "cosine"])
def test_resnet_fp32_matches_torch(sched: str) -> None:
    torch = pytest.importorskip("torch")
    x, y = _data()
    assert_runs_match(_resnet_script(ember, x, y, sched=sched), _resnet_script(torch, x, y, sched=sched),
                      rtol=2e-4)


def test_resnet_bf16_autocast_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    x, y = _data()
    # bfloat16 matmuls: compare loosely, the point is that the autocast script runs the same way.
    assert_runs_match(_resnet_script(ember, x, y, steps=4, amp=True), _resnet_script(torch, x, y, steps=4, amp=True),
                      rtol=3e-2, atol=3e-2)
