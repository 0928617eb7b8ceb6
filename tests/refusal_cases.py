"""The calls whose acceptance or refusal must match MXNet 1.9.1's: read by
``tests/test_refusals.py`` and by ``tools/make_refusal_fixtures.py`` (which runs them on real
MXNet), so both sides run the same list."""


def calls(mx):
    """name -> call, for ``mx`` = mxgrad or real MXNet (the same calls both sides)."""
    return {
        "zeros_shape_kw_0d": lambda: mx.nd.zeros(shape=()),
        "zeros_0d": lambda: mx.nd.zeros(()),
        "ones_0d": lambda: mx.nd.ones(()),
        "full_0d": lambda: mx.nd.full((), 2.0),
        "zeros_1": lambda: mx.nd.zeros((1,)),
        "diag_2x3": lambda: mx.nd.diag(mx.nd.ones((2, 3))),
        "diag_1d_k2": lambda: mx.nd.diag(mx.nd.ones((3,)), k=2),
        "diag_1d_k-4": lambda: mx.nd.diag(mx.nd.ones((3,)), k=-4),
        "diag_2x3_k3": lambda: mx.nd.diag(mx.nd.ones((2, 3)), k=3),
        "diag_2x3_k4": lambda: mx.nd.diag(mx.nd.ones((2, 3)), k=4),
        "diag_2x3_k5": lambda: mx.nd.diag(mx.nd.ones((2, 3)), k=5),
        "diag_2x3_k-2": lambda: mx.nd.diag(mx.nd.ones((2, 3)), k=-2),
        "diag_2x3_k-3": lambda: mx.nd.diag(mx.nd.ones((2, 3)), k=-3),
        "diag_3d": lambda: mx.nd.diag(mx.nd.ones((2, 3, 4))),
        "diag_3d_axes_1_2": lambda: mx.nd.diag(mx.nd.ones((2, 3, 4)), axis1=1, axis2=2),
        "diag_3d_axes_-1_0": lambda: mx.nd.diag(mx.nd.ones((2, 3, 4)), axis1=-1, axis2=0),
        "diag_3d_axes_-1_0_k-5": lambda: mx.nd.diag(mx.nd.ones((2, 3, 4)), k=-5, axis1=-1,
                                                    axis2=0),
        "diag_3d_same_axes": lambda: mx.nd.diag(mx.nd.ones((2, 3, 4)), axis1=1, axis2=1),
        "diag_3d_axis_3": lambda: mx.nd.diag(mx.nd.ones((2, 3, 4)), axis1=3, axis2=1),
        "seed_negative": lambda: mx.random.seed(-5),
    }
