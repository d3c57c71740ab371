"""ember-core's version."""

__version__ = "0.1.0"
cuda = None  # no CUDA in this build
