"""Gluon Estimator (MXNet 1.6+): ``Estimator(net, loss, ...).fit(train_data, val_data,
epochs)`` with event handlers."""
from . import batch_processor, event_handler, estimator
from .estimator import Estimator
from .event_handler import (EventHandler, TrainBegin, TrainEnd, EpochBegin, EpochEnd,
                            BatchBegin, BatchEnd, StoppingHandler, MetricHandler,
                            ValidationHandler, LoggingHandler, CheckpointHandler,
                            EarlyStoppingHandler, GradientUpdateHandler)
from .batch_processor import BatchProcessor

__all__ = ["Estimator", "BatchProcessor", "EventHandler", "TrainBegin", "TrainEnd",
           "EpochBegin", "EpochEnd", "BatchBegin", "BatchEnd", "StoppingHandler",
           "MetricHandler", "ValidationHandler", "LoggingHandler", "CheckpointHandler",
           "EarlyStoppingHandler", "GradientUpdateHandler"]
