"""``torch.jit.ScriptModule`` and its kin for eager code: ``nn.Module`` subclasses (made on first
use, since nn.Module lives in the ember-nn distribution), so old-style
``class M(torch.jit.ScriptModule)`` models with ``@script_method`` methods run eagerly."""

from __future__ import annotations

import functools
from typing import Any


@functools.cache
def script_module_types() -> dict[str, Any]:
    from ember.nn import Module

    class ScriptModule(Module):
        """A module TorchScript would compile; in ember it is an ordinary ``nn.Module`` (nothing
        is compiled, so ``save`` / ``code`` / ``graph`` are not available)."""

        def save(self, f: Any, **kwargs: Any) -> None:
            """Not available: ember has no TorchScript program to serialize."""
            from ember.jit import save

            save(self, f)

    class RecursiveScriptModule(ScriptModule):
        """The type ``torch.jit.script(module)`` returns in PyTorch; ember's ``script`` returns the
        module itself, so nothing is one."""

    class TracedModule(ScriptModule):
        """The type ``torch.jit.trace(module)`` returns in PyTorch; ember's ``trace`` returns the
        module itself, so nothing is one."""

    class TopLevelTracedModule(TracedModule):
        """See :class:`TracedModule`."""

    return {"ScriptModule": ScriptModule, "RecursiveScriptModule": RecursiveScriptModule,
            "TracedModule": TracedModule, "TopLevelTracedModule": TopLevelTracedModule}
