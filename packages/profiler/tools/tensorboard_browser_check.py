"""End-to-end check of SummaryWriter output and of profiler traces in a real TensorBoard, seen
through a real browser.

Writes a run with ember's SummaryWriter, serves it with `tensorboard --logdir`, loads the
scalars dashboard (and the Time Series one) in headless Chromium, asserts the run's tag is in
the text the browser rendered and keeps a screenshot of each. Then the PyTorch profiler plugin
(`torch-tb-profiler`) on an ember trace directory: the overview page must show the run and the
Operator view the top operators by name. The plugin loads Google Charts from the network; where
that host cannot be reached a stand-in (charts_standin.js) draws each chart's data as a table.
Run by `nox -s tensorboard_browser` (not part of the default sessions).

The scalars dashboard is built from web components: its text sits in shadow roots, which
`chromium --dump-dom` does not serialize. So the page is driven over Chrome's DevTools protocol
(`--remote-debugging-pipe`: NUL-terminated JSON messages on file descriptors 3 and 4, no
extra package) and the text is collected from the document and every shadow root.

usage: python tensorboard_browser_check.py [OUT_DIR]   (default: build/tensorboard_browser)
"""

from __future__ import annotations

import base64
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


PROFILE_RUN = "ember_profile"
CHARTS_LOADER = "https://www.gstatic.com/charts/loader.js"
# Ops the plugin's Operator view must name for the training step below (nested ones included).
TOP_OPS = ["aten::addmm", "aten::mm", "aten::linear", "aten::t"]


def write_profile(logdir: Path) -> None:
    """A profiled training loop (Linear-ReLU-Linear, mse_loss, SGD) written by tensorboard_trace_handler."""
    import ember
    import ember.profiler as prof
    from ember import nn

    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    x, y = ember.randn(256, 64), ember.randn(256, 10)
    with prof.profile(schedule=prof.schedule(wait=0, warmup=1, active=3), record_shapes=True,
                      on_trace_ready=prof.tensorboard_trace_handler(str(logdir / PROFILE_RUN), "worker0")) as p:
        for _ in range(4):
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            p.step()


# Opens the plugin's "Views" select and picks the named view (MUI: mousedown opens the menu).
SELECT_VIEW_JS = """((view) => {
  const sel = [...document.querySelectorAll('[role=button]')].find(e => e.textContent.trim() === 'Overview');
  if (!sel) return 'no select';
  sel.dispatchEvent(new MouseEvent('mousedown', {bubbles: true}));
  const item = [...document.querySelectorAll('[role=option]')].find(e => e.textContent.trim() === view);
  if (!item) return 'no option';
  item.click();
  return 'ok';
})"""


def check_profiler_plugin(browser: DevTools, base: str, out: Path) -> None:
    """The PyTorch profiler plugin on ember's trace: the overview page shows the run and its steps,
    the Operator view the top operators by name. Screenshots profiler_overview.png / _operator.png."""
    browser.stand_in(CHARTS_LOADER, (Path(__file__).parent / "charts_standin.js").read_bytes())
    page = f"{base}/data/plugin/pytorch_profiler/index.html"
    needles = [PROFILE_RUN, "worker0", "Execution Summary", "Step Time Breakdown"]
    _keep(browser, out, "profiler_overview", browser.page_text(page, needles, timeout=90), needles)
    res = browser.call("Runtime.evaluate", {"expression": SELECT_VIEW_JS + "('Operator')", "returnByValue": True},
                       browser.session)
    if res.get("result", {}).get("value") != "ok":
        raise SystemExit(f"error: could not open the plugin's Operator view: {res}")
    _keep(browser, out, "profiler_operator", browser.wait_text(TOP_OPS, timeout=60), TOP_OPS)


def _keep(browser: DevTools, out: Path, name: str, text: str, needles: list[str]) -> None:
    """Save the page's text and screenshot as out/name.*; fail unless the text holds every needle."""
    (out / f"{name}.txt").write_text(text)
    time.sleep(2)  # the page's text is in before its charts are drawn
    browser.screenshot(out / f"{name}.png")
    missing = [s for s in needles if s not in text]
    if missing:
        raise SystemExit(f"error: the rendered page lacks {missing}; see {out}/{name}.*")


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


# Text of the document and of every shadow root in it (the dashboards nest web components).
DEEP_TEXT_JS = """(() => {
  const parts = [document.body ? document.body.innerText : ''];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) { parts.push(el.shadowRoot.textContent || ''); walk(el.shadowRoot); }
    }
  };
  walk(document);
  return parts.join('\\n');
})()"""


