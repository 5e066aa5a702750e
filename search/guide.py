"""Search guided by a learned network (``ismcts:guide=net``, ``pimc:guide=net``).

A network of :mod:`slagwerk.search.network` gives, from the observation of
the seat to move, a value for each of its actions: the return it expects
for that seat, ``2 * reward - 1`` (trained by ``slagwerk train``). The tree
search of :mod:`slagwerk.search.tree` uses it in three places, each
switched on its own so that what each gains can be measured:

- **prior** (:data:`GUIDE_PRIOR`): when a node grows a child, the untried
  action the network values most is tried first, and the child keeps its
  probability under ``softmax(value / temperature)`` over the node's legal
  actions; selection adds a progressive bias, ``weight * prior / (visits +
  1)``, to UCB1 (Chaslot et al. 2008), which fades as the child is visited;
- **leaf** (:data:`GUIDE_LEAF`): instead of a playout to the end of the
  deal, the network plays on greedily only until every seat has been to
  move once, and each seat's reward is the network's value of its best
  action at its first turn (read from that seat's own observation). A deal
  that ends sooner gives its true rewards;
- **playout** (:data:`GUIDE_PLAYOUT`): playouts are played by the network
  greedily to the end of the deal (then, for the match objective, by the
  search's playout policy);
- **root** (``root_weight``): the final choice blends each root action's mean
  reward in the search with the network's value of it, read once from the
  searching seat's observation (:func:`root_choice`): two judges that err
  differently, the search's sampled worlds and the network's learned play;
- **seat values** (:data:`GUIDE_VALUE`, ``leaf=value``): a network trained with
  ``--seat-values`` also values the deal for every seat; a leaf is valued by one
  evaluation, from the observation of the seat to move there, instead of one
  per seat.

Each evaluation reads one seat's observation of the world being searched: a
determinization (ISMCTS, PIMC) holds only cards the searching seat cannot
tell from the real ones, so the guide sees no hidden card of the real deal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..engine import dispatch
from ..engine.encoding import relative_seat
from ..engine.state import N_PLAYERS, OBJECTIVE_DEAL, TO_MOVE
from .network import forward

GUIDE_NONE = 0
GUIDE_PRIOR = 1
GUIDE_LEAF = 2
GUIDE_PLAYOUT = 4
GUIDE_VALUE = 16
"""(8 is the endgame solver's flag, :data:`slagwerk.search.parts.SOLVE_ENDGAMES`.)"""
GUIDE_WORLD = 32
"""With :data:`GUIDE_VALUE`: the network reads every seat's observation of the leaf's world."""
GUIDE_MIX = 64
"""With :data:`GUIDE_VALUE`: a leaf's reward mixes the network's value with a playout's."""

DEFAULT_PRIOR_WEIGHT = 1.0
DEFAULT_TEMPERATURE = 0.1
"""Of the softmax over the network's values (which lie in [-1, 1])."""

NO_NET = (np.zeros((1, 1), np.float32), np.zeros(1, np.float32), np.zeros((1, 1), np.float32),
          np.zeros(1, np.float32), np.zeros((1, 1), np.float32), np.zeros(1, np.float32))
"""The weights passed to a search without a guide (never read)."""


@dataclass(frozen=True)
class Guide:
    """A network and the parts of the search it guides (see the module doc).

    ``weights`` are the network's ``(w1, b1, w2, b2, w3, b3)`` (float32),
    ``prior`` the weight of the progressive bias (0: no prior), ``leaf`` and
    ``playout`` whether the network values leaves and plays the playouts (``value``: the
    leaves by the network's seat values, one evaluation each);
    ``prior_depth`` (infinite by default: every depth) limits the prior to
    nodes grown from nodes less deep than it (0 is the root), where it costs
    one network evaluation per node grown.
    """

    weights: tuple
    prior: float = DEFAULT_PRIOR_WEIGHT
    temperature: float = DEFAULT_TEMPERATURE
    leaf: bool = True
    playout: bool = False
    prior_depth: float = np.inf
    value: bool = False
    world: bool = False
    """The network reads every seat's observation (a model trained with ``--world``): it may only
    value leaves (``value``), which are whole determinized worlds, never choose for a seat."""
    value_weight: float = 1.0
    """With ``value``: a leaf's reward is ``value_weight * value + (1 - value_weight) * playout``
    (the mixing of AlphaGo, Silver et al. 2016); below 1 every leaf is played out as well."""

    root_weight: float = 0.0
    """The network's weight in the final choice at the root (:func:`root_choice`); 0: the search's
    own choice."""

    @property
    def world_kept_to_leaves(self) -> bool:
        """False for a network that reads every seat's cards (``world``) asked to do more than value
        leaves: a prior, playouts or the root's choice would choose for a seat by cards it cannot see."""
        return not self.world or (self.value and self.prior == 0 and not self.playout
                                  and self.root_weight == 0)

    @property
    def flags(self) -> int:
        mixed = self.value and self.value_weight < 1
        return ((GUIDE_PRIOR if self.prior > 0 else 0) | (GUIDE_LEAF if self.leaf and not self.value else 0)
                | (GUIDE_VALUE if self.value else 0) | (GUIDE_PLAYOUT if self.playout else 0)
                | (GUIDE_WORLD if self.world else 0) | (GUIDE_MIX if mixed else 0))


PRIOR_WEIGHT, PRIOR_TEMPERATURE, PRIOR_DEPTH, VALUE_WEIGHT = 0, 1, 2, 3
"""Places in the tree kernel's ``prior_settings`` array."""


def kernel_arguments(guide: Guide | None) -> tuple:
    """``(flags, weights, prior_settings)`` for the tree kernel: ``prior_settings`` holds the
    prior's weight, temperature and depth, and the value's weight in a mixed leaf (see
    :data:`PRIOR_WEIGHT`)."""
    if guide is None:
        return GUIDE_NONE, NO_NET, np.array([0.0, DEFAULT_TEMPERATURE, 0.0, 1.0])
    return guide.flags, tuple(guide.weights), np.array(
        [guide.prior, guide.temperature, guide.prior_depth, guide.value_weight], dtype=np.float64)


def root_choice(encoding, guide: Guide, root: np.ndarray, actions, visits, values) -> int:
    """The root action, of those the search tried, with the highest ``(1 - w) * (2 * mean - 1) + w *
    network value`` (``w``: ``guide.root_weight``; ties: the first). The network reads the observation
    of the seat to move at ``root`` (``encoding``: the game's observation module), so no hidden card."""
    x = np.zeros(encoding.OBSERVATION_SIZE, np.float32)
    out = np.zeros(guide.weights[4].shape[1], np.float32)
    encoding.observe(root, int(root[TO_MOVE]), x)
    forward(x, *guide.weights, out)
    network = np.array([out[encoding.index_of(root, int(a))] for a in actions], np.float64)
    searched = 2.0 * np.asarray(values, np.float64) - 1.0
    blend = (1.0 - guide.root_weight) * searched + guide.root_weight * network
    return int(actions[int(np.argmax(np.where(np.asarray(visits) > 0, blend, -np.inf)))])


@njit(cache=True)
def reward_of(value):
    """The reward in [0, 1] that a network value (``2 * reward - 1``) stands for."""
    return min(max((value + 1.0) * 0.5, 0.0), 1.0)


@njit(cache=True)
def net_values(g, state, actions, n, net, x, q, out):
    """The network's values of ``actions[:n]`` (legal in ``state``) for the seat to move,
    into ``out``; ``x`` and ``q`` are buffers for the observation and the network's output."""
    dispatch.observe(g, state, state[TO_MOVE], x)
    forward(x, net[0], net[1], net[2], net[3], net[4], net[5], q)
    for i in range(n):
        out[i] = q[dispatch.index_of(g, state, actions[i])]


@njit(cache=True)
def greedy_index(values, n):
    """The index of the highest of ``values[:n]`` (the first on ties)."""
    best = 0
    for i in range(1, n):
        if values[i] > values[best]:
            best = i
    return best


@njit(cache=True)
def leaf_rewards(g, state, net, x, q, actions, scores, rewards):
    """Every seat's reward at a leaf (see the module doc), into ``rewards``; plays ``state`` on."""
    everyone = (1 << state[N_PLAYERS]) - 1
    valued = 0
    while True:
        n = dispatch.legal_actions(g, state, actions)
        if n == 0:  # the deal ended first: its true rewards
            dispatch.returns(g, state, OBJECTIVE_DEAL, rewards)
            return
        mover = state[TO_MOVE]
        net_values(g, state, actions, n, net, x, q, scores)
        best = greedy_index(scores, n)
        if not (valued >> mover) & 1:
            rewards[mover] = reward_of(scores[best])
            valued |= 1 << mover
            if valued == everyone:
                return
        dispatch.apply_action(g, state, actions[best])


@njit(cache=True)
def value_rewards(g, state, net, x, q, actions, rewards, world):
    """Every seat's reward at a leaf from the network's seat values (the last outputs, one per
    relative seat), read from the observation of the seat to move, or with ``world`` from every
    seat's, by relative seat from the seat to move (each part ``x.shape[0] / seats`` long); a deal
    that ended gives its true rewards."""
    if dispatch.legal_actions(g, state, actions) == 0:
        dispatch.returns(g, state, OBJECTIVE_DEAL, rewards)
        return
    mover = state[TO_MOVE]
    players = state[N_PLAYERS]
    if world:
        size = x.shape[0] // players
        for r in range(players):
            dispatch.observe(g, state, (mover + r) % players, x[r * size:(r + 1) * size])
    else:
        dispatch.observe(g, state, mover, x)
    forward(x, net[0], net[1], net[2], net[3], net[4], net[5], q)
    first = q.shape[0] - players
    for seat in range(players):
        rewards[seat] = reward_of(q[first + relative_seat(seat, mover, players)])


@njit(cache=True)
def net_playout(g, state, net, x, q, actions, scores):
    """Play the current deal of ``state`` to its end with the network's greedy choices (in place)."""
    while True:
        n = dispatch.legal_actions(g, state, actions)
        if n == 0:
            return
        net_values(g, state, actions, n, net, x, q, scores)
        dispatch.apply_action(g, state, actions[greedy_index(scores, n)])
