"""Beliefs over worlds: which deals the other seats' play makes likely.

Plain determinization (``uniform``) deals the cards a seat cannot see
uniformly among the places they could be. A strong player reads the table
instead: a bid, a discard, a low card on a partner's trick say something
about a hand. ``inferred`` does what Buro et al. (2009, Skat) and Rebstock
et al. (2019, "Policy-based inference in trick-taking card games") do:
weight each world by how likely the observed actions are in it, under an
opponent model, and resample (sampling-importance-resampling).

:func:`infer_worlds` (one numba kernel, compiled per game through the
dispatch) draws ``particles`` worlds with the game's ``determinize``, turns
each into the deal that dealt it (the game's ``deal_from_world``), deals it
to the state that waited for the deal and replays the deal's public history
(:class:`~slagwerk.engine.replay.ReplayScript`, built from the view):

- **hard information**: a world in which the history cannot be replayed
  (another seat to move, an action its hand could not have made, a Kozel
  molodka question asked of a seat the table never heard asked) gets
  weight 0, so the belief agrees with the whole public history, beyond what
  ``determinize`` itself checks;
- **soft information**: each action of another seat multiplies the weight by
  its probability under the game's opponent model
  (:class:`~slagwerk.engine.replay.OpponentModel`,
  :func:`log_action_probability`): a softmax over the heuristic's scores of
  the legal actions (the game's ``action_scores``: Coins' expected coins,
  Kozel's expected point swing, ...; a game without them scores the
  heuristic's choice 1 and the rest 0) plus a bonus for a best-scored
  action, both weights fitted to real play and divided by a temperature.
  An infinite temperature gives hard information only; a model that does
  not read the card play (``OpponentModel.reads_play``, Koetsieren's) weighs
  only the actions outside it, and where ``determinize`` already agrees with
  the whole history the replay stops where the play begins
  (:data:`SCORE_BEFORE_PLAY`). The heuristic reads
  only what the mover sees, so it is evaluated in each world. An action the
  searching seat saw only in part (a face-down discard) is the one made in
  the world drawn (the game's ``history_action``).

The replayed worlds are resampled (systematic resampling) into a pool that
ISMCTS draws one world from per iteration and PIMC one per world. The
belief is rebuilt from the view at every decision (agents stay stateless),
and reads nothing but the view: the hidden cards of the state passed in are
redealt by ``determinize`` first.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..engine import dispatch
from ..engine.bits import make_rng, rand_below
from ..engine.common import copy_into
from ..engine.registry import info_by_id
from ..engine.replay import DEAL_TRIES, ReplayScript
from ..engine.state import GAME, PHASE, PHASE_PLAY, TO_MOVE, TRICKS_DONE
from ..kernel_cache import compiling
from .tree import SearchError

BELIEFS = ("uniform", "inferred")
DEFAULT_PARTICLES = 128
"""Worlds drawn and replayed per decision (the pool holds as many, resampled)."""
NO_WEIGHT = -np.inf
BELIEF_COMPILE_SECONDS = 3
"""About how long a belief kernel compiles with an empty cache (two cores,
2026-12-04: 2.8-3.5 s for ``belief=inferred`` in Coins, Kozel, Aluette)."""
_LOADED: set = set()
"""(game id, scoring) whose belief kernel this process has compiled or loaded."""
DRAW_ROUNDS = 8
"""Rounds of ``particles`` worlds a belief draws before it gives up, where the
game's ``determinize`` misses some of the history (Kozel: earlier tricks'
molodka questions). One round almost always has a world that agrees: in 4,000
positions of random Kozel matches, 256 worlds found none once."""


BEST_TOLERANCE = 1e-9
"""Scores this close to the best count as best."""

# Which actions of the other seats the opponent model weighs (a compile-time
# constant of the kernels, ``scored``): none is hard information only, and a
# model that does not read the card play (``OpponentModel.reads_play``)
# weighs only the actions outside it (Koetsieren's trump and bids, Kozel's
# molodka answers).
SCORE_NONE = 0
SCORE_ALL = 1
SCORE_OUTSIDE_PLAY = 2
SCORE_BEFORE_PLAY = 3
"""As :data:`SCORE_OUTSIDE_PLAY`, and the replay stops where the card play
begins: in a game whose ``determinize`` agrees with the whole history
(``determinize_uses_whole_history``; the conformance suite checks that
nothing but the play follows its start there) replaying the play can neither
drop a world nor weigh it, so the world searched is the determinized one."""


@njit(cache=True)
def log_action_probability(scores, n, index, beta_score, beta_best):
    """Log probability of action ``index`` of ``n`` legal actions under the
    opponent model: a softmax over ``beta_score * scores[i] + beta_best *
    best[i]``, ``best[i]`` 1 where ``scores[i]`` is (within
    :data:`BEST_TOLERANCE`) the best of ``scores[:n]``."""
    top = scores[0]
    for i in range(1, n):
        top = max(top, scores[i])
    total = 0.0
    if beta_score == 0.0:  # a choice-only model: each term is exp(beta_best) or 1, one exp for all
        boosted = np.exp(beta_best)
        for i in range(n):
            total += boosted if scores[i] - top >= -BEST_TOLERANCE else 1.0
    else:
        for i in range(n):
            shifted = scores[i] - top
            total += np.exp(beta_score * shifted + (beta_best if shifted >= -BEST_TOLERANCE else 0.0))
    shifted = scores[index] - top
    return beta_score * shifted + (beta_best if shifted >= -BEST_TOLERANCE else 0.0) - np.log(total)


def _model_log_probability(scored, g, state, rng, actions, n, scores, index, betas):
    """Log probability of ``actions[index]`` under the opponent model (the game's
    ``action_scores`` in ``state``, then :func:`log_action_probability`), or 0.0
    when ``scored`` is a compile-time 0: a hard-information belief (infinite
    temperature) then never compiles the game's scores."""
    raise TypeError("belief._model_log_probability runs only inside numba kernels")


