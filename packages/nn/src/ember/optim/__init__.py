"""Optimization algorithms, mirroring :mod:`torch.optim`.

:class:`Optimizer` and its subclasses (``SGD``, ``Adam``, ``AdamW``, ``RMSprop``, ``Adagrad``,
``Adadelta``, ``Adafactor``, ``Adamax``, ``ASGD``, ``LBFGS``, ``Muon``, ``NAdam``, ``RAdam``, ``Rprop``,
``SparseAdam``) and the learning-rate schedulers in ``ember.optim.lr_scheduler``.
"""

from __future__ import annotations

from ember.optim import lr_scheduler, swa_utils  # noqa: E402  (swa_utils: nnutils)
from ember.optim.adadelta import Adadelta
from ember.optim.adafactor import Adafactor
from ember.optim.adagrad import Adagrad
from ember.optim.adam import Adam, AdamW
from ember.optim.adamax import Adamax
from ember.optim.asgd import ASGD
from ember.optim.lbfgs import LBFGS  # nnutils
from ember.optim.muon import Muon
from ember.optim.nadam import NAdam
from ember.optim.optimizer import Optimizer  # noqa: I001
from ember.optim.radam import RAdam
from ember.optim.rmsprop import RMSprop
from ember.optim.rprop import Rprop
from ember.optim.sgd import SGD
from ember.optim.sparse_adam import SparseAdam

__all__ = ["ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "Muon", "NAdam",
           "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam", "lr_scheduler", "swa_utils"]
