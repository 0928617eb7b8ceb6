"""Graphs of the operators whose records are declared in ``ops/nn.py``, ``conv.py``,
``composed.py``, ``output.py``, ``rnn.py``, ``ctc.py``, ``sequence.py``, ``syncbn.py``,
``linalg.py``, ``linalg_factor.py`` and the contrib modules (issue 20 item 1): their
arguments, outputs, auxiliary states, shapes and dtypes must equal MXNet 1.9.1's. Read by
``tests/test_mxnet_op_records.py`` and by ``tools/make_records_nn_fixtures.py`` (which runs
them on real MXNet), built from one definition for either library."""


def cases(mx):
    """name -> (symbol, shapes given as keywords, dtypes given as keywords or None)."""
    S = mx.sym
    d = S.var("data")
    conv = S.Convolution(d, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv")
    act = S.LeakyReLU(S.BatchNorm(conv, name="bn"), act_type="prelu", name="prelu")
    pool = S.Pooling(act, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool")
    up = S.Deconvolution(pool, kernel=(2, 2), stride=(2, 2), num_filter=6, name="deconv")
    norm = S.InstanceNorm(S.GroupNorm(up, num_groups=2, name="gn"), name="inorm")
    lrn = S.LRN(S.Activation(norm, act_type="relu", name="relu"), nsize=3, name="lrn")
    ups = S.UpSampling(lrn, scale=2, sample_type="nearest", name="ups")
    drop = S.Dropout(S.L2Normalization(ups, name="l2"), p=0.5, name="drop")
    gpool = S.Pooling(drop, kernel=(1, 1), global_pool=True, pool_type="avg", name="gpool")
    vision = S.SoftmaxOutput(S.FullyConnected(gpool, num_hidden=5, name="fc"), name="sm")
    bilinear = S.UpSampling(d, scale=2, sample_type="bilinear", num_filter=3, name="bilinear")

    x, length = S.var("x"), S.var("length")
    rnn = S.RNN(x, S.var("rnn_params"), S.var("rnn_state"), S.var("rnn_cell"), mode="lstm",
                state_size=3, num_layers=1, bidirectional=True, state_outputs=True,
                name="rnn")
    mask = S.SequenceMask(rnn[0], length, use_sequence_length=True, name="mask")
    rev = S.SequenceReverse(mask, length, use_sequence_length=True, name="rev")
    ln = S.LayerNorm(S.SequenceLast(rev, name="last"), name="ln")
    soft = S.SoftmaxActivation(S.log_softmax(S.softmin(S.hard_sigmoid(ln, name="hs"),
                                                       name="smin"), name="lsm"), name="sa")
    seq = S.Group([S.make_loss(S.dot(soft, S.var("w"), name="dot"), name="ml"),
                   rnn[1], rnn[2]])

    p = S.var("p")
    losses = S.Group([S.LinearRegressionOutput(p, name="lin"),
                      S.MAERegressionOutput(p, name="mae"),
                      S.LogisticRegressionOutput(p, name="logi"), S.SVMOutput(p, name="svm"),
                      S.MakeLoss(p, name="mk"),
                      S.IdentityAttachKLSparseReg(S.sigmoid(p, name="sig"), name="kl"),
                      S.LeakyReLU(p, act_type="rrelu", name="rrelu"),
                      S.BatchNorm_v1(p, name="bn1")])

    idx = S.var("idx")
    emb = S.Embedding(idx, input_dim=10, output_dim=6, name="emb")
    text = S.Group([S.CTCLoss(emb, S.var("label"), name="ctc"),
                    S.batch_dot(emb, emb, transpose_b=True, name="bd")])

    A, B, C = S.var("A"), S.var("B"), S.var("C")
    L = S.linalg
    linalg = S.Group([L.potrf(A, name="potrf"), L.potri(A, name="potri"),
                      L.inverse(A, name="inv"), L.det(A, name="det"),
                      L.slogdet(A, name="slogdet"), L.sumlogdiag(A, name="sld"),
                      L.syevd(A, name="syevd"), L.gelqf(B, name="gelqf"),
                      L.trmm(A, B, name="trmm"), L.trsm(A, B, name="trsm"),
                      L.gemm(A, B, C, name="gemm"), S.linalg_slogdet(A, name="flat")])

    x2 = S.var("x2")
    contrib = S.Group([S.contrib.SyncBatchNorm(x2, key="sbn", name="sbn"),
                       S.contrib.BatchNormWithReLU(x2, name="bnr"),
                       S.contrib.box_nms(S.var("boxes"), name="nms"),
                       S.contrib.bipartite_matching(S.var("scores"), threshold=0.5,
                                                    name="bm"),
                       S.contrib.DeformableConvolution(S.var("img"), S.var("offset"),
                                                       kernel=(3, 3), num_filter=2,
                                                       name="dcn")])
    half = S.Group([S.SoftmaxOutput(S.FullyConnected(S.Pooling(act, kernel=(2, 2), name="hp"),
                                                     num_hidden=3, name="hfc"), name="hsm"),
                    S.LayerNorm(d, name="hln"), S.GroupNorm(d, num_groups=3, name="hgn"),
                    S.Embedding(idx, input_dim=4, output_dim=2, dtype="float16", name="hem"),
                    S.SequenceLast(d, length, use_sequence_length=True, name="hsl")])
    # inputs a node has only with some attributes (the records' ``takes``): those left out
    # of the call become variables exactly when MXNet makes them
    o = S.var("o")
    optional = S.Group([
        S.FullyConnected(o, num_hidden=3, no_bias=True, name="fc_nb"),
        S.FullyConnected(o, num_hidden=3, name="fc_b"),
        S.Deconvolution(o, kernel=(2, 2), num_filter=2, name="dc"),
        S.Deconvolution(o, kernel=(2, 2), num_filter=2, no_bias=False, name="dc_b"),
        S.Convolution(o, kernel=(1, 1), num_filter=2, no_bias=True, name="cv_nb"),
        S.LeakyReLU(o, act_type="prelu", name="lr_p"), S.LeakyReLU(o, name="lr_l"),
        S.softmax(o, use_length=True, name="sm_len"),
        S.contrib.BilinearResize2D(o, mode="like", name="rs_like"),
        S.RNN(S.var("t"), state_size=4, num_layers=1, mode="gru", use_sequence_length=True,
              name="gru"),
        S.RNN(S.var("t"), state_size=4, num_layers=1, mode="lstm", name="lstm"),
        S.SequenceMask(S.var("t"), use_sequence_length=True, name="sq"),
        S.CTCLoss(S.var("t"), S.var("lab"), use_label_lengths=True, name="ctc")])
    # MXNet's flat names are aliases: a graph is written with the canonical names
    M = S.var("M")
    flat = S.Group([S.linalg_gelqf(M, name="lq")[0], S.linalg_slogdet(M, name="sd")[1],
                    S.linalg_potrf(M, name="pf"), S.linalg_sumlogdiag(M, name="sl"),
                    S.sample_normal(S.var("mu"), S.var("sg"), name="sn"),
                    S.contrib.box_non_maximum_suppression(S.var("bx"), name="bn"),
                    S.sample_multinomial(S.var("pr"), name="mn"),
                    S.sample_multinomial(S.var("pr"), get_prob=True, name="mnp")[1],
                    S.random.multinomial(S.var("pr"), name="rmn")[1]])
    return {
        "flat_names": (flat, {"M": (2, 3, 3), "mu": (2,), "sg": (2,), "bx": (1, 4, 6),
                              "pr": (2, 3)}, None),
        "optional_inputs": (optional, {"o": (2, 3, 4, 4), "t": (5, 2, 3), "rs_like_like": (2, 3, 6, 6),
                                       "lab": (2, 4), "ctc_label_lengths": (2,)}, None),
        "vision": (vision, {"data": (2, 3, 8, 8)}, None),
        "bilinear": (bilinear, {"data": (2, 3, 5, 5)}, None),
        "half": (half, {"data": (4, 3, 6, 6), "idx": (2,), "length": (3,)},
                 {"data": "float16", "idx": "int32", "length": "int32"}),
        "sequence": (seq, {"x": (5, 2, 4), "length": (2,), "w": (6, 3)},
                     {"x": "float32", "length": "int32"}),
        "losses": (losses, {"p": (4, 3)}, {"p": "float32"}),
        "text": (text, {"idx": (4, 7), "label": (7, 3)}, {"idx": "int32"}),
        "linalg": (linalg, {"A": (2, 3, 3), "B": (2, 3, 5)}, {"A": "float64"}),
        "contrib": (contrib, {"x2": (2, 3, 4), "boxes": (1, 4, 6), "scores": (2, 3, 4),
                              "img": (1, 2, 5, 5), "offset": (1, 18, 3, 3)},
                    {"x2": "float16", "img": "float32"}),
    }
