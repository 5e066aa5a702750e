"""SPSA: simultaneous perturbation stochastic approximation (Spall), maximising.

Each iteration perturbs every coordinate at once by ``±c_k`` (a random sign
per coordinate), scores the two points on the *same* deals (common random
numbers: duplicate deals make the difference far less noisy than either
score) and steps along the estimated gradient

    g_k = (y+ - y-) / (2 c_k Delta),    theta <- theta + a_k g_k,

with Spall's gain schedules ``a_k = a / (A + k + 1)^alpha`` and
``c_k = c / (k + 1)^gamma`` (alpha = 0.602, gamma = 0.101, ``A`` about a
tenth of the iterations). Coordinates live in ``[0, 1]``, so one perturbation
size suits every parameter.

``a`` is calibrated as Spall recommends (Spall 1998, "Implementation of the
simultaneous perturbation algorithm"): the first ``calibration`` iterations
all perturb the start point; ``a`` is set so that the mean size of their
gradient estimates would move the point by ``initial_step`` in the first step,
and the first step then follows their average. A step is never longer than
``max_step`` (a guard against a freak gradient estimate). The recommendation
is the average of the iterates over the second half of the run
(Polyak-Ruppert averaging), which is much less noisy than the last iterate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

ALPHA = 0.602
"""Spall's exponent of the step gain ``a_k``."""
GAMMA = 0.101
"""Spall's exponent of the perturbation ``c_k``."""
STABILITY_FRACTION = 0.1
"""``A`` as a fraction of the iterations."""
PERTURBATION = 0.2
"""``c``: the first perturbation, in unit coordinates."""
INITIAL_STEP = 0.1
"""How far (unit coordinates, per coordinate) the first step should move."""
MAX_STEP = 0.25
"""No step moves a coordinate further than this."""
CALIBRATION_FRACTION = 0.1
"""Share of the iterations spent perturbing the start point to calibrate ``a``."""
MAX_CALIBRATION = 4
"""At most this many calibration iterations."""
MIN_ITERATIONS = 10
"""Fewer iterations than this cannot follow a gradient through noise."""

Objective = Callable[[np.ndarray, int], float]
"""``objective(unit_point, deal_key) -> score``; equal keys mean the same deals."""


@dataclass
class SpsaStep:
    """One iteration: the point before it, the perturbation, the two scores."""

    iteration: int
    theta: np.ndarray
    c_k: float
    a_k: float
    plus: np.ndarray
    minus: np.ndarray
    y_plus: float
    y_minus: float


@dataclass
class SpsaResult:
    """The recommended unit point, the last iterate and every iteration."""

    best: np.ndarray
    final: np.ndarray
    steps: list[SpsaStep] = field(default_factory=list)
    a: float = 0.0


def spsa_maximize(
    objective: Objective,
    start: np.ndarray,
    iterations: int,
    seed: int,
    *,
    perturbation: float = PERTURBATION,
    initial_step: float = INITIAL_STEP,
    max_step: float = MAX_STEP,
    on_step: Callable[[SpsaStep], None] | None = None,
) -> SpsaResult:
    """Maximise a noisy ``objective`` over ``[0, 1]^d`` from ``start`` in ``iterations`` pairs.

    Uses ``2 * iterations`` evaluations; iteration ``k``'s two evaluations use
    deal key ``k``. The sign draws come from ``seed`` alone, so a run replayed
    with the same scores takes the same path (this is how a tuning run resumes).

    >>> f = lambda x, key: 1.0 - float(np.sum((x - 0.7) ** 2))
    >>> result = spsa_maximize(f, np.array([0.2, 0.2]), 60, seed=1)
    >>> bool(np.all(np.abs(result.best - 0.7) < 0.05))
    True
    """
    if iterations < MIN_ITERATIONS:
        raise ValueError(f"SPSA needs at least {MIN_ITERATIONS} iterations, not {iterations}")
    rng = np.random.default_rng(seed)
    theta = np.clip(np.asarray(start, dtype=float), 0.0, 1.0)
    dims = theta.size
    stability = STABILITY_FRACTION * iterations
    n_calibration = int(min(MAX_CALIBRATION, max(1, round(CALIBRATION_FRACTION * iterations))))
    result = SpsaResult(best=theta.copy(), final=theta.copy())
    calibration_gradients = []
    a = 0.0
    averaged = np.zeros(dims)
    n_averaged = 0
    for k in range(iterations):
        c_k = perturbation / (k + 1) ** GAMMA
        delta = rng.choice([-1.0, 1.0], size=dims)
        plus = np.clip(theta + c_k * delta, 0.0, 1.0)
        minus = np.clip(theta - c_k * delta, 0.0, 1.0)
        y_plus = float(objective(plus, k))
        y_minus = float(objective(minus, k))
        # Divide by the distance actually travelled: clipping at a bound shortens it.
        span = np.where(plus != minus, plus - minus, 2.0 * c_k * delta)
        gradient = (y_plus - y_minus) / span
        if k < n_calibration:
            calibration_gradients.append(gradient)
            a_k = 0.0
            if k == n_calibration - 1:
                magnitude = float(np.mean(np.abs(calibration_gradients)))
                a = initial_step * (stability + 1) ** ALPHA / max(magnitude, 1e-9)
                a_k = a / (stability + 1) ** ALPHA
                step = a_k * np.mean(calibration_gradients, axis=0)
            else:
                step = np.zeros(dims)
        else:
            a_k = a / (stability + k + 1) ** ALPHA
            step = a_k * gradient
        result.steps.append(SpsaStep(k, theta.copy(), c_k, a_k, plus, minus, y_plus, y_minus))
        if on_step is not None:
            on_step(result.steps[-1])
        theta = np.clip(theta + np.clip(step, -max_step, max_step), 0.0, 1.0)
        if k >= iterations // 2:
            averaged += theta
            n_averaged += 1
    result.a = a
    result.final = theta
    result.best = averaged / n_averaged
    return result
