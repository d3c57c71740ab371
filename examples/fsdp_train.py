"""Sharded training with FSDP2 ``fully_shard``: a small transformer language model whose
parameters, gradients and Adam state are split over the ranks. The script is what a PyTorch
user writes; start it with

    ember-run --nproc-per-node 2 examples/fsdp_train.py           # ember's torchrun
    mpiexec -n 2 python examples/fsdp_train.py                     # or any MPI launcher
    torchrun --nproc-per-node 2 examples/fsdp_train.py --torch     # the same script on PyTorch

Each transformer layer is its own ``fully_shard`` group (one all-gather before its forward,
one reduce-scatter after its backward), the root takes the embedding and the head. It prints
the loss of every step on rank 0 (``--json``: one JSON list, which the tests compare between
ember and PyTorch).

With ``--checkpoint-dir`` it resumes from the checkpoint there (if any) and saves to it at the
end, so a run can go on with another number of ranks; keep the global batch the same to
continue the same loss curve:

    ember-run --nproc-per-node 2 examples/fsdp_train.py --steps 10 --checkpoint-dir ck
    ember-run --nproc-per-node 1 examples/fsdp_train.py --steps 20 --batch-size 16 --checkpoint-dir ck
"""

from __future__ import annotations

import argparse
import importlib
import json
import os


def build_model(torch, vocab: int, dim: int, layers: int):  # noqa: ANN001, ANN201
    nn = torch.nn

    class TinyLM(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(vocab, dim)
            self.layers = nn.ModuleList(
                nn.TransformerEncoderLayer(dim, nhead=2, dim_feedforward=2 * dim, dropout=0.0,
                                           batch_first=True) for _ in range(layers))
            self.norm = nn.LayerNorm(dim)
            self.head = nn.Linear(dim, vocab)

        def forward(self, tokens):  # noqa: ANN001, ANN202
            h = self.embed(tokens)
            for layer in self.layers:
                h = layer(h)
            return self.head(self.norm(h))

    return TinyLM()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=8, help="per rank")
    ap.add_argument("--seq", type=int, default=16)
    ap.add_argument("--bf16", action="store_true", help="MixedPrecisionPolicy(param_dtype=bfloat16)")
    ap.add_argument("--checkpoint-dir", default=None,
                    help="save (and resume from) a distributed checkpoint here")
    ap.add_argument("--torch", action="store_true", help="run on PyTorch instead of ember")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.torch:
        import torch
    else:
        import ember as torch  # noqa: ICN001 - the point: PyTorch's API
    # Attribute access, not `import torch.x`: the import statement would find PyTorch itself.
    dist = importlib.import_module(torch.__name__ + ".distributed")
    fsdp = importlib.import_module(torch.__name__ + ".distributed.fsdp")

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    vocab = 32
    torch.manual_seed(0)  # every rank builds the same full model, then keeps its shards
    model = build_model(torch, vocab, dim=32, layers=2)
    mp = fsdp.MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32) \
        if args.bf16 else fsdp.MixedPrecisionPolicy()
    for layer in model.layers:  # bottom-up: the layers first, the root last
        fsdp.fully_shard(layer, mp_policy=mp)
    fsdp.fully_shard(model, mp_policy=mp)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)  # after sharding: steps on the shards

    # Distributed checkpoint: each rank reads and writes only its shards; a checkpoint saved
    # on N ranks loads on any number of ranks (DCP reshards on load).
    dcp = importlib.import_module(torch.__name__ + ".distributed.checkpoint")
    dsd = importlib.import_module(torch.__name__ + ".distributed.checkpoint.state_dict")
    start = 0
    ckpt = args.checkpoint_dir
    if ckpt and os.path.exists(os.path.join(ckpt, ".metadata")):
        model_sd, optim_sd = dsd.get_state_dict(model, opt)  # this run's layout: the targets
        state = {"model": model_sd, "optim": optim_sd, "step": 0}
        dcp.load(state, checkpoint_id=ckpt)  # in place, each rank its own shards
        dsd.set_state_dict(model, opt, model_state_dict=state["model"],
                           optim_state_dict=state["optim"])
        start = state["step"]
        if rank == 0 and not args.json:
            print(f"resumed from {ckpt} at step {start} on {world} rank(s)", flush=True)

    losses = []
    for step in range(start, args.steps):
        g = torch.Generator().manual_seed(1000 + step)  # the same global batch on every rank
        tokens = torch.randint(0, vocab, (world * args.batch_size, args.seq + 1), generator=g)
        tokens = tokens[rank * args.batch_size:(rank + 1) * args.batch_size]
        # a learnable rule: the next token is the current one plus one (mod vocab)
        inputs, targets = tokens[:, :-1], (tokens[:, :-1] + 1) % vocab
        logits = model(inputs)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, vocab).float(),
                                                 targets.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        total = loss.detach().clone()
        dist.all_reduce(total)
        losses.append(total.item() / world)
        if rank == 0 and not args.json:
            print(f"step {step}: loss {losses[-1]:.4f}", flush=True)

    if ckpt:  # the step goes in with the tensors; the metadata is written last (atomic)
        model_sd, optim_sd = dsd.get_state_dict(model, opt)
        dcp.save({"model": model_sd, "optim": optim_sd, "step": args.steps}, checkpoint_id=ckpt)
    if rank == 0 and args.json:
        print(json.dumps(losses), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
