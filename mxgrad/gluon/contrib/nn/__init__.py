"""``gluon.contrib.nn``: MXNet 1.x's contributed layers (Concurrent, HybridConcurrent,
Identity, SyncBatchNorm, PixelShuffle1D/2D/3D, SparseEmbedding)."""
from .basic_layers import *  # noqa: F401,F403
from .basic_layers import __all__  # noqa: F401
