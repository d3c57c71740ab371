"""Renders examples/ as pages: what the script does, its source, and the output of a run made
during this build (so the page shows what the code prints today, not a pasted transcript).

The scripts run concurrently, with short settings where the full run is long; a failing
script fails the build.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

# (script under examples/, arguments for the docs run, title)
EXAMPLES = [
    ("train_mlp.py", [], "Training an MLP classifier (the README's demo)"),
    ("train_cnn.py", ["--epochs", "1", "--target-acc", "0.5"], "A small CNN on synthetic images"),
    ("char_lstm.py", ["--steps", "40", "--target-loss", "99"], "A character-level LSTM"),
    ("tiny_gpt.py", ["--steps", "40", "--target-loss", "99"], "A tiny causal transformer"),
    ("ddp_train.py", ["--epochs", "2"], "Data-parallel training (DistributedDataParallel)"),
    ("fsdp_train.py", ["--steps", "4"], "Sharded training (FSDP2 fully_shard)"),
    ("cpp_extension/lltm.py", [], "A C++ extension inside autograd (LLTM)"),
]
DISTRIBUTED = {"ddp_train.py", "fsdp_train.py"}  # started on two ranks by ember-run
# Needs a C++ compiler and ember-core's installed headers; where those are missing its page says
# so (with the error's last line) instead of failing the build.
OPTIONAL = {"cpp_extension/lltm.py"}


def _command(script: str, args: list[str]) -> list[str]:
    if script in DISTRIBUTED:  # ember-run's module: its console script may sit in another venv (nox -s docs)
        return [sys.executable, "-m", _RUN, "--nproc-per-node", "2", f"examples/{script}", *args]
    return [sys.executable, f"examples/{script}", *args]


_RUN = "ember.distributed.run"


def _shown(cmd: list[str]) -> str:
    if cmd[1:3] == ["-m", _RUN]:
        cmd = ["ember-run", *cmd[3:]]
    return " ".join(["python" if c == sys.executable else c for c in cmd])


def _run(root: Path, script: str, args: list[str]) -> tuple[str, int, str]:
    cmd = _command(script, args)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    p = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    return _shown(cmd), p.returncode, p.stdout + p.stderr


def _slug(script: str) -> str:
    return Path(script).stem


def _page(root: Path, script: str, title: str, cmd: str, output: str) -> str:
    doc = ast.get_docstring(ast.parse((root / "examples" / script).read_text())) or ""
    lines = [title, "=" * len(title), "", f"``examples/{script}``", "", "::", ""]
    lines += [f"    {ln}" if ln else "" for ln in doc.splitlines()]
    lines += ["", "Source", "------", "", f".. literalinclude:: ../../../examples/{script}", "   :language: python", "",
              "Output", "------", "", f"Run during this build as ``{cmd}``:", "", "::", ""]
    lines += [f"    {ln}" if ln else "" for ln in output.rstrip().splitlines()]
    return "\n".join(lines) + "\n"


def run_examples(app: Sphinx) -> None:
    src = Path(app.srcdir)
    root = src.parent
    out = src / "examples" / "gen"
    out.mkdir(parents=True, exist_ok=True)
    pages = [out / f"{_slug(script)}.rst" for script, _, _ in EXAMPLES]
    if app.builder.name != "html" and all(p.exists() for p in pages):
        return  # the doctest build after the html one reuses the pages (and their doctrees)
    with ThreadPoolExecutor(max_workers=3) as pool:
        runs = list(pool.map(lambda e: _run(root, e[0], e[1]), EXAMPLES))
    failed = [f"{cmd} (exit {rc}):\n{text[-2000:]}" for (script, _, _), (cmd, rc, text) in zip(EXAMPLES, runs)
              if rc != 0 and script not in OPTIONAL]
    if failed:
        raise ExtensionError("examples failed during the docs build:\n" + "\n".join(failed))
    for (script, _, title), (cmd, rc, text) in zip(EXAMPLES, runs):
        if rc != 0:
            last = text.strip().splitlines()[-1] if text.strip() else f"exit status {rc}"
            text = f"(not run in this build: {last})"
        page = _page(root, script, title, cmd, text)
        path = out / f"{_slug(script)}.rst"
        if not path.exists() or path.read_text() != page:
            path.write_text(page)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", run_examples)
    return {"parallel_read_safe": True}
