"""Ratings from duplicate groups: Bradley-Terry / Plackett-Luce on the Elo scale.

One duplicate group is one observation. Within a group each agent's *group
score* is its mean reward over the seats it held in the group's games, and
the group ranks the agents at its table by that score (equal scores tie).

The model is Plackett-Luce: agent ``i`` has strength ``exp(theta_i)`` and
a group's ranking is drawn as a sequence of choices with probabilities in
proportion to strength. Under Plackett-Luce the order of any two agents in a
ranking has the Bradley-Terry probability ``P(i above j) = 1 / (1 +
exp(theta_j - theta_i))`` whoever else sits at the table, so the ratings are
fitted by maximum likelihood on every pair of agents in every group ("full
rank breaking", a consistent estimator for Plackett-Luce), a tie counting
half a win each way. A weak prior of one drawn pair per couple of agents
keeps the fit finite when one agent wins every group against another.

Ratings are on the Elo scale (400 points per factor 10 in odds, mean 1500):
a 100 point gap means the stronger agent ranks above the weaker in 64% of
duplicate groups. A rating is relative to the mean of the agents rated
together, so its interval is one for that centred rating.

The 95% intervals are profile-likelihood intervals: every rating the
likelihood (with the prior) does not reject at the 5% level, by the
chi-squared test of one degree of freedom on twice the log-likelihood drop
when the agent's centred rating is held at that value and the others are
fitted again. They contain their estimate by construction and are as
lopsided as the evidence: an agent that lost every group is bounded above but
hardly below. An end the groups do not bound within :data:`OPEN_END_ELO` of
the estimate is reported at that distance and marked open. Why not the
bootstrap any more: with few groups its percentile interval sat around an
estimate the prior had pulled towards the mean, covering the weakest of three
agents' true rating in 10% of simulated 10-group tournaments; a simulation with known
strengths (``python -m slagwerk.experiments.studies.interval_coverage``,
docs/intervals.md) shows the profile intervals covering about 95% from 10 to
1,000 groups, two to six seats, teams and draws.

Beside the ratings: each agent's mean deal points per deal (game units)
with a bootstrap interval (whole groups resampled), bootstrap samples of
the ratings for intervals of differences, and the head-to-head record of
groups won, drawn and lost.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .defaults import DEFAULT_BOOTSTRAP

ELO_PER_NAT = 400.0 / np.log(10.0)
"""Elo points per unit of log-strength (natural log odds)."""
ELO_MEAN = 1500.0
PRIOR_DRAWS = 0.3
"""Virtual drawn groups between every pair of agents: keeps the fit finite when one agent
won every group against another. At 1.0 it pulled extreme agents' estimates towards the
mean enough to cost coverage at 10 groups (docs/intervals.md); 0.3 keeps coverage and
estimates near the truth."""
OPEN_END_ELO = 1000.0
"""How far from its estimate an interval's end is sought; beyond it the end is open."""
CHI2_95 = 3.841458820694124
"""The 95% point of chi-squared with one degree of freedom."""
TIE_TOLERANCE = 1e-9
"""Group scores closer than this are a tie."""
MAX_NEWTON_STEPS = 100


@dataclass(frozen=True)
class Groups:
    """Per duplicate group and agent: mean reward, points and deals counted.

    ``score[g, a]`` is agent ``a``'s mean reward over its seats in group
    ``g`` (NaN when ``a`` did not play in it); ``points[g, a]`` the deal
    points it scored and ``deals[g, a]`` the seat-deals they were scored
    over (forfeited games count reward but no points). ``ids`` are the group
    numbers, ascending.
    """

    ids: np.ndarray
    score: np.ndarray
    points: np.ndarray
    deals: np.ndarray

    @property
    def count(self) -> int:
        return len(self.ids)


