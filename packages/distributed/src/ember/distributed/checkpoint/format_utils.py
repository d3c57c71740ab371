"""Offline conversion between a DCP checkpoint directory and a single ``torch.save`` file:
``dcp_to_torch_save``, ``torch_save_to_dcp``, and from the shell
``python -m ember.distributed.checkpoint.format_utils {torch_to_dcp,dcp_to_torch} SRC DST``.
One process does the whole conversion (it holds the full state dict)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import ember

from .default_planner import _EmptyStateDictLoadPlanner
from .filesystem import FileSystemReader
from .state_dict_loader import _load_state_dict
from .state_dict_saver import _save_state_dict

__all__ = ["dcp_to_torch_save", "torch_save_to_dcp"]


def dcp_to_torch_save(dcp_checkpoint_dir: str | os.PathLike, torch_save_path: str | os.PathLike) -> None:
    """Write the DCP checkpoint in ``dcp_checkpoint_dir`` as one ``torch.save`` file."""
    sd: dict[str, Any] = {}
    _load_state_dict(sd, storage_reader=FileSystemReader(dcp_checkpoint_dir), planner=_EmptyStateDictLoadPlanner(),
                     no_dist=True)
    ember.save(sd, torch_save_path)


def torch_save_to_dcp(torch_save_path: str | os.PathLike, dcp_checkpoint_dir: str | os.PathLike) -> None:
    """Write the ``torch.save`` file ``torch_save_path`` as a DCP checkpoint directory."""
    from .filesystem import FileSystemWriter

    sd = ember.load(torch_save_path, weights_only=False)
    _save_state_dict(sd, storage_writer=FileSystemWriter(dcp_checkpoint_dir), no_dist=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ember.distributed.checkpoint.format_utils")
    parser.add_argument("mode", type=str, help="Conversion mode", choices=["torch_to_dcp", "dcp_to_torch"])
    parser.add_argument("src", type=str, help="Path to the source model")
    parser.add_argument("dst", type=str, help="Path to the destination model")
    args = parser.parse_args(argv)
    print(f"Converting checkpoint from {args.src} to {args.dst} using method: '{args.mode}'")
    missing = f"No checkpoint found at {args.src}. Skipping conversion."
    if args.mode == "torch_to_dcp":
        if not os.path.isfile(args.src):
            print(missing)  # as PyTorch: a message, not a failure
            return 0
        torch_save_to_dcp(args.src, args.dst)
    else:
        if not os.path.isdir(args.src):
            print(missing)
            return 0
        dcp_to_torch_save(args.src, args.dst)
    return 0


if __name__ == "__main__":
    sys.exit(main())
