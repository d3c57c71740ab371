"""Side-by-side tables of many Measurements (:class:`Compare`).

One table per ``label``; rows are ``(num_threads, env, sub_label or stmt)``,
columns are ``description``, cells are medians in the unit of the table's
fastest measurement.  The layout matches PyTorch's character for character.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable

from ember.utils.benchmark.utils import _float32, common

__all__ = ["Colorize", "Compare"]

_BEST = "\033[92m"
_GOOD = "\033[34m"
_BAD = "\033[2m\033[91m"
_VERY_BAD = "\033[31m"
_BOLD = "\033[1m"
_END = "\033[0m"
_SEPARATOR = "  |  "

Cell = common.Measurement | None


class Colorize(enum.Enum):
    """How ``Compare`` colours its cells: none, by column, or by row (the fastest green, the
    slowest red)."""

    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _color(text: str, value: float, best: float) -> str:
    """Wrap ``text`` in an ANSI colour by how ``value`` compares with the best one."""
    if value <= best * 1.01 or value <= best + 100e-9:
        return _BEST + _BOLD + text + _END * 2
    if value <= best * 1.1:
        return _GOOD + _BOLD + text + _END * 2
    if value >= best * 5:
        return _VERY_BAD + _BOLD + text + _END * 2
    if value >= best * 2:
        return _BAD + text + _END * 2
    return text


class _Column:
    """Number formatting shared by every cell of one column."""

    def __init__(self, cells: list[Cell], scale: float, trim: bool, highlight: bool) -> None:
        present = [m for m in cells if m is not None]
        self._trim = trim
        self._highlight = highlight and any(m.has_warnings for m in present)
        # Leading digits via float32 log10, as PyTorch computes them.
        digits = [math.ceil(_float32.log10(m.median / scale)) for m in present]
        integer_digits = max(digits)
        if trim:
            decimals = min(max(m.significant_figures - d, 0) for m, d in zip(present, digits, strict=True))
        else:
            decimals = 1
        width = integer_digits + decimals + (1 if decimals else 0)
        self._number = f"{{:>{width}.{decimals}f}}"
        self._note_width = 7 if self._highlight else 0

    def format(self, value: float | None, sigfigs: int, spread: float | None) -> str:
        if value is None:
            return " " * len(self.format(1.0, sigfigs, None))
        if self._trim:
            value = common.trim_sigfig(value, sigfigs)
        note = f" (! {spread * 100:.0f}%)" if self._highlight and spread is not None else ""
        return self._number.format(value) + f"{note:>{self._note_width}}"


class _Table:
    def __init__(self, results: list[common.Measurement], colorize: Colorize, trim: bool,
                 highlight: bool) -> None:
        self.results = results
        self.label = results[0].label
        self.colorize = colorize
        self.highlight = highlight
        self.unit, self.scale = common.select_unit(min(m.median for m in results))

        row_keys = common.ordered_unique(self._row_key(m) for m in results)
        # Stable sort on (threads, env) only: statements keep their first-seen order.
        # None envs sort as "" (PyTorch would fail comparing None with a string).
        row_keys.sort(key=lambda k: (k[0], "" if k[1] is None else k[1]))
        self.row_keys = row_keys
        self.col_keys = common.ordered_unique(m.description for m in results)

        rows = {k: i for i, k in enumerate(row_keys)}
        cols = {k: j for j, k in enumerate(self.col_keys)}
        self.grid: list[list[Cell]] = [[None] * len(self.col_keys) for _ in row_keys]
        for m in results:
            self.grid[rows[self._row_key(m)]][cols[m.description]] = m

        # Rows are grouped by thread count; colour-by-column compares within a group.
        self.group_of_row: list[int] = []
        group = -1
        previous_threads = None
        for threads, _, _ in row_keys:
            if threads != previous_threads:
                group += 1
                previous_threads = threads
            self.group_of_row.append(group)

        self.columns = [
            _Column([row[j] for row in self.grid], self.scale, trim, highlight) for j in range(len(self.col_keys))
        ]

    @staticmethod
    def _row_key(m: common.Measurement) -> tuple[int, str | None, str]:
        return m.num_threads, m.env, m.as_row_name

    def _row_label(self, i: int, render_env: bool, env_width: int) -> str:
        threads, env, name = self.row_keys[i]
        new_thread_group = i == 0 or self.row_keys[i - 1][0] != threads
        prior_env = "" if new_thread_group else self.row_keys[i - 1][1]
        # The env tag is written once, on the first row of each env within a thread group.
        tag = f"({env})" if render_env and env != prior_env and env is not None else ""
        return "  " + tag.ljust(env_width + 4) + name

    def _best(self, i: int, j: int) -> float | None:
        if self.colorize == Colorize.ROWWISE:
            return min(m.median for m in self.grid[i] if m is not None)
        group = self.group_of_row[i]
        medians = [
            self.grid[r][j].median  # type: ignore[union-attr]
            for r in range(len(self.grid))
            if self.group_of_row[r] == group and self.grid[r][j] is not None
        ]
        return min(medians) if medians else None

    def render(self) -> str:
        envs = common.ordered_unique(m.env for m in self.results)
        render_env = len(envs) > 1
        env_width = max(len(e) for e in envs if e is not None) if render_env and any(envs) else 0

        header = [""] + ["" if d is None else d for d in self.col_keys]
        body: list[list[str]] = []
        for i, row in enumerate(self.grid):
            cells = [self._row_label(i, render_env, env_width)]
            for m, column in zip(row, self.columns, strict=True):
                if m is None:
                    cells.append(column.format(None, 1, None))
                else:
                    spread = m.iqr / m.median if m.has_warnings else None
                    cells.append(column.format(m.median / self.scale, m.significant_figures, spread))
            body.append(cells)

        widths = [max(len(r[k]) for r in [header, *body]) for k in range(len(header))]
        lines = [_SEPARATOR.join(c.center(w) for c, w in zip(header, widths, strict=True))]
        total_width = len(lines[0])
        for i, cells in enumerate(body):
            if i == 0 or self.row_keys[i - 1][0] != self.row_keys[i][0]:
                lines.append(f"{self.row_keys[i][0]} threads: ".ljust(total_width, "-"))
            out = [cells[0].ljust(widths[0])]
            for j, (text, width) in enumerate(zip(cells[1:], widths[1:], strict=True)):
                text = text.center(width)
                m = self.grid[i][j]
                if self.colorize != Colorize.NONE and m is not None:
                    best = self._best(i, j)
                    if best is not None:
                        text = _color(text, m.median, best)
                out.append(text)
            lines.append(_SEPARATOR.join(out))

        title = f" {self.label or ''} ".center(total_width - 2, "-")
        footer = [f"Times are in {common.unit_to_english(self.unit)}s ({self.unit}).", ""]
        if self.highlight and any(m.has_warnings for m in self.results):
            footer.insert(1, "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.")
        return "\n".join([f"[{title}]", *lines, "", *footer])


class Compare:
    """Formats many Measurements as tables (one per ``label``); ``print(compare)`` or ``.print()``.

    Replicates (equal TaskSpecs) are pooled first.  ``description`` picks the
    column, ``sub_label`` (else ``stmt``) the row, ``num_threads`` the row group.
    """

    def __init__(self, results: list[common.Measurement]) -> None:
        self._results: list[common.Measurement] = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self) -> str:
        return "\n".join(self._render())

    def extend_results(self, results: Iterable[common.Measurement]) -> None:
        """Add more Measurements (each must be a Measurement)."""
        results = list(results)
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        """Show only each column's significant digits (see ``Measurement.significant_figures``)."""
        self._trim_significant_figures = True

    def colorize(self, rowwise: bool = False) -> None:
        """Colour cells against the best time of their column (default) or row."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        """Mark high-variance cells with ``(! NN%)`` (IQR as a percentage of the median)."""
        self._highlight_warnings = True

    def print(self) -> None:
        """Prints the comparison table (the same text as ``str(compare)``)."""
        print(str(self))

    def _render(self) -> list[str]:
        by_label: dict[str | None, list[common.Measurement]] = {}
        for m in common.Measurement.merge(self._results):
            by_label.setdefault(m.label, []).append(m)
        return [
            _Table(group, self._colorize, self._trim_significant_figures, self._highlight_warnings).render()
            for group in by_label.values()
        ]
