"""A small training loop written as PyTorch code (`import ember as torch`), for test_typing.py:
mypy --strict must find no error in it, with ember's generated stub and py.typed."""

import ember as torch
import ember.nn as nn
import ember.nn.functional as F


def make_data(n: int) -> tuple[torch.Tensor, torch.Tensor]:
    x = torch.randn(n, 4)
    w = torch.tensor([[1.0], [-2.0], [0.5], [3.0]])
    y = x @ w + 0.1 * torch.randn(n, 1)
    return x, y


def train(steps: int = 20) -> float:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = make_data(64)
    loss = torch.zeros(())
    for _ in range(steps):
        opt.zero_grad()
        pred = model(x)
        loss = F.mse_loss(pred, y)
        loss.backward()
        opt.step()
    with torch.no_grad():
        total = torch.add(x.sum(dim=0), 1, alpha=2).view(-1).mean()
        flat: torch.Tensor = x.reshape(-1).clamp(min=-1.0, max=1.0)
        assert flat.shape[0] == x.numel() and total.dtype == torch.float32
    return float(loss.item())


if __name__ == "__main__":
    print(train())
