"""Write tests/data/mxnet/pdf.npz: MXNet 1.9.1's ``random_pdf_*`` operators (densities of
samples under per-distribution parameters, ``is_log`` both ways) on seeded inputs: outputs
and, for a seeded head gradient, the gradients of every input. Keys as
``tools/_mxnet_case.py`` writes them; tests/test_ops_pdf.py holds the same cases.

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_pdf_fixtures.py
"""
import os

import mxnet as mx

from _mxnet_case import write_cases

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "pdf.npz")


def cases(rs):
    """(name, op, inputs, kwargs, differentiable inputs)"""
    def pos(*shape, low=0.5, high=3.0):
        return rs.uniform(low, high, size=shape)

    def counts(*shape):
        return rs.randint(0, 6, size=shape).astype("float64")

    for log in (False, True):
        t = "_log" if log else ""
        kw = dict(is_log=log)
        yield "normal" + t, "random_pdf_normal", \
            [rs.randn(2, 3, 4), rs.randn(2, 3), pos(2, 3)], kw, [0, 1, 2]
        yield "uniform" + t, "random_pdf_uniform", \
            [pos(3, 5, low=0.0, high=1.0), -pos(3), pos(3)], kw, [0, 1, 2]
        yield "gamma" + t, "random_pdf_gamma", [pos(2, 4), pos(2), pos(2)], kw, [0, 1, 2]
        yield "exponential" + t, "random_pdf_exponential", [pos(3, 4), pos(3)], kw, [0, 1]
        yield "poisson" + t, "random_pdf_poisson", [counts(2, 5), pos(2)], kw, [0, 1]
        yield "negative_binomial" + t, "random_pdf_negative_binomial", \
            [counts(2, 5), pos(2), pos(2, low=0.1, high=0.9)], kw, [0, 1, 2]
        yield "generalized_negative_binomial" + t, \
            "random_pdf_generalized_negative_binomial", [counts(2, 5), pos(2), pos(2)], kw, \
            [0, 1, 2]
        x = pos(2, 3, 4)
        yield "dirichlet" + t, "random_pdf_dirichlet", [x / x.sum(-1, keepdims=True),
                                                        pos(2, 4)], kw, [0, 1]
    yield "normal_same_shape", "random_pdf_normal", [rs.randn(4), rs.randn(4), pos(4)], {}, \
        [0, 1, 2]
    x = pos(5, 3)
    yield "dirichlet_one", "random_pdf_dirichlet", [x / x.sum(-1, keepdims=True), pos(3)], \
        {}, [0, 1]


def main():
    write_cases(mx, cases, OUT)


if __name__ == "__main__":
    main()