class DevTools:
    """A headless Chromium driven over --remote-debugging-pipe (fd 3: commands in, fd 4: replies out)."""

    def __init__(self, chromium: str, log: Path) -> None:
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The shell puts the pipe ends on fds 3 and 4, whatever numbers they have here.
        cmd = (f'exec "$0" "$@" 3<&{to_browser_r} 4>&{from_browser_w}')
        # Software WebGL must be opted into, or the Time Series charts stay blank in screenshots.
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader", "--hide-scrollbars",
                 "--window-size=1400,1000", "--remote-debugging-pipe", "about:blank"]
        self._log = open(log, "wb")
        self.proc = subprocess.Popen(["sh", "-c", cmd, chromium, *flags], pass_fds=(to_browser_r, from_browser_w),
                                     stdout=self._log, stderr=subprocess.STDOUT)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buf = b""
        self._next_id = 0
        self._stand_ins: dict[str, bytes] = {}
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def stand_in(self, url: str, body: bytes) -> None:
        """Answer requests for url (a host this machine cannot reach) with body instead."""
        self._stand_ins[url] = body
        self.call("Fetch.enable", {"patterns": [{"urlPattern": u} for u in self._stand_ins]}, self.session)

    def _send(self, method: str, params: dict[str, object], session: str | None) -> int:
        self._next_id += 1
        msg: dict[str, object] = {"id": self._next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._to_browser, json.dumps(msg).encode() + b"\0")
        return self._next_id

    def _on_event(self, event: dict) -> None:
        if event.get("method") != "Fetch.requestPaused":
            return
        params = event["params"]
        body = self._stand_ins.get(params["request"]["url"])
        if body is None:
            self._send("Fetch.continueRequest", {"requestId": params["requestId"]}, event.get("sessionId"))
            return
        self._send("Fetch.fulfillRequest", {
            "requestId": params["requestId"], "responseCode": 200,
            "responseHeaders": [{"name": "Content-Type", "value": "text/javascript"}],
            "body": base64.b64encode(body).decode()}, event.get("sessionId"))

    def call(self, method: str, params: dict[str, object] | None = None, session: str | None = None) -> dict:
        want = self._send(method, params or {}, session)
        while True:  # replies and events arrive interleaved; events have no id
            while b"\0" not in self._buf:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise SystemExit(f"error: chromium closed the DevTools pipe (see {self._log.name})")
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            reply = json.loads(raw)
            if "method" in reply:
                self._on_event(reply)
            elif reply.get("id") == want:
                if "error" in reply:
                    raise SystemExit(f"error: DevTools {method}: {reply['error']}")
                return reply.get("result", {})

    def page_text(self, url: str, needles: list[str], timeout: float) -> str:
        """Load url and return its deep text once it holds every needle (or at the timeout)."""
        self.call("Page.navigate", {"url": url}, self.session)
        return self.wait_text(needles, timeout)

    def wait_text(self, needles: list[str], timeout: float) -> str:
        """The current page's deep text once it holds every needle (or at the timeout)."""
        deadline = time.monotonic() + timeout
        while True:
            res = self.call("Runtime.evaluate", {"expression": DEEP_TEXT_JS, "returnByValue": True}, self.session)
            text = str(res.get("result", {}).get("value", ""))
            if all(n in text for n in needles) or time.monotonic() > deadline:
                return text
            time.sleep(0.5)

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", {"format": "png"}, self.session)["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except SystemExit:
            pass
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        self._log.close()


def main(argv: list[str]) -> int:
    out = Path(argv[1] if len(argv) > 1 else "build/tensorboard_browser").resolve()
    shutil.rmtree(out, ignore_errors=True)
    logdir = out / "runs"
    logdir.mkdir(parents=True)
    write_run(logdir)
    write_profile(logdir)
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
        browser = DevTools(chromium, out / "chromium.log")
        try:
            for dashboard in ("scalars", "timeseries"):
                page = f"{base}/?darkMode=false#{dashboard}"
                text = browser.page_text(page, [TAG, "ember_run"], timeout=60)
                (out / f"{dashboard}.txt").write_text(text)
                time.sleep(3)  # the cards are in the page before their charts are drawn
                browser.screenshot(out / f"{dashboard}.png")
                missing = [s for s in (TAG, "ember_run") if s not in text]
                if missing:
                    raise SystemExit(f"error: the rendered {dashboard} page lacks {missing}; see {out}/{dashboard}.*")
            check_profiler_plugin(browser, base, out)
        finally:
            browser.close()
        print(f"ok: tag {TAG!r} of run 'ember_run' is on TensorBoard's scalars and time series pages; the profiler "
              f"plugin shows run {PROFILE_RUN!r} and the ops {TOP_OPS}; screenshots in {out}")
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
