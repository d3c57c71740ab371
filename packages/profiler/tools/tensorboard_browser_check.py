"""End-to-end check of SummaryWriter output in a real TensorBoard, seen through a real browser.

Writes a run with ember's SummaryWriter, serves it with `tensorboard --logdir`, loads the
scalars dashboard in headless Chromium, asserts the run's tag is on the rendered page and
keeps a screenshot. Run by `nox -s tensorboard_browser` (not part of the default sessions).

usage: python tensorboard_browser_check.py [OUT_DIR]   (default: build/tensorboard_browser)
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

TAG = "ember_browser_check/loss"


def find_chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if shutil.which("apt-get") and os.geteuid() == 0:
        print("chromium not found: installing Debian's chromium (apt-get install -y chromium)", flush=True)
        subprocess.run(["apt-get", "update"], check=False, stdout=subprocess.DEVNULL)
        subprocess.run(["apt-get", "install", "-y", "chromium"], check=False)
        path = shutil.which("chromium")
        if path:
            return path
    raise SystemExit(
        "error: headless Chromium is needed for this check and none was found. Install Debian's package "
        "(`apt-get install -y chromium`, as root) and rerun."
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_run(logdir: Path) -> None:
    import ember
    from ember.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(logdir / "ember_run")) as w:
        for step in range(50):
            w.add_scalar(TAG, float(ember.tensor(1.0 / (1 + step))), step)
        w.add_text("ember_browser_check/note", "written by ember.utils.tensorboard.SummaryWriter", 0)


def wait_for(url: str, timeout: float, proc: subprocess.Popen[bytes]) -> bytes:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"error: tensorboard exited early with status {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                return r.read()
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"error: tensorboard did not answer {url} within {timeout:.0f} s")


def main(argv: list[str]) -> int:
    out = Path(argv[1] if len(argv) > 1 else "build/tensorboard_browser").resolve()
    shutil.rmtree(out, ignore_errors=True)
    logdir = out / "runs"
    logdir.mkdir(parents=True)
    write_run(logdir)
    chromium = find_chromium()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(out / "tensorboard.log", "wb")
    tb = subprocess.Popen(
        [sys.executable, "-m", "tensorboard.main", "--logdir", str(logdir), "--host", "127.0.0.1", "--port", str(port),
         "--reload_interval", "1"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        wait_for(base + "/data/environment", 60, tb)
        # TensorBoard's own data API must list the tag before the page can show it.
        deadline = time.monotonic() + 30
        while True:
            tags = json.loads(wait_for(base + "/data/plugin/scalars/tags", 10, tb))
            if TAG in tags.get("ember_run", {}):
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"error: tensorboard's scalars API does not list {TAG!r}: {tags}")
            time.sleep(1)
        flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                 "--window-size=1400,1000", "--virtual-time-budget=20000"]
        for dashboard in ("scalars", "timeseries"):
            page = f"{base}/?darkMode=false#{dashboard}"
            shot = out / f"{dashboard}.png"
            subprocess.run(flags + [f"--screenshot={shot}", page], check=True, timeout=180,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if not shot.exists() or shot.stat().st_size == 0:
                raise SystemExit(f"error: chromium wrote no screenshot of {page}")
        # The DOM is read from the Time Series dashboard (scalar cards): the legacy #scalars
        # dashboard renders inside shadow roots, which --dump-dom does not serialize.
        page = f"{base}/?darkMode=false#timeseries"
        dom = subprocess.run(flags + ["--dump-dom", page], check=True, timeout=180, capture_output=True).stdout
        (out / "timeseries.html").write_bytes(dom)
        text = dom.decode("utf-8", "replace")
        missing = [s for s in (TAG, "ember_run") if s not in text]
        if missing:
            raise SystemExit(f"error: the rendered page lacks {missing}; see {out / 'timeseries.html'}")
        print(f"ok: tag {TAG!r} of run 'ember_run' is on TensorBoard's page; screenshots in {out}")
        return 0
    finally:
        tb.terminate()
        try:
            tb.wait(10)
        except subprocess.TimeoutExpired:
            tb.kill()
            tb.wait()
        log.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