@overload(_model_log_probability, prefer_literal=True)
def _choose_model(scored, g, state, rng, actions, n, scores, index, betas):
    if isinstance(scored, types.IntegerLiteral) and scored.literal_value == SCORE_NONE:
        return lambda scored, g, state, rng, actions, n, scores, index, betas: 0.0

    def model(scored, g, state, rng, actions, n, scores, index, betas):
        dispatch.action_scores(g, state, rng, actions, n, scores)
        return log_action_probability(scores, n, index, betas[0], betas[1])

    return model


@njit(cache=True)
def replay_world(g, world, seat, start, template, seats, keys, betas, scored, rng, state, deal, actions,
                 scores):
    """Replay the history in a deal that dealt ``world``; return the log likelihood
    of the other seats' actions (``-inf`` when the history cannot be replayed
    in it). ``state`` ends as the replayed world (with :data:`SCORE_BEFORE_PLAY`,
    as far as the replay went). ``scored`` says which actions are weighed:
    :data:`SCORE_NONE` (``betas`` both 0: hard information only),
    :data:`SCORE_ALL`, :data:`SCORE_OUTSIDE_PLAY` or :data:`SCORE_BEFORE_PLAY`
    (those outside the card play); as a compile-time constant
    (``dispatch.Constant``) it spares a hard-information belief the game's
    scores.

    A game may rebuild the deal in several ways (Kozel: which of a seat's
    cards it drew when); up to :data:`DEAL_TRIES` are tried, as a deal whose
    draws make a molodka question the table never heard fails to replay.
    ``deal``, ``actions`` and ``scores`` are work buffers.
    """
    for _ in range(DEAL_TRIES):
        if dispatch.deal_from_world(g, world, template, rng, deal):
            log_weight = _replay_deal(g, world, seat, start, seats, keys, betas, scored, rng, state, deal,
                                      actions, scores)
            if log_weight > NO_WEIGHT:
                return log_weight
    return NO_WEIGHT


@njit(cache=True)
def _replay_deal(g, world, seat, start, seats, keys, betas, scored, rng, state, deal, actions, scores):
    copy_into(state, start)
    dispatch.apply_deal(g, state, deal)
    log_weight = 0.0
    for j in range(seats.shape[0]):
        if scored == SCORE_BEFORE_PLAY and state[PHASE] == PHASE_PLAY:
            break
        mover = state[TO_MOVE]
        if mover != seats[j]:
            return NO_WEIGHT
        n = dispatch.legal_actions(g, state, actions)
        if n == 0:
            return NO_WEIGHT
        # Weights 0 are hard information only: no weight, not even 1/n (a world where
        # the mover had fewer choices would otherwise count for more).
        modelled = (scored != SCORE_NONE and mover != seat and n > 1
                    and (scored == SCORE_ALL or state[PHASE] != PHASE_PLAY))
        # An action the seat saw only in part is the one made in ``world``.
        wanted = dispatch.history_action(g, world, state, keys[j])
        index = -1
        for i in range(n):
            if actions[i] == wanted:
                index = i
                break
        if index < 0:
            return NO_WEIGHT
        if modelled:
            log_weight += _model_log_probability(scored, g, state, rng, actions, n, scores, index, betas)
        dispatch.apply_action(g, state, wanted)
    return log_weight