def groups_from_lines(lines, n_agents: int) -> Groups:
    """Collect result lines (``runner.play_game``) into :class:`Groups`.

    Every line of a group must be present: the caller passes complete groups.
    """
    by_group: dict[int, list[dict]] = {}
    for line in lines:
        by_group.setdefault(int(line["group"]), []).append(line)
    ids = np.array(sorted(by_group), dtype=np.int64)
    reward_sum = np.zeros((len(ids), n_agents))
    seats = np.zeros((len(ids), n_agents))
    points = np.zeros((len(ids), n_agents))
    deals = np.zeros((len(ids), n_agents))
    for row, group in enumerate(ids):
        for line in by_group[int(group)]:
            for seat, agent in enumerate(line["table"]):
                reward_sum[row, agent] += line["reward"][seat]
                seats[row, agent] += 1
                if line["points"] is not None:
                    points[row, agent] += line["points"][seat]
                    deals[row, agent] += line["deals"]
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(seats > 0, reward_sum / np.maximum(seats, 1), np.nan)
    return Groups(ids, score, points, deals)


def pair_outcomes(score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per group, the pairwise results of the agents present.

    Returns ``(wins, met)``, both ``float64[G, k, k]``: ``wins[g, i, j]`` is 1
    if ``i`` ranked above ``j`` in group ``g``, 0.5 for a tie, else 0;
    ``met[g, i, j]`` is 1 when both played in group ``g`` (``i != j``).
    """
    present = ~np.isnan(score)
    met = (present[:, :, None] & present[:, None, :]).astype(np.float64)
    k = score.shape[1]
    met[:, np.arange(k), np.arange(k)] = 0.0
    filled = np.where(present, score, 0.0)
    diff = filled[:, :, None] - filled[:, None, :]
    wins = np.where(diff > TIE_TOLERANCE, 1.0, np.where(np.abs(diff) <= TIE_TOLERANCE, 0.5, 0.0))
    return wins * met, met


def _log_likelihood(theta: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Log-likelihood of each fit: ``theta`` is ``float64[B, k]``, ``w`` ``float64[B, k, k]``."""
    diff = theta[:, :, None] - theta[:, None, :]
    return -np.sum(w * np.logaddexp(0.0, -diff), axis=(1, 2))


def fit_bradley_terry(wins: np.ndarray, met: np.ndarray, start: np.ndarray | None = None,
                      prior_draws: float = PRIOR_DRAWS, tolerance: float = 1e-10) -> np.ndarray:
    """Maximum-likelihood log-strengths (mean 0) from aggregate pairwise results.

    ``wins[i, j]`` counts ``i``'s wins over ``j`` (ties as halves) and
    ``met[i, j]`` their meetings, both ``float64[k, k]``; ``prior_draws``
    adds that many drawn meetings to every pair. The prior makes the
    log-likelihood strictly concave once the mean is fixed, so Newton's
    method (with step halving) converges in a few steps; ``met`` enters
    through ``wins + wins.T`` and is kept for the callers' bookkeeping.
    """
    return fit_bradley_terry_many(wins[None], start, prior_draws, tolerance)[0]


def fit_bradley_terry_many(wins: np.ndarray, start: np.ndarray | None = None,
                           prior_draws: float = PRIOR_DRAWS, tolerance: float = 1e-10) -> np.ndarray:
    """:func:`fit_bradley_terry` of ``B`` independent results at once (``wins``:
    ``float64[B, k, k]``; ``start``: ``float64[k]`` for all or ``float64[B, k]``),
    as ``float64[B, k]``. Each fit takes its own Newton steps and step halvings,
    as it would alone; the bootstrap's thousand fits cost a few array operations
    each step instead of a thousand Python loops."""
    count, k = wins.shape[0], wins.shape[1]
    w = wins + 0.5 * prior_draws * (1.0 - np.eye(k))
    pair_total = w + np.swapaxes(w, 1, 2)
    theta = np.zeros((count, k)) if start is None else np.array(np.broadcast_to(start, (count, k)),
                                                                  dtype=np.float64)
    current = _log_likelihood(theta, w)
    centre = np.ones((k, k)) / k  # pins the free direction (all ratings + c)
    active = np.arange(count)  # fits still moving
    for _ in range(MAX_NEWTON_STEPS):
        if not len(active):
            break
        t, wa = theta[active], w[active]
        p = 0.5 * (1.0 + np.tanh(0.5 * (t[:, :, None] - t[:, None, :])))  # logistic, overflow-free
        q = 1.0 - p
        gradient = np.sum(wa * q, axis=2) - np.sum(np.swapaxes(wa, 1, 2) * np.swapaxes(q, 1, 2), axis=2)
        v = pair_total[active] * p * q
        information = -v
        information[:, np.arange(k), np.arange(k)] += v.sum(axis=2)
        step = np.linalg.solve(information + centre, gradient[:, :, None])[:, :, 0]
        scale = np.ones(len(active))
        candidate = t + step
        value = _log_likelihood(candidate, wa)
        halving = np.flatnonzero(value < current[active] - 1e-12)
        while len(halving):
            scale[halving] *= 0.5
            candidate[halving] = t[halving] + scale[halving, None] * step[halving]
            value[halving] = _log_likelihood(candidate[halving], wa[halving])
            halving = halving[(value[halving] < current[active][halving] - 1e-12)
                              & (scale[halving] >= 1e-6)]
        theta[active] = candidate - candidate.mean(axis=1, keepdims=True)
        current[active] = value
        active = active[np.max(np.abs(scale[:, None] * step), axis=1) >= tolerance]
    return theta


def _fit_with_rating_held(w: np.ndarray, agent: int, centred: float, start: np.ndarray,
                          tolerance: float = 1e-10) -> tuple[float, np.ndarray]:
    """The highest log-likelihood of the prior-augmented wins ``w`` (``float64[k, k]``) with
    ``agent``'s centred log-strength held at ``centred``, and the fit that reaches it.

    The others are free; ``agent``'s log-strength follows from them, ``(k * centred + sum of
    the others) / (k - 1)``. Newton's method with step halving, from ``start``."""
    k = w.shape[0]
    others = np.delete(np.arange(k), agent)
    jacobian = np.zeros((k, k - 1))  # d theta / d others
    jacobian[others, np.arange(k - 1)] = 1.0
    jacobian[agent, :] = 1.0 / (k - 1)
    pin = np.ones((k - 1, k - 1)) / (k - 1)  # the common shift changes nothing: pin it

    def full(free):
        theta = np.empty(k)
        theta[others] = free
        theta[agent] = (k * centred + free.sum()) / (k - 1)
        return theta

    free = start[others] - start.mean()
    theta = full(free)
    value = _log_likelihood(theta[None], w[None])[0]
    for _ in range(MAX_NEWTON_STEPS):
        p = 0.5 * (1.0 + np.tanh(0.5 * (theta[:, None] - theta[None, :])))
        q = 1.0 - p
        gradient = np.sum(w * q, axis=1) - np.sum(w.T * q.T, axis=1)
        v = (w + w.T) * p * q
        information = np.diag(v.sum(axis=1)) - v
        step = np.linalg.solve(jacobian.T @ information @ jacobian + pin, jacobian.T @ gradient)
        scale = 1.0
        while True:
            candidate = full(free + scale * step)
            candidate_value = _log_likelihood(candidate[None], w[None])[0]
            if candidate_value >= value - 1e-12 or scale < 1e-6:
                break
            scale *= 0.5
        free, theta, value = free + scale * step, candidate, candidate_value
        if np.max(np.abs(scale * step)) < tolerance:
            break
    return value, theta


def dispersion(wins: np.ndarray, met: np.ndarray) -> np.ndarray:
    """Per agent, how much its pairwise results vary against what the fit assumes of them,
    from the groups' pairwise results (:func:`pair_outcomes`).

    The fit treats every pair of a group as an independent Bradley-Terry trial. Two things
    make the real spread differ, and the profile test's critical value is scaled by both:

    - the pairs of one group come from one ranking: among ``n`` agents an agent's count of
      agents ranked below it varies ``(n + 1) / 3`` times as much as ``n - 1`` independent
      even pairs would (a uniform rank against a binomial), averaged over the agent's groups
      with their pairs as weights (1 where every group seats two agents);
    - a tie is half a win with no spread: an even pair that ties a share ``t`` of the time
      varies ``1 - t`` times as much as one decided every time. The agent's own share of
      tied pairs stands in for ``t`` (never below a tenth of the spread)."""
    pairs = met.sum(axis=2)  # per group and agent: the others it met there, n - 1
    n = pairs + 1.0
    inflated = np.where(pairs > 0, (n * n - 1.0) / 3.0, 0.0)
    total = pairs.sum(axis=0)
    table = np.where(total > 0, inflated.sum(axis=0) / np.maximum(total, 1e-12), 1.0)
    tied = ((wins == 0.5) & (met == 1.0)).sum(axis=(0, 2))
    tie_share = np.where(total > 0, tied / np.maximum(total, 1e-12), 0.0)
    return table * np.maximum(1.0 - tie_share, 0.1)


def profile_interval(w: np.ndarray, theta: np.ndarray, agent: int,
                     critical: float = CHI2_95) -> tuple[float, float, bool, bool]:
    """``agent``'s 95% profile-likelihood interval of its centred log-strength.

    ``w`` are the prior-augmented wins, ``theta`` their maximum-likelihood fit; the interval
    holds every value where twice the log-likelihood's drop stays below ``critical``. Returns
    ``(low, high, low_open, high_open)`` in natural units, centred like ``theta``; an end not
    reached within :data:`OPEN_END_ELO` of the estimate is put there and marked open."""
    low, low_open = _interval_end(w, theta, agent, -1.0, critical)
    high, high_open = _interval_end(w, theta, agent, 1.0, critical)
    return low, high, low_open, high_open


def _interval_end(w, theta, agent, direction, critical) -> tuple[float, bool]:
    """One end of :func:`profile_interval`: bracketed by doubling steps away from the
    estimate, then found by Brent's method; each held fit starts from the nearest one known."""
    from scipy.optimize import brentq

    best = _log_likelihood(theta[None], w[None])[0]
    estimate = theta[agent] - theta.mean()
    reach = OPEN_END_ELO / ELO_PER_NAT
    fits = {0.0: theta}

    def excess(offset):
        nearest = min(fits, key=lambda known: abs(known - offset))
        value, fit = _fit_with_rating_held(w, agent, estimate + offset, fits[nearest])
        fits[offset] = fit
        return 2.0 * (best - value) - critical

    inner, outer = 0.0, direction * 0.25
    while excess(outer) < 0.0:
        if abs(outer) >= reach:
            return estimate + outer, True
        inner, outer = outer, direction * min(2.0 * abs(outer), reach)
    return estimate + brentq(excess, min(inner, outer), max(inner, outer), xtol=1e-6), False


def elo_of_theta(theta: np.ndarray) -> np.ndarray:
    """Log-strengths (natural units) as Elo-scale ratings with mean 1500 (along the last axis)."""
    return ELO_MEAN + ELO_PER_NAT * (theta - theta.mean(axis=-1, keepdims=True))


@dataclass(frozen=True)
class AgentRating:
    """One agent's line of a ranking."""

    agent: str
    rating: float
    ci95: tuple[float, float]
    mean_score: float | None
    mean_score_ci95: tuple[float, float] | None
    open_ends: tuple[bool, bool] = (False, False)
    """Whether the interval's low and high ends are open (see :data:`OPEN_END_ELO`)."""

    def interval_text(self, digits: int = 1) -> str:
        """The interval as ``[low, high]``, an open end marked ``<`` or ``>``: the interval
        reaches beyond it."""
        low = ("<" if self.open_ends[0] else "") + f"{self.ci95[0]:.{digits}f}"
        high = (">" if self.open_ends[1] else "") + f"{self.ci95[1]:.{digits}f}"
        return f"[{low}, {high}]"

    def as_json(self) -> dict:
        return {
            "agent": self.agent,
            "rating": round(self.rating, 1),
            "ci95": [round(v, 1) for v in self.ci95],
            "ci95_open": list(self.open_ends),
            "mean_score": None if self.mean_score is None else round(self.mean_score, 3),
            "mean_score_ci95": None
            if self.mean_score_ci95 is None
            else [round(v, 3) for v in self.mean_score_ci95],
        }


@dataclass(frozen=True)
class Ratings:
    """A fitted ranking (best first) and the head-to-head records.

    ``head_to_head[i][j]`` is ``(won, drawn, lost)`` in groups for agent
    ``labels[i]`` against ``labels[j]``. ``samples[b, i]`` is ``labels[i]``'s
    rating in bootstrap resample ``b`` (intervals of rating differences).
    """

    labels: tuple[str, ...]
    ranking: tuple[AgentRating, ...]
    head_to_head: tuple[tuple[tuple[int, int, int], ...], ...]
    groups: int
    samples: np.ndarray | None = field(default=None, repr=False, compare=False)

    def difference(self, first: str, second: str) -> tuple[float, tuple[float, float]]:
        """``first``'s rating minus ``second``'s, with its 95% bootstrap interval
        (percentiles of the difference over the same resamples, so the two
        ratings' dependence is kept)."""
        rating = {row.agent: row.rating for row in self.ranking}
        gap = rating[first] - rating[second]
        if self.samples is None or not len(self.samples):
            return gap, (gap, gap)
        i, j = self.labels.index(first), self.labels.index(second)
        low, high = np.percentile(self.samples[:, i] - self.samples[:, j], [2.5, 97.5])
        return gap, (float(low), float(high))


def rate(groups: Groups, labels: list[str], bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = 0) -> Ratings:
    """Fit the ratings of ``groups``, their profile-likelihood intervals, and ``bootstrap``
    resamples for the mean scores' intervals and the ratings' differences.

    The bootstrap draws whole groups with replacement from a generator seeded
    with ``seed``, so its intervals are reproducible.
    """
    k = len(labels)
    wins_g, met_g = pair_outcomes(groups.score)
    wins, met = wins_g.sum(axis=0), met_g.sum(axis=0)
    theta = fit_bradley_terry(wins, met)
    rating = elo_of_theta(theta)
    total_points = groups.points.sum(axis=0)
    total_deals = groups.deals.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_score = np.where(total_deals > 0, total_points / np.maximum(total_deals, 1), np.nan)

    n = groups.count
    # The bootstrap resamples the groups together with the prior's drawn
    # pairs (one pseudo-group per couple of agents): otherwise an agent that
    # won every group against another would get the same fit in every
    # resample and a zero-width interval.
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    pseudo_met = np.zeros((len(pairs), k, k))
    for row, (i, j) in enumerate(pairs):
        pseudo_met[row, i, j] = pseudo_met[row, j, i] = 1.0
    flat_wins = np.concatenate([wins_g.reshape(n, -1), 0.5 * pseudo_met.reshape(len(pairs), -1)])
    flat_points = np.concatenate([groups.points, np.zeros((len(pairs), k))])
    flat_deals = np.concatenate([groups.deals, np.zeros((len(pairs), k))])
    m = n + len(pairs)
    rng = np.random.default_rng(seed)
    weight = np.empty((bootstrap, m))
    for b in range(bootstrap):
        weight[b] = rng.multinomial(m, np.full(m, 1.0 / m))
    boot_rating = elo_of_theta(fit_bradley_terry_many((weight @ flat_wins).reshape(bootstrap, k, k),
                                                      start=theta))
    bp, bd = weight @ flat_points, weight @ flat_deals
    with np.errstate(invalid="ignore", divide="ignore"):
        boot_score = np.where(bd > 0, bp / np.maximum(bd, 1), np.nan)

    augmented = wins + 0.5 * PRIOR_DRAWS * (1.0 - np.eye(k))
    spread = dispersion(wins_g, met_g)
    ranking = []
    for a in np.argsort(-rating, kind="stable"):
        low, high, low_open, high_open = profile_interval(augmented, theta, a, CHI2_95 * spread[a])
        low, high = ELO_MEAN + ELO_PER_NAT * low, ELO_MEAN + ELO_PER_NAT * high
        score_ci = None
        if not np.isnan(mean_score[a]):
            column = boot_score[:, a][~np.isnan(boot_score[:, a])]
            lo_s, hi_s = np.percentile(column, [2.5, 97.5]) if len(column) else (np.nan, np.nan)
            score_ci = (float(lo_s), float(hi_s))
        ranking.append(AgentRating(
            labels[a], float(rating[a]), (float(low), float(high)),
            None if np.isnan(mean_score[a]) else float(mean_score[a]), score_ci,
            (bool(low_open), bool(high_open)),
        ))
    won = np.rint((wins_g == 1.0).sum(axis=0) * 1.0).astype(int)
    drawn = np.rint(((wins_g == 0.5) & (met_g == 1.0)).sum(axis=0) * 1.0).astype(int)
    played = np.rint(met).astype(int)
    table = tuple(
        tuple((int(won[i, j]), int(drawn[i, j]), int(played[i, j] - won[i, j] - drawn[i, j]))
              for j in range(k))
        for i in range(k)
    )
    return Ratings(tuple(labels), tuple(ranking), table, n, boot_rating)
