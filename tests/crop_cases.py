"""The ``Crop`` cases (name -> keyword arguments) run on MXNet 1.9.1 by
``tools/make_crop_fixtures.py`` and on mxgrad by ``tests/test_ops_crop.py``: one
definition for either library. ``num_args=2`` cases take a second input (crop_like)."""

CASES = {
    "hw_offset": dict(h_w=(2, 3), offset=(1, 2)),
    "hw_center": dict(h_w=(3, 4), center_crop=True),
    "hw_center_even": dict(h_w=(2, 2), center_crop=True),
    "like": dict(num_args=2),
    "like_offset": dict(num_args=2, offset=(2, 1)),
    "like_center": dict(num_args=2, center_crop=True),
}
