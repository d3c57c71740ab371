"""Checks the built site (docs/_build/html) from the outside: links and a real browser.

1. Every link and asset a page points to inside the site exists (pages, anchors' files,
   images, scripts); nothing outside the site is fetched.
2. Headless Chromium (the same Debian package and DevTools-over-a-pipe driver as
   packages/profiler/tools/tensorboard_browser_check.py) loads the front page, one API page and
   the search page with a query, over a local HTTP server, asserts what each shows and saves a
   screenshot and the page text of each to OUT_DIR.

usage: python docs/check_site.py [HTML_DIR] [OUT_DIR]   (defaults: docs/_build/html build/docs_browser)
"""

from __future__ import annotations

import functools
import html.parser
import importlib.util
import shutil
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
# (page, texts it must show once rendered); the search page fills its results in with JavaScript.
PAGES = [
    ("index.html", ["ember", "Getting started", "Coming from PyTorch", "API reference"]),
    ("api/gen/ember/ember.add.html", ["ember.add", "alpha", "broadcasting", "Example"]),
    ("search.html?q=conv2d", ["Search Results", "ember.nn.functional.conv2d", "ember.nn.Conv2d"]),
]


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and ((tag == "a" and name == "href") or (name == "src") or (tag == "link" and name == "href")):
                self.targets.append(value)


def check_links(site: Path) -> int:
    """Every in-site link of every page resolves to a file; returns the number of links checked."""
    broken, count = [], 0
    for page in site.rglob("*.html"):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for target in parser.targets:
            url = urlsplit(target)
            if url.scheme or url.netloc or not url.path:  # external (never fetched) or same-page anchor
                continue
            count += 1
            if not (page.parent / unquote(url.path)).resolve().exists():
                broken.append(f"{page.relative_to(site)} -> {target}")
    if broken:
        raise SystemExit("error: broken links in the site:\n  " + "\n  ".join(sorted(set(broken))[:50]))
    return count


def _browser_tools():  # noqa: ANN202
    path = ROOT / "packages/profiler/tools/tensorboard_browser_check.py"
    spec = importlib.util.spec_from_file_location("tensorboard_browser_check", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base's name)
        pass


def check_in_browser(site: Path, out: Path) -> None:
    tools = _browser_tools()
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    browser = tools.DevTools(tools.find_chromium(), out / "chromium.log")
    try:
        for page, needles in PAGES:
            name = Path(urlsplit(page).path).stem
            text = browser.page_text(f"{base}/{page}", needles, timeout=60)
            tools._keep(browser, out, name, text, needles)
            print(f"ok: {page} shows {needles}")
    finally:
        browser.close()
        server.shutdown()


def main(argv: list[str]) -> int:
    site = Path(argv[1] if len(argv) > 1 else ROOT / "docs/_build/html").resolve()
    out = Path(argv[2] if len(argv) > 2 else ROOT / "build/docs_browser").resolve()
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    pages = len(list(site.rglob("*.html")))
    print(f"ok: {check_links(site)} in-site links of {pages} pages resolve")
    check_in_browser(site, out)
    print(f"ok: screenshots in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
