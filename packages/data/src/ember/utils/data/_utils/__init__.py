"""``torch.utils.data._utils``: the old import paths of the collation and worker helpers.

Older training code imports ``default_collate`` from ``torch.utils.data._utils.collate``; ember keeps
those helpers in private files of ``ember.utils.data`` and re-exports them here under PyTorch's names.
"""

from __future__ import annotations

import sys

from ember.utils.data._utils import collate, fetch, pin_memory, worker
from ember.utils.data._worker import ExceptionWrapper

IS_WINDOWS = sys.platform == "win32"
# seconds a worker waits on its queue before it checks that the main process is still alive
MP_STATUS_CHECK_INTERVAL = 5.0

__all__ = ["ExceptionWrapper", "IS_WINDOWS", "MP_STATUS_CHECK_INTERVAL", "collate", "fetch", "pin_memory",
           "worker"]
