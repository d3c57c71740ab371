"""ember._VF: the ops PyTorch reaches as ``torch._VF.<name>`` from its Python functions.

The generated bindings live on the extension as ``_C.__VF_<name>`` (namespace ``_VF`` in
ops/index.yaml: ``_unique2``, ``unique_dim``, ``unique_consecutive``); ember.unique and
ember.unique_consecutive (ember/_unique.py) call them as torch.unique calls torch._VF.
"""

from __future__ import annotations

from ember._lib import _C

_PREFIX = "__VF_"
globals().update({k[len(_PREFIX):]: v for k, v in vars(_C).items() if k.startswith(_PREFIX)})
