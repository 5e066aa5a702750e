"""The results folder of a training run.

Layout::

    config.json       the run's settings
    training.jsonl    one line per round, appended as each ends: round, deals, samples,
                      loss, mean return of the samples, seconds (that round's and in all)
    checkpoint.pt     the network and its optimiser after the last finished round, with
                      every round's line (PyTorch's format; written whole or not at all)
    model.npz         the network after the last finished round (``net:model=...``)
    snapshots/        the network every ``snapshot_every`` rounds (round-000050.npz, ...)
    curve/            the learning curve's tournament (a tournament folder), when the training ends
    curve.csv         the learning curve: each rated snapshot's and opponent's Elo with its interval
    curve.png         the same as a figure

A run killed at any moment resumes from its checkpoint: the rounds after it are played
again from their own seeds, so nothing is lost or counted twice, and the log is
rewritten from the checkpoint's lines (a line appended after the checkpoint was
written, by a round the checkpoint does not hold, is dropped with it).
"""

from __future__ import annotations

from ..harness.results import ExperimentFolder
from .curve import CURVE_CSV, CURVE_PNG

TRAINING_LOG = "training.jsonl"
CHECKPOINT = "checkpoint.pt"
MODEL = "model.npz"


class TrainingFolder(ExperimentFolder):
    """A training run's results folder (see the module docstring)."""

    LOG = TRAINING_LOG
    KIND = "training run"
    FILES = (CHECKPOINT, MODEL, CURVE_CSV, CURVE_PNG)
