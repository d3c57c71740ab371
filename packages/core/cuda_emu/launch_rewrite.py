"""Rewrites a CUDA source for the CUDA emulator: `kernel<<<cfg>>>(args)` becomes a call of
emu::launch, `extern __shared__ T name[];` a pointer to the block's dynamic shared memory, and
`__shared__ T a[N], b[M];` function statics that each block first sees filled with garbage.
Lines stay where they were (a #line names the original file), so compiler errors point at it.

    python launch_rewrite.py IN OUT
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

OPEN = {"(": ")", "[": "]", "{": "}"}
EXTERN_SHARED = re.compile(r"extern\s+__shared__\s+(?:__align__\(\s*\d+\s*\)\s*)?([\w:<>\s]+?)\s*(\w+)\s*\[\s*\]\s*;")
STATIC_SHARED = re.compile(r"(?<!extern )__shared__\s+((?:__align__\(\s*\d+\s*\)\s*)?[\w:<>]+)\s+([^;]+);")


def matching(text: str, i: int) -> int:
    """Index just past the bracket closing the one at text[i]."""
    stack = [OPEN[text[i]]]
    j = i + 1
    while stack:
        c = text[j]
        if c in OPEN:
            stack.append(OPEN[c])
        elif c in ")]}":
            if c != stack.pop():
                raise ValueError(f"unbalanced {c!r} at offset {j}")
        j += 1
    return j


def kernel_start(text: str, end: int) -> int:
    """Start of the kernel expression ending at text[end] (a name, qualified, with template arguments)."""
    i = end
    while True:
        while i > 0 and text[i - 1].isspace():
            i -= 1
        if text[i - 1] == ">":  # template arguments: back to their '<'
            depth = 0
            while True:
                i -= 1
                c = text[i]
                if c in ">)]":
                    depth += 1
                elif c in "<([":
                    depth -= 1
                    if depth == 0:
                        break
            while i > 0 and text[i - 1].isspace():
                i -= 1
        while i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"):
            i -= 1
        if text[i - 2:i] == "::":
            i -= 2
            continue
        return i


def rewrite(text: str) -> str:
    def shared(m: re.Match[str]) -> str:
        return f"{m.group(1)}* {m.group(2)} = static_cast<{m.group(1)}*>(::emu::dynamic_shared());"

    # On a GPU a block's __shared__ variables start as whatever the last block left: the statics
    # are refilled with 0xff bytes (NaN, -1) when each block first reaches them.
    def static_shared(m: re.Match[str]) -> str:
        names = [re.match(r"\s*(\w+)", d).group(1) for d in m.group(2).split(",")]  # type: ignore[union-attr]
        fills = " ".join(f"::emu::fresh_shared({n}, sizeof({n}));" for n in names)
        return f"static {m.group(1)} {m.group(2)}; {fills}"

    text = EXTERN_SHARED.sub(shared, text)
    text = STATIC_SHARED.sub(static_shared, text)
    out = []
    pos = 0
    while (at := text.find("<<<", pos)) >= 0:
        start = kernel_start(text, at)
        close = text.find(">>>", at)
        cfg = text[at + 3:close]
        paren = close + 3
        while text[paren].isspace():
            paren += 1
        assert text[paren] == "(", f"a launch without arguments at offset {paren}"
        stop = matching(text, paren)
        args = text[paren + 1:stop - 1]
        kernel = text[start:at]
        sep = ", " if args.strip() else ""
        out.append(text[pos:start])
        name = kernel.split("<")[0].strip()  # the trace's name: no template arguments
        call = f"[](auto&... emu_a) {{ {kernel}(emu_a...); }}"
        out.append(f'::emu::launch(::emu::Config({cfg}), "{name}", {call}{sep}{args})')
        pos = stop
    out.append(text[pos:])
    return "".join(out)


def main() -> None:
    src, dst = Path(sys.argv[1]), Path(sys.argv[2])
    text = f'#line 1 "{src.resolve()}"\n' + rewrite(src.read_text())
    dst.parent.mkdir(parents=True, exist_ok=True)
    if not dst.exists() or dst.read_text() != text:
        dst.write_text(text)


if __name__ == "__main__":
    main()
