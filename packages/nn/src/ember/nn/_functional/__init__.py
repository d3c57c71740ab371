"""Implementation files of ``ember.nn.functional`` (split by topic to keep files small)."""
