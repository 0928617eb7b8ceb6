"""One op case run on real MXNet for a fixture (used by the ``make_op26*_fixtures.py``
tools; ``tests/opcheck.check_op_fixture`` reads the same layout back): the inputs, the
outputs and, for the inputs in ``diff``, their gradients under a random head gradient."""
import numpy as np


def record_op_case(mx, rs, out, name, op, ins, kw, diff, all_heads=False):
    """Run ``mx.nd.<op>(*ins, **kw)`` and store ``<name>_in<i>``, ``_out<j>``, the head
    gradient (``_head`` for the first output only, or ``_head<j>`` for every output with
    ``all_heads``) and ``_grad<i>`` in ``out``."""
    fn = mx.nd
    for part in op.split("."):
        fn = getattr(fn, part)
    arrays = [mx.nd.array(a) for a in ins]
    for i in diff:
        arrays[i].attach_grad()
    with mx.autograd.record():
        res = fn(*arrays, **kw)
    res = list(res) if isinstance(res, (list, tuple)) else [res]
    for i, a in enumerate(ins):
        out[f"{name}_in{i}"] = np.asarray(a, dtype="float32")
    for j, r in enumerate(res):
        out[f"{name}_out{j}"] = r.asnumpy()
    if not diff:
        return
    if all_heads:
        heads = [rs.randn(*r.shape).astype("float32") for r in res]
        mx.autograd.backward(res, [mx.nd.array(h) for h in heads])
        for j, h in enumerate(heads):
            out[f"{name}_head{j}"] = h
    else:
        head = rs.randn(*res[0].shape).astype("float32")
        res[0].backward(mx.nd.array(head))
        out[f"{name}_head"] = head
    for i in diff:
        out[f"{name}_grad{i}"] = arrays[i].grad.asnumpy()


def write_cases(mx, cases, out_path, all_heads=False, seed=0):
    """Run every ``(name, op, inputs, kwargs, differentiable inputs)`` that
    ``cases(rs)`` yields (``rs``: a ``RandomState(seed)``, also drawing the head gradients)
    with :func:`record_op_case` and write them all to the ``.npz`` ``out_path``."""
    rs = np.random.RandomState(seed)
    out = {}
    for name, op, ins, kw, diff in cases(rs):
        record_op_case(mx, rs, out, name, op, ins, kw, diff, all_heads=all_heads)
    np.savez_compressed(out_path, **out)
    print("wrote", out_path, len(out), "arrays")
