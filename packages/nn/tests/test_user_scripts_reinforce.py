"""User script: REINFORCE with a baseline on a toy environment (Categorical sample/log_prob/entropy,
discounted returns, normalisation, RMSprop/Adam, StepLR), under torch and ember."""

from __future__ import annotations

from typing import Any

import ember
import numpy as np
import pytest
from _user_scripts_util import assert_runs_match


class _ChainEnv:
    """Plain-Python environment: walk a chain of 6 cells, reward at the right end; deterministic."""

    def __init__(self, n: int = 6) -> None:
        self.n, self.pos, self.t = n, 0, 0

    def reset(self) -> list[float]:
        self.pos, self.t = 0, 0
        return self._obs()

    def _obs(self) -> list[float]:
        return [1.0 if i == self.pos else 0.0 for i in range(self.n)] + [self.t / 10.0]

    def step(self, action: int) -> tuple[list[float], float, bool]:
        self.t += 1
        self.pos = max(0, min(self.n - 1, self.pos + (1 if action == 1 else -1 if action == 0 else 0)))
        done = self.pos == self.n - 1 or self.t >= 10
        return self._obs(), (1.0 if self.pos == self.n - 1 else -0.01), done


def _reinforce_script(lib: Any, episodes: int = 8, opt_name: str = "adam") -> dict[str, Any]:
    torch = lib
    nn = torch.nn
    F = torch.nn.functional
    from_dists = torch.distributions

    class Policy(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.affine = nn.Linear(7, 32)
            self.action_head = nn.Linear(32, 3)
            self.value_head = nn.Linear(32, 1)
            self.saved: list[tuple[Any, Any]] = []
            self.rewards: list[float] = []

        def forward(self, x: Any) -> tuple[Any, Any]:
            x = F.elu(self.affine(x))
            return F.softmax(self.action_head(x), dim=-1), self.value_head(x)

    torch.manual_seed(543)
    policy = Policy()
    if opt_name == "adam":
        optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    else:
        optimizer = torch.optim.RMSprop(policy.parameters(), lr=1e-3, alpha=0.95, centered=True, momentum=0.5)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)
    eps = np.finfo(np.float32).eps.item()
    gamma = 0.97
    env = _ChainEnv()
    log: list[float] = []
    for _ in range(episodes):
        state, ep_reward, entropies = env.reset(), 0.0, []
        for _t in range(10):
            s = torch.tensor(state, dtype=torch.float32).unsqueeze(0)
            probs, value = policy(s)
            m = from_dists.Categorical(probs)
            action = m.sample()
            policy.saved.append((m.log_prob(action), value.squeeze()))
            entropies.append(m.entropy())
            state, reward, done = env.step(action.item())
            policy.rewards.append(reward)
            ep_reward += reward
            if done:
                break
        R, returns = 0.0, []
        for r in policy.rewards[::-1]:
            R = r + gamma * R
            returns.insert(0, R)
        ret = torch.tensor(returns)
        if len(returns) > 1:
            ret = (ret - ret.mean()) / (ret.std() + eps)
        policy_losses, value_losses = [], []
        for (log_prob, value), R_t in zip(policy.saved, ret):
            advantage = R_t - value.item()
            policy_losses.append(-log_prob * advantage)
            value_losses.append(F.smooth_l1_loss(value, R_t))
        optimizer.zero_grad()
        loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum() - 0.01 * torch.cat(entropies).mean()
        loss.backward()
        optimizer.step()
        scheduler.step()
        log += [loss.item(), ep_reward, float(len(returns))]
        del policy.rewards[:]
        del policy.saved[:]
    # Other distribution calls common in actor-critic code.
    logits = policy.action_head(F.elu(policy.affine(torch.eye(7)[:4])))
    d = from_dists.Categorical(logits=logits)
    lp = d.log_prob(torch.tensor([0, 1, 2, 1]))
    normal = from_dists.Normal(torch.zeros(3), torch.ones(3) * 0.5)
    kl = from_dists.kl_divergence(d, from_dists.Categorical(probs=torch.full((4, 3), 1 / 3)))
    extra = {"lp": lp, "ent": d.entropy(), "probs": d.probs, "kl": kl, "nlp": normal.log_prob(torch.tensor([0.1, -0.2, 0.3]))}
    return {"losses": log, "params": {**dict(policy.named_parameters()), **extra}}


@pytest.mark.parametrize("opt_name", ["adam", "rmsprop"])
def test_reinforce_matches_torch(opt_name: str) -> None:
    torch = pytest.importorskip("torch")
    assert_runs_match(_reinforce_script(ember, opt_name=opt_name), _reinforce_script(torch, opt_name=opt_name))