@njit(cache=True)
def _world_key(world):
    """A 64-bit hash of a world: a sum of its words, each mixed with its index
    and scrambled (no chain from word to word, so it vectorizes; the scramble
    keeps worlds that trade cards between two hands' masks, whose plain sums
    are equal, apart)."""
    h = np.uint64(0)
    spread, mix = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9)
    mix2 = np.uint64(0x94D049BB133111EB)
    for i in range(world.shape[0]):
        x = (np.uint64(world[i]) + np.uint64(i) * spread) * mix
        h += (x ^ (x >> np.uint64(31))) * mix2
    return h ^ (h >> np.uint64(29))


# The replay table: which drawn worlds have been replayed, by :func:`_world_key`
# (open addressing over ``slots``, a power of two long: the index of a world in
# ``drawn``, -1 when free, its key beside it in ``keys``). Late in a deal few
# worlds are possible and ``determinize`` draws the same ones again and again
# (Koetsieren: 13 distinct of 256 at its third trick); a world whose replay drew
# no random numbers has one replay, so its weight and replayed state are reused,
# bit for bit, and the random stream is the same as if it had been replayed again.

@njit(cache=True)
def _replay_table(capacity):
    """Empty ``(slots, keys)`` for ``capacity`` worlds."""
    size = 1
    while size < 2 * capacity:
        size *= 2
    return np.full(size, -1, np.int64), np.empty(size, np.uint64)


@njit(cache=True)
def _find_replayed(slots, keys, key, world, drawn):
    """The index of an earlier world equal to ``world`` (``drawn[index]``), or -1."""
    mask = slots.shape[0] - 1
    at = np.int64(key & np.uint64(mask))
    while slots[at] >= 0:
        if keys[at] == key and _equal(drawn[slots[at]], world):
            return slots[at]
        at = (at + 1) & mask
    return -1


@njit(cache=True)
def _add_replayed(slots, keys, key, index):
    mask = slots.shape[0] - 1
    at = np.int64(key & np.uint64(mask))
    while slots[at] >= 0:
        at = (at + 1) & mask
    slots[at] = index
    keys[at] = key


@njit(cache=True)
def _equal(a, b):
    i, n = 0, a.shape[0]
    while i < n and a[i] == b[i]:
        i += 1
    return i == n


@njit(cache=True)
def infer_worlds(g, root, seat, start, template, seats, keys, betas, scored, rng, pool, log_weights):
    """Fill ``pool`` (int64[k, STATE_SIZE]) with worlds resampled by likelihood.

    Draws ``k`` worlds (``determinize`` of ``root`` for ``seat``), replays the
    history in each (:func:`replay_world`), writes their log weights into
    ``log_weights`` (float64[k]) and resamples them systematically into
    ``pool``. Returns the number of worlds that agreed with the history; 0
    leaves ``pool`` as it was (the caller falls back to ``uniform``).
    """
    k = pool.shape[0]
    particles = np.empty_like(pool)
    drawn = np.empty_like(pool)
    world = np.empty_like(root)
    deal = np.empty(dispatch.deal_size(g), np.int64)
    actions = np.empty(dispatch.max_actions(g), np.int64)
    scores = np.empty(dispatch.max_actions(g))
    slots, world_keys = _replay_table(k)
    reusing = True  # until a replay draws random numbers (Kozel's always do): then replay every world
    best = NO_WEIGHT
    agreed = 0
    for i in range(k):
        copy_into(world, root)
        dispatch.determinize(g, world, seat, rng)
        key = _world_key(world) if reusing else np.uint64(0)
        j = _find_replayed(slots, world_keys, key, world, drawn) if reusing else -1
        if j >= 0:  # drawn before, and its replay was a function of the world alone
            log_weights[i] = log_weights[j]
            copy_into(particles[i], particles[j])
        else:
            before = rng[0]
            log_weights[i] = replay_world(g, world, seat, start, template, seats, keys, betas, scored, rng,
                                          particles[i], deal, actions, scores)
            reusing = reusing and rng[0] == before
            if reusing:  # it drew no random numbers: the same world replays the same
                copy_into(drawn[i], world)
                _add_replayed(slots, world_keys, key, i)
        if log_weights[i] > NO_WEIGHT and scored == SCORE_BEFORE_PLAY:
            copy_into(particles[i], world)  # it agrees with the play the replay skipped
            agreed += 1
            best = max(best, log_weights[i])
        elif log_weights[i] > NO_WEIGHT:
            # The replay must reach the position searched (same turn, same trick).
            if (particles[i, TO_MOVE] != root[TO_MOVE] or particles[i, PHASE] != root[PHASE]
                    or particles[i, TRICKS_DONE] != root[TRICKS_DONE]):
                log_weights[i] = NO_WEIGHT
            else:
                agreed += 1
                best = max(best, log_weights[i])
    if agreed == 0:
        return 0
    weights = np.empty(k)
    total = 0.0
    for i in range(k):
        weights[i] = np.exp(log_weights[i] - best) if log_weights[i] > NO_WEIGHT else 0.0
        total += weights[i]
    step = total / k
    u = rand_below(rng, 1 << 30) / (1 << 30) * step
    i = 0
    cumulative = weights[0]
    for j in range(k):
        while (cumulative < u or weights[i] == 0.0) and i < k - 1:  # never a dropped world
            i += 1
            cumulative += weights[i]
        while weights[i] == 0.0 and i > 0:  # rounding at the top end
            i -= 1
            cumulative -= weights[i + 1]
        copy_into(pool[j], particles[i])
        u += step
    return agreed


