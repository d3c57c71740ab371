"""Building blocks of :mod:`ember.utils.benchmark`: timing, statistics, tables, fuzzing, Callgrind."""
