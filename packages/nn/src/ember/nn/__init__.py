"""Neural-network building blocks, mirroring :mod:`torch.nn`.

:class:`Module` and :class:`Parameter`, containers, ``Linear``, activations, dropout,
normalisation and loss modules; stateless operations in ``ember.nn.functional`` and weight
initialisation in ``ember.nn.init``.
"""

from __future__ import annotations

from ember.nn import (  # noqa: E402
    functional,
    init,
    parallel,
    utils,  # noqa: E402
)
from ember.nn.modules.activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    RReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softmax2d,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from ember.nn.modules.adaptive import AdaptiveLogSoftmaxWithLoss
from ember.nn.modules.attention import MultiheadAttention
from ember.nn.modules.container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from ember.nn.modules.conv import (  # conv area
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d,
)
from ember.nn.modules.cross_map_lrn import CrossMapLRN2d
from ember.nn.modules.deprecated import Container, NLLLoss2d
from ember.nn.modules.distance import CosineSimilarity, PairwiseDistance
from ember.nn.modules.dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout
from ember.nn.modules.flatten import Flatten, Unflatten
from ember.nn.modules.fold import Fold, Unfold  # conv area
from ember.nn.modules.lazy import (
    LazyBatchNorm1d,
    LazyBatchNorm2d,
    LazyBatchNorm3d,
    LazyConv1d,
    LazyConv2d,
    LazyConv3d,
    LazyConvTranspose1d,
    LazyConvTranspose2d,
    LazyConvTranspose3d,
    LazyInstanceNorm1d,
    LazyInstanceNorm2d,
    LazyInstanceNorm3d,
    LazyLinear,
)
from ember.nn.modules.linear import Bilinear, Identity, Linear
from ember.nn.modules.linear_cross_entropy_options import LinearCrossEntropyOptions
from ember.nn.modules.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    LinearCrossEntropyLoss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from ember.nn.modules.loss_margin import (
    CosineEmbeddingLoss,
    CTCLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    MarginRankingLoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    PoissonNLLLoss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from ember.nn.modules.module import Module
from ember.nn.modules.normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    GroupNorm,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    LayerNorm,
    LocalResponseNorm,
    RMSNorm,
)
from ember.nn.modules.padding import (  # conv area
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)
from ember.nn.modules.pixelshuffle import ChannelShuffle, PixelShuffle, PixelUnshuffle  # conv area
from ember.nn.modules.rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from ember.nn.modules.sparse import Embedding, EmbeddingBag
from ember.nn.modules.transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from ember.nn.parameter import (  # noqa: I001  (Module needs Parameter first)
    Buffer,
    Parameter,
    UninitializedBuffer,
    UninitializedParameter,
)

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "Bilinear", "Buffer", "CELU",
    "CrossEntropyLoss", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "ELU", "Flatten", "GELU", "GLU",
    "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "HuberLoss", "Identity", "KLDivLoss", "L1Loss",
    "LayerNorm", "LeakyReLU", "Linear", "LogSigmoid", "LogSoftmax", "MSELoss", "Mish", "Module", "ModuleDict",
    "ModuleList", "MultiheadAttention", "NLLLoss", "PReLU", "Parameter", "ParameterDict", "ParameterList", "ReLU",
    "ReLU6", "SELU", "Sequential", "SiLU", "Sigmoid", "SmoothL1Loss", "Softmax", "Softmax2d", "Softmin", "Softplus",
    "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Threshold", "TransformerEncoder", "TransformerEncoderLayer",
    "Unflatten", "functional", "init", "parallel", "utils",
    # recurrent layers and the Transformer decoder
    "GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase", "Transformer",
    "TransformerDecoder", "TransformerDecoderLayer",
    "AlphaDropout", "Embedding", "EmbeddingBag", "FeatureAlphaDropout", "GroupNorm", "InstanceNorm1d",
    "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm", "RMSNorm", "RReLU",
    "LinearCrossEntropyLoss", "LinearCrossEntropyOptions",
    # the margin / ranking / embedding / NLL / CTC losses, distances, channel shuffle
    "AdaptiveLogSoftmaxWithLoss", "CTCLoss", "ChannelShuffle",
    "CosineEmbeddingLoss", "CosineSimilarity", "GaussianNLLLoss", "HingeEmbeddingLoss",
    "MarginRankingLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PairwiseDistance",
    "PoissonNLLLoss", "SoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
    # lazy modules and their placeholders
    "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d", "LazyConv3d",
    "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
    "LazyInstanceNorm3d", "LazyLinear", "UninitializedBuffer", "UninitializedParameter",
    "Container", "CrossMapLRN2d", "NLLLoss2d",
]
from ember.nn.parallel import DataParallel  # noqa: E402

__all__ += ["DataParallel"]  # single-process data parallelism (ember.nn.parallel)
# pooling / upsampling (helper "pool")
from ember.nn.modules.pooling import (  # noqa: E402
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AdaptiveMaxPool3d,
    AvgPool1d,
    AvgPool2d,
    AvgPool3d,
    FractionalMaxPool2d,
    FractionalMaxPool3d,
    LPPool1d,
    LPPool2d,
    LPPool3d,
    MaxPool1d,
    MaxPool2d,
    MaxPool3d,
    MaxUnpool1d,
    MaxUnpool2d,
    MaxUnpool3d,
)
from ember.nn.modules.upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d  # noqa: E402

__all__ += [  # pooling / upsampling
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
    "LPPool1d", "LPPool2d", "LPPool3d", "MaxPool1d",
    "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "Upsample", "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
]
__all__ += [  # conv area
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "Conv1d",
    "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Fold", "PixelShuffle",
    "PixelUnshuffle", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad2d", "ReplicationPad3d", "Unfold", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
]


def __getattr__(name: str) -> object:
    # SyncBatchNorm synchronises statistics over a process group: it lives in ember-distributed.
    if name == "SyncBatchNorm":
        from ember._siblings import import_sibling

        import_sibling("ember.distributed")
        from ember.distributed._ddp.sync_batchnorm import SyncBatchNorm

        return SyncBatchNorm
    raise AttributeError(f"module 'ember.nn' has no attribute '{name}'")

from ember.nn import attention as attention  # noqa: E402  (torch.nn.attention: sdpa_kernel, SDPBackend)
from ember.nn import common_types as common_types  # noqa: E402  (torch.nn.common_types: _size_2_t...)
