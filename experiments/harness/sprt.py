"""Sequential probability ratio test over duplicate groups: is A stronger than B by E Elo?

Each duplicate group between A and B is one observation: A *wins* it (1)
when its group score (mean reward over its seats) is higher than B's,
*draws* (1/2) when equal, *loses* (0) otherwise. On the Elo scale of the
ratings (:mod:`.ratings`) an advantage of ``elo`` means an expected group
score ``s(elo) = 1 / (1 + 10 ** (-elo / 400))``.

The test is the generalized SPRT used by chess-engine testing (Van den
Bergh's GSPRT, as in Stockfish's fishtest) on this trinomial: under
hypothesis ``H_k`` the expected score is ``s_k = s(elo_k)`` and the
nuisance draw rate is free, so each hypothesis's likelihood is maximised over
the trinomials ``(p_loss, p_draw, p_win)`` whose mean is ``s_k``; the log
likelihood ratio is

    LLR = sum_x n_x log(p1_x / p0_x)

with ``n_x`` the counts of losses, draws and wins and ``p0``, ``p1`` those
constrained maxima (solved in closed form: the constraint leaves one free
parameter, and its stationarity condition is a quadratic). The test stops
at the first group where ``LLR >= log((1 - beta) / alpha)`` (accept H1: A is
at least ``elo1`` stronger) or ``LLR <= log(beta / (1 - alpha))`` (accept
H0: at most ``elo0``); these are Wald's bounds, which keep the error rates
near ``alpha`` (false H1 at ``elo0``) and ``beta`` (false H0 at ``elo1``).
Unlike the normal approximation this statistic is exact for small samples:
a first win moves the LLR by ``log(s1 / s0)``, not by an infinite amount.

The reported estimate is the plain mean score as Elo with a Wilson 95%
interval; after an early stop it is biased away from the stopping bound (as
every estimate read off a sequential test).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...engine.bits import derive_seed
from .config import SprtTest
from .ratings import TIE_TOLERANCE, groups_from_lines
from .runner import ExperimentError, GameSetup, hand_on_fault_traces, run_games, validate_setup
from .seating import rotations, schedule, tables_for

VERDICTS = ("H1", "H0", "inconclusive")
Z95 = 1.959964


def expected_score(elo):
    """Expected score of an ``elo`` advantage: ``1 / (1 + 10 ** (-elo / 400))``."""
    return 1.0 / (1.0 + 10.0 ** (-np.asarray(elo, dtype=np.float64) / 400.0))


def elo_of_score(score, clip: float = 1e-6):
    """The Elo advantage of an expected score (clipped away from 0 and 1)."""
    s = np.clip(np.asarray(score, dtype=np.float64), clip, 1.0 - clip)
    return -400.0 * np.log10(1.0 / s - 1.0)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds for error rates ``alpha`` and ``beta``."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _max_log_likelihood(losses, draws, wins, score):
    """``max sum n_x log p_x`` over trinomials with mean ``score`` (arrays broadcast).

    With ``p_win = p_loss + 2 s - 1`` and ``p_draw = 2 (1 - s - p_loss)``,
    ``p_loss`` ranges over ``[max(0, 1 - 2 s), 1 - s]``; the objective is
    concave there and its stationary point solves ``N x^2 - B x + C = 0``.
    Both roots and both ends are tried, each clipped to the range.
    """
    a = 1.0 - score
    b = 1.0 - 2.0 * score
    low = np.maximum(0.0, b)
    total = losses + draws + wins
    big_b = losses * (a + b) + draws * b + wins * a
    c = losses * a * b
    disc = np.sqrt(np.maximum(big_b * big_b - 4.0 * total * c, 0.0))
    safe_total = np.where(total > 0, total, 1.0)
    candidates = np.stack([
        (big_b - disc) / (2.0 * safe_total),
        (big_b + disc) / (2.0 * safe_total),
        low + 0.0 * total,
        a + 0.0 * total,
    ])
    x = np.clip(candidates, low, a)
    with np.errstate(divide="ignore", invalid="ignore"):
        from scipy.special import xlogy  # scipy loads only when an SPRT is computed

        value = xlogy(losses, x) + xlogy(draws, 2.0 * (a - x)) + xlogy(wins, x - b)
    value = np.where(np.isnan(value), -np.inf, value)
    return value.max(axis=0)


def llr(losses, draws, wins, elo0: float, elo1: float):
    """The GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``).

    ``losses``, ``draws``, ``wins`` are counts (numbers or arrays, broadcast).
    """
    losses, draws, wins = (np.asarray(v, dtype=np.float64) for v in (losses, draws, wins))
    return (_max_log_likelihood(losses, draws, wins, expected_score(elo1))
            - _max_log_likelihood(losses, draws, wins, expected_score(elo0)))


def estimate(losses: int, draws: int, wins: int) -> tuple[float, tuple[float, float]]:
    """Elo estimate of the mean score and a 95% interval.

    The interval is Wilson's score interval for the mean score, treating a
    draw as half a win: it stays honest when A has won (or lost) every group
    so far, and is slightly conservative with draws (a trinomial's variance
    is at most the Bernoulli's).
    """
    n = losses + draws + wins
    if n == 0:
        return 0.0, (-math.inf, math.inf)
    mean = (wins + 0.5 * draws) / n
    z2 = Z95 * Z95
    centre = (mean + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(mean * (1 - mean) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (float(elo_of_score(mean)),
            (float(elo_of_score(centre - half)), float(elo_of_score(centre + half))))


@dataclass(frozen=True)
class SprtResult:
    """The outcome of an SPRT: ``verdict`` is 'H1', 'H0' or 'inconclusive'.

    ``llr`` and its ``bounds`` (lower, upper); ``groups`` played and counted;
    ``wins``/``draws``/``losses`` of A against B in groups; ``elo`` the
    estimate with ``elo_ci95``; ``forfeits`` the games A and B lost by a
    fault in the counted groups, with the first reason of each
    (``forfeit_reasons``).
    """

    verdict: str
    llr: float
    bounds: tuple[float, float]
    groups: int
    wins: int
    draws: int
    losses: int
    elo: float
    elo_ci95: tuple[float, float]
    elo0: float
    elo1: float
    alpha: float
    beta: float
    forfeits: tuple[int, int] = (0, 0)
    forfeit_reasons: tuple[str | None, str | None] = (None, None)

    def as_json(self) -> dict:
        return {
            "verdict": self.verdict,
            "llr": round(self.llr, 4),
            "bounds": [round(v, 4) for v in self.bounds],
            "groups": self.groups,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "elo": round(self.elo, 1),
            "elo_ci95": [round(v, 1) for v in self.elo_ci95],
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "forfeits": {"a": self.forfeits[0], "b": self.forfeits[1]},
            "forfeit_reasons": {"a": self.forfeit_reasons[0], "b": self.forfeit_reasons[1]},
        }

    @classmethod
    def from_json(cls, data: dict) -> SprtResult:
        """The result :meth:`as_json` wrote (one stored before forfeits were counted has none).

        :raises KeyError, TypeError, ValueError: if ``data`` is not such a result.
        """
        data = dict(data)
        data["bounds"] = tuple(data["bounds"])
        data["elo_ci95"] = tuple(data["elo_ci95"])
        forfeits = data.pop("forfeits", {"a": 0, "b": 0})
        reasons = data.pop("forfeit_reasons", {"a": None, "b": None})
        return cls(**data, forfeits=(int(forfeits["a"]), int(forfeits["b"])),
                   forfeit_reasons=(reasons["a"], reasons["b"]))


def check_parameters(elo0: float, elo1: float, alpha: float, beta: float, max_groups: int) -> None:
    """:raises SettingsError: unless the test's settings keep :class:`~.config.SprtTest`'s rules
    (``-MAX_ELO <= elo0 < elo1 <= MAX_ELO``, ``0 < alpha, beta < 0.5``, ``1 <= max_groups <=
    MAX_GROUPS``)."""
    SprtTest(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, max_groups=max_groups)


def run_sprt(game: str, options: dict, a_spec: str, b_spec: str, elo0: float, elo1: float,
             alpha: float, beta: float, max_groups: int, seed: int, jobs: int = 1,
             unit: str = "deal", *, move_time: float | None = None, game_time: float | None = None,
             backend: str = "loky", scheduler: str | None = None, on_group=None,
             on_fault=None) -> SprtResult:
    """Play duplicate groups of ``a_spec`` against ``b_spec`` until the SPRT decides.

    Seating as in the tournament with two agents (A is agent 0): partnerships
    of copies in team games, every seating of the two otherwise. Groups are
    played ``jobs`` at a time (times a few) but counted in group order, so
    the verdict and the number of groups are the same for any ``jobs``.
    ``on_group(result)`` is called with the running :class:`SprtResult`
    after every counted group, ``on_fault(line, trace)`` with the traceback of
    each counted game lost by an agent's own exception. After ``max_groups`` groups
    without a decision the verdict is 'inconclusive'.
    """
    check_parameters(elo0, elo1, alpha, beta, max_groups)
    setup = GameSetup(game, tuple(sorted(dict(options or {}).items())), (a_spec, b_spec), unit,
                      int(seed), move_time, game_time=game_time, fault_traces=on_fault is not None)
    validate_setup(setup, unique_labels=False)
    from .runner import game_info

    info = game_info(setup)
    tables = tables_for(2, info.n_players, info.team_game, info.team_of)
    low, high = bounds(alpha, beta)
    counts = [0, 0, 0]  # losses, draws, wins of A
    faults = [0, 0]  # games A and B lost by forfeit
    reasons: list[str | None] = [None, None]
    batch = 1 if jobs == 1 and backend == "loky" else 4 * max(jobs, 2)
    result = None
    done = 0
    while done < max_groups:
        size = min(batch, max_groups - done)
        slots = schedule(tables, size, first_group=done)
        lines = list(run_games(setup, slots, jobs=jobs, backend=backend, scheduler=scheduler,
                               chunk=len(rotations(tables[0]))))
        groups = groups_from_lines(lines, 2)
        for row in range(groups.count):
            counted = [line for line in lines if line["group"] == done]  # rows: groups in order
            for line in counted:
                if line["forfeit"]:
                    agent = line["table"][line["forfeit"]["seat"]]
                    faults[agent] += 1
                    reasons[agent] = reasons[agent] or line["forfeit"]["error"]
            hand_on_fault_traces(counted, on_fault)  # a batch's games after the decision count for nothing
            diff = groups.score[row, 0] - groups.score[row, 1]
            counts[0 if diff < -TIE_TOLERANCE else 2 if diff > TIE_TOLERANCE else 1] += 1
            done += 1
            value = float(llr(*counts, elo0, elo1))
            verdict = "H1" if value >= high else "H0" if value <= low else "inconclusive"
            elo, ci = estimate(*counts)
            result = SprtResult(verdict, value, (low, high), done, counts[2], counts[1], counts[0],
                                elo, ci, elo0, elo1, alpha, beta, tuple(faults), tuple(reasons))
            if on_group is not None:
                on_group(result)
            if verdict != "inconclusive":
                return result
    return result


def simulate_runs(elo: float, draw_rate: float, elo0: float, elo1: float, alpha: float, beta: float,
                  runs: int, max_groups: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """SPRTs on simulated group outcomes with a known ``elo`` (for checking error rates).

    Each run draws trinomial outcomes with expected score ``s(elo)`` and the
    given draw rate. Returns ``(verdicts, lengths)``: per run 1 (H1), 0 (H0)
    or -1 (no decision within ``max_groups``), and the groups it took.
    """
    s = float(expected_score(elo))
    p_win = s - 0.5 * draw_rate
    p_loss = 1.0 - draw_rate - p_win
    if min(p_win, p_loss) < 0:
        raise ExperimentError(f"draw rate {draw_rate!r} is impossible at {elo!r} Elo")
    rng = np.random.default_rng(derive_seed(seed, runs, max_groups))
    low, high = bounds(alpha, beta)
    counts = np.zeros((3, runs))
    verdicts = np.full(runs, -1)
    lengths = np.full(runs, max_groups)
    active = np.ones(runs, dtype=bool)
    for step in range(1, max_groups + 1):
        outcome = rng.choice(3, size=runs, p=[p_loss, draw_rate, p_win])
        counts[outcome, np.arange(runs)] += active
        value = llr(counts[0], counts[1], counts[2], elo0, elo1)
        for verdict, crossed in ((1, value >= high), (0, value <= low)):
            stop = active & crossed
            verdicts[stop] = verdict
            lengths[stop] = step
            active &= ~stop
        if not active.any():
            break
    return verdicts, lengths
