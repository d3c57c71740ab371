"""The module classes of ``ember.nn`` (re-exported there), one topic per file."""

from ember.nn.modules.module import Module  # noqa: F401