# ------------------------------------------------------------------ Python side


@dataclass
class Belief:
    """A belief's resampled worlds and what building it cost."""

    worlds: np.ndarray | None
    """int64[k, STATE_SIZE] worlds to search, or None: fall back to ``determinize``."""
    particles: int
    agreed: int
    """Particles whose replay agreed with the history."""
    effective: float
    """Effective sample size of the weights (``sum(w)^2 / sum(w^2)``)."""
    seconds: float
    log_weights: np.ndarray | None = None


def check_temperature(temperature: float) -> float:
    """``temperature`` as a float, or a one-line :class:`SearchError`."""
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float, np.number)) \
            or not temperature > 0:
        raise SearchError(f"the opponent model's temperature must be a positive number, not {temperature!r}")
    return float(temperature)


def scoring(model, betas, game_id: int) -> int:
    """Which actions a belief with ``model`` at weights ``betas`` weighs, for
    :func:`infer_worlds`: :data:`SCORE_NONE` when both weights are 0, else
    :data:`SCORE_ALL` for a model that reads the play, else
    :data:`SCORE_BEFORE_PLAY` where ``determinize`` agrees with the whole
    history, else :data:`SCORE_OUTSIDE_PLAY`."""
    if not np.any(betas):
        return SCORE_NONE
    if model.reads_play:
        return SCORE_ALL
    return SCORE_BEFORE_PLAY if info_by_id(game_id).determinize_uses_whole_history else SCORE_OUTSIDE_PLAY


def infer(state, script: ReplayScript | None, seat: int, *, temperature: float,
          particles: int = DEFAULT_PARTICLES, seed: int = 0) -> Belief:
    """The ``inferred`` belief of ``seat`` (to move) in ``state`` (a ``State`` or its
    array), replaying ``script`` (the game's ``replay_script(view)``).

    Returns a :class:`Belief` whose ``worlds`` is None when the game cannot
    replay its history or no world agreed with it (search then determinizes
    as ``uniform`` does).
    """
    begun = time.perf_counter()
    root = np.ascontiguousarray(getattr(state, "array", state))
    if isinstance(particles, bool) or not isinstance(particles, (int, np.integer)) or particles < 1:
        raise SearchError(f"particles must be a positive integer, not {particles!r}")
    temperature = check_temperature(temperature)
    if script is None:
        return Belief(None, int(particles), 0, 0.0, time.perf_counter() - begun)
    game = int(root[GAME])
    pool = np.empty((int(particles), root.shape[0]), np.int64)
    log_weights = np.empty(int(particles))
    rng = make_rng(seed)
    betas = np.array(script.model.betas(temperature), dtype=np.float64)
    scored = dispatch.Constant(scoring(script.model, betas, game))
    args = (root, int(seat), script.start, script.template, script.seats, script.keys, betas, scored, rng,
            pool, log_weights)
    if (game, int(scored)) in _LOADED:
        kernel = dispatch.specialize(infer_worlds, game, *args)
    else:  # each kind of scoring compiles apart (about 3 s a game, once): said, as other compiles are
        with compiling([info_by_id(game).name], part=f"belief-{int(scored)}",
                       seconds=BELIEF_COMPILE_SECONDS, label="beliefs"):
            kernel = dispatch.specialize(infer_worlds, game, *args)
        _LOADED.add((game, int(scored)))
    begun = time.perf_counter()  # loaded (or compiled) by now: untimed, as the search does
    rounds = 1 if info_by_id(game).determinize_uses_whole_history else DRAW_ROUNDS
    for _ in range(rounds):  # a round that finds no agreeing world leaves the pool as it was
        agreed = int(kernel(game, *args))
        if agreed:
            break
    finite = log_weights[np.isfinite(log_weights)]
    effective = 0.0
    if finite.size:
        w = np.exp(finite - finite.max())
        effective = float(w.sum() ** 2 / (w ** 2).sum())
    worlds = pool if agreed else None
    return Belief(worlds, int(particles), agreed, effective, time.perf_counter() - begun, log_weights)
