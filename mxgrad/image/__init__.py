"""``mx.image`` (also ``mx.img``): image decoding, resizing, cropping, augmenters and
``ImageIter``, as in MXNet 1.9. Decoding needs Pillow: ``pip install mxgrad[image]``.

Examples
--------
>>> import mxgrad as mx
>>> img = mx.nd.zeros((6, 8, 3), dtype='uint8')
>>> mx.image.resize_short(img, 3).shape
(3, 4, 3)
"""
from .image import *  # noqa: F401,F403
from .image import __all__ as _image_all
from .augmenters import *  # noqa: F401,F403
from .augmenters import __all__ as _augmenters_all
from .iterator import ImageIter
from .detection import *  # noqa: F401,F403
from .detection import __all__ as _detection_all
from .._image_codec import ImageBackendError, ImageDecodeError

__all__ = list(_image_all) + list(_augmenters_all) + ["ImageIter"] + list(_detection_all) + ["ImageBackendError", "ImageDecodeError"]
