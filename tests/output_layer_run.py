"""Running one output layer with its head gradient, the same way on mxgrad
(``tests/test_output_layers.py``) and on real MXNet (``tools/make_output_layer_fixtures.py``)."""


def run_nd(mx, op, kw, data, label, head):
    """``(output, gradient of data)`` of ``mx.nd.<op>`` on NumPy ``data`` (and ``label``),
    backward with ``head`` (None: ones); ``op='BlockGrad'`` runs ``BlockGrad(x) * x``."""
    x = mx.nd.array(data, dtype=data.dtype)
    x.attach_grad()
    with mx.autograd.record():
        if op == "BlockGrad":      # stops the gradient through one factor of x * x
            out = mx.nd.BlockGrad(x) * x
        elif label is None:
            out = getattr(mx.nd, op)(x, **kw)
        else:
            out = getattr(mx.nd, op)(x, mx.nd.array(label, dtype=label.dtype), **kw)
    if head is None:
        out.backward()
    else:
        out.backward(mx.nd.array(head, dtype=head.dtype))
    return out.asnumpy(), x.grad.asnumpy()
