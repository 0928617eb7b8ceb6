"""Threads: scopes shared between threads, predict vs train, shared 'add' variables.

Each test runs 8 threads that start together (a barrier) and interleave their steps
(a second barrier inside the scope), which is where shared state gets swapped or lost.
"""
import threading

import numpy as np

import mxgrad as mx
from mxgrad import autograd

N_THREADS = 8


def _run(target, n=N_THREADS):
    errors = []

    def wrapped(i):
        try:
            target(i)
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    threads = [threading.Thread(target=wrapped, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def test_one_scope_object_entered_in_many_threads_restores_each_threads_state():
    # Before the fix the scope kept one stack of saved states for all threads: the
    # threads popped each other's states and left with the flags of another thread.
    ng = autograd.pause()
    inside = threading.Barrier(N_THREADS)
    seen = [None] * N_THREADS

    def work(i):
        training, recording = bool(i % 2), bool(i // 2 % 2)
        autograd.set_training(training)
        autograd.set_recording(recording)
        with ng:
            inside.wait()
            assert not autograd.is_recording() and not autograd.is_training()
            inside.wait()
        seen[i] = (autograd.is_recording(), autograd.is_training(), (recording, training))

    _run(work)
    for rec, train, expected in seen:
        assert (rec, train) == expected


def test_shared_train_and_predict_scope_objects_across_threads():
    train, predict = autograd.train_mode(), autograd.predict_mode()
    inside = threading.Barrier(N_THREADS)
    results = [None] * N_THREADS

    def work(i):
        net_mode = train if i % 2 else predict
        x = mx.nd.ones((200, 10))
        with net_mode:
            inside.wait()
            y = mx.nd.Dropout(x, p=0.5)
            inside.wait()
            results[i] = (autograd.is_training(), float((y.asnumpy() == 0).mean()))
        assert not autograd.is_training()

    _run(work)
    for i, (training, zero_fraction) in enumerate(results):
        assert training == bool(i % 2)
        if training:
            assert 0.3 < zero_fraction < 0.7
        else:
            assert zero_fraction == 0.0


def test_train_mode_and_predict_mode_restore_only_the_training_flag():
    # As in MXNet 1.9.1: a flag the scope did not set is left as the block left it.
    for scope in (autograd.train_mode, autograd.predict_mode):
        try:
            with scope():
                autograd.set_recording(True)
            assert autograd.is_recording()
            assert not autograd.is_training()
        finally:
            autograd.set_recording(False)
            autograd.set_training(False)


def test_record_and_pause_restore_both_flags_they_set():
    with autograd.record():
        autograd.set_training(False)
    assert not autograd.is_recording() and not autograd.is_training()
    autograd.set_training(True)
    try:
        with autograd.pause():
            autograd.set_training(False)
        assert autograd.is_training() and not autograd.is_recording()
    finally:
        autograd.set_training(False)


def test_one_context_object_entered_in_many_threads():
    ctx = mx.gpu(3)
    inside = threading.Barrier(N_THREADS)
    seen = [None] * N_THREADS

    def work(i):
        mine = mx.cpu(i)
        with mine:
            with ctx:
                inside.wait()
                assert mx.context.current_context() == ctx
                inside.wait()
            seen[i] = mx.context.current_context()

    _run(work)
    assert seen == [mx.cpu(i) for i in range(N_THREADS)]
    assert mx.context.current_context() == mx.cpu()
