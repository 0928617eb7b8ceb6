"""How the Estimator trains and evaluates one batch (override to customize)."""
from __future__ import annotations

from .... import autograd
from ....base import DTypeError
from ...utils import split_and_load

__all__ = ["BatchProcessor", "BatchFormatError"]


class BatchFormatError(DTypeError, ValueError):
    """A batch that is not a ``(data, label)`` pair: a ``TypeError`` (the Python type is
    wrong) that is also the ``ValueError`` MXNet's Estimator raises."""


class BatchProcessor:
    """``fit_batch`` and ``evaluate_batch`` of :class:`Estimator`.

    Subclass and override them for custom steps (several inputs, extra losses...);
    both return ``(data, label, pred, loss)``, each a list with one entry per context.
    """

    def _get_data_and_label(self, batch, ctx, batch_axis=0):
        if not isinstance(batch, (list, tuple)) or len(batch) < 2:
            raise BatchFormatError(f"Estimator: each batch of train_data/val_data must be a "
                             f"(data, label) pair, got {type(batch).__name__} "
                             f"{str(batch)[:40]}; pass a gluon.data.DataLoader over a "
                             f"dataset of (data, label) samples")
        data = split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis)
        label = split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis)
        return data, label

    def evaluate_batch(self, estimator, val_batch, batch_axis: int = 0):
        """Predict (not recording, so in predict mode) and compute the validation loss."""
        data, label = self._get_data_and_label(val_batch, estimator.context, batch_axis)
        pred = [estimator.val_net(x) for x in data]
        loss = [estimator.val_loss(y_hat, y) for y_hat, y in zip(pred, label)]
        return data, label, pred, loss

    def fit_batch(self, estimator, train_batch, batch_axis: int = 0):
        """Forward under ``autograd.record()`` and backward; the parameter update is the
        GradientUpdateHandler's job (at batch end)."""
        data, label = self._get_data_and_label(train_batch, estimator.context, batch_axis)
        with autograd.record():
            pred = [estimator.net(x) for x in data]
            loss = [estimator.loss(y_hat, y) for y_hat, y in zip(pred, label)]
        # one backward over all slices: the contributions of every context's slice add up
        # also where contexts share one parameter copy (a backward per slice with
        # grad_req 'write' would keep only the last slice's gradient)
        autograd.backward(loss)
        return data, label, pred, loss
