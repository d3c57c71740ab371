"""Instruction counting with Callgrind (``Timer.collect_callgrind``)."""
