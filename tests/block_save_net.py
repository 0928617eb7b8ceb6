"""The network whose ``Block.save``/``load`` files must equal MXNet 1.9.1's: built by
``tests/test_block_save.py`` on mxgrad and by ``tools/make_block_save_fixtures.py`` on MXNet."""


def build(nn):
    """A HybridSequential with a nested HybridSequential, from ``nn`` (either library's)."""
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(4, in_units=3, activation="relu"))
        inner = nn.HybridSequential()
        with inner.name_scope():
            inner.add(nn.Dense(2, in_units=4), nn.Activation("tanh"))
        net.add(inner)
    return net
