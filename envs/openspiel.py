"""The four games as OpenSpiel Python games (docs/envs.md).

>>> import pyspiel
>>> from slagwerk.envs import openspiel as sw_openspiel
>>> sw_openspiel.register()
['python_slagwerk_coins', 'python_slagwerk_koetsieren', 'python_slagwerk_kozel', 'python_slagwerk_aluette']
>>> game = pyspiel.load_game("python_slagwerk_coins", {"target": 3})
>>> game.num_players()
3

:func:`register` registers ``python_slagwerk_<game>`` for every game that
declares an observation encoding. A game's parameters are its options and
``objective``: ``"match"`` (the default: the game is the whole match,
returns are the outcome, win 1, draw 0, loss -1) or ``"deal"`` (the game
ends when the current deal is scored; returns are the deal's normalised
score mapped to [-1, 1]).

- Deals are explicit chance nodes: the deal vector's cards one at a time
  (uniform over the cards left), then any further uniform choice of the
  game (Kozel: where in the stock the shown trump card lies). With the
  parameter ``chance="deal"`` a whole deal is one chance outcome instead,
  one for each distinct deal: exact algorithms then walk each deal once,
  not once per order of its cards. Only a game that lists its deals
  (:meth:`~slagwerk.engine.game.Game.all_deals`: small variants, docs/rules.md
  §1.10, §2.15, §3.18 and §4.11) offers it.
- Player actions are the game's compact action index
  (:mod:`slagwerk.engine.encoding`).
- ``information_state_string(p)`` has perfect recall over the whole match:
  at each deal what ``p`` saw when it was dealt (its view), then every
  action as ``p`` saw it (a face-down Kozel discard shows only its size)
  and what else ``p`` learnt (Kozel: the cards it drew, a molodka's four
  cards) and whose turn it is then, and at a Kozel deal's count its view
  then, which names every discard.
- ``information_state_tensor(p)`` is the game's encoding followed by a
  block (the game's ``observe_step``) for each player action of the deal so
  far: perfect recall within the deal (docs/envs.md).
- ``observation_string(p)`` is ``p``'s view now (as JSON, without the
  deal's history), ``observation_tensor(p)`` the game's encoding.
- ``resample_from_infostate(p, sampler)`` redeals the cards ``p`` cannot
  see with the engine's ``determinize``. The resampled state keeps ``p``'s
  information state; the other seats' information states then begin with
  their view at that point (their earlier private observations are not
  replayed), and its action history is the original's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache

import numpy as np

from ..engine import registry
from ..engine.bits import make_rng
from ..engine.game import State
from ..engine.replay import replay_in, views_differ
from ..engine.state import (
    DEAL_COMPLETE,
    DEAL_NUMBER,
    OBJECTIVE_DEAL,
    OBJECTIVE_MATCH,
    PHASE,
    PHASE_DEAL_PENDING,
    PHASE_MATCH_OVER,
    TO_MOVE,
)
from ..search.belief import DEAL_TRIES
from .encoded import encoding, load, seat_rewards, view_text
from .encoded import require as _require

pyspiel = _require("pyspiel", "openspiel", "slagwerk.envs.openspiel")

OBJECTIVES = ("match", "deal")
CHANCE_MODES = ("card", "deal")
MAX_WHOLE_DEALS = 1_000_000
"""The most deals ``chance="deal"`` lists as chance outcomes."""
PREFIX = "python_slagwerk_"
REPLAY_WORLDS = 1000
"""Worlds tried for replaying a bot view's history in a game whose
``determinize`` does not read the whole history (Kozel: a world may break an
earlier trick's molodka questions). Measured on views at random points of
random Kozel matches: with 20 worlds 5 of 1,493 found none, with 1,000 none of
2,975 (a replay takes a fraction of a millisecond)."""
ACTIONS_PER_DEAL_BOUND = 256
"""More player actions than any deal of any game takes (Kozel's molodka questions included)."""
DEALS_PER_MATCH_BOUND = 1000
"""``max_game_length`` of a whole match: a bound no real match reaches (a Kozel
match of endless 60-60 deals could, in principle, go on for ever)."""


def short_name(game_name: str) -> str:
    return PREFIX + game_name


@dataclass(frozen=True)
class _Context:
    """What every state of one parameterised game shares (kept outside the
    ``pyspiel`` objects, whose Python attributes a copy may drop)."""

    game: object  # the engine Game
    module: object  # its observation module
    objective: str
    draws: int
    choices: tuple
    max_chance_outcomes: int
    key: tuple
    whole_deals: np.ndarray | None = None  # with chance="deal": every deal vector, one per row

    def __deepcopy__(self, memo):
        return self  # shared by every state of the game

    def __reduce__(self):
        return _context, self.key


@cache
def _context(game_name: str, options: tuple, objective: str, chance: str = "card") -> _Context:
    game, module = load(game_name, dict(options))
    draws = module.dealt_positions(game.options_array)
    # A game whose choices depend on its options (Kozel's stock, docs/rules.md §3.18) says so.
    choices = tuple(module.deal_choices(game.options_array) if hasattr(module, "deal_choices")
                    else module.DEAL_CHOICES)
    outcomes = max([game.deck.size] + [high + 1 for _, _, high in choices])
    key = (game_name, options, objective, chance)
    if chance == "card":
        return _Context(game, module, objective, draws, choices, outcomes, key)
    count = game.deal_count()
    if count > MAX_WHOLE_DEALS:
        raise ValueError(f"{game!r} has {count:,} deals: too many to list as chance outcomes (at most "
                         f"{MAX_WHOLE_DEALS:,}); use chance=card, or smaller options")
    deals = np.array(list(game.all_deals()), dtype=np.int64)
    return _Context(game, module, objective, draws, choices, count, key, deals)


def _game_type(game_name: str) -> pyspiel.GameType:
    info = registry.game_info(game_name)
    spec = info.options.get("players")
    from ..engine import make_game

    n = make_game(game_name).n_players
    low, high = (spec.low, spec.high) if spec is not None else (n, n)
    params = {key: option.default for key, option in info.options.items()}
    params["objective"] = "match"
    params["chance"] = "card"
    return pyspiel.GameType(
        short_name=short_name(game_name),
        long_name=f"slagwerk {info.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=high,
        min_num_players=low,
        provides_information_state_string=True,
        provides_information_state_tensor=hasattr(encoding(game_name), "observe_step"),
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params,
    )


class SlagwerkGame(pyspiel.Game):
    """One slagwerk game as an OpenSpiel game (subclassed per game by :func:`register`)."""

    game_name = ""

    def __init__(self, params=None):
        params = dict(params or {})
        info = registry.game_info(self.game_name)
        objective = params.pop("objective", "match")
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
        chance = params.pop("chance", "card")
        if chance not in CHANCE_MODES:
            raise ValueError(f"chance must be one of {', '.join(CHANCE_MODES)}, not {chance!r}")
        unknown = sorted(set(params) - set(info.options))
        if unknown:
            raise ValueError(f"unknown parameter {unknown[0]!r} for {self.game_name} "
                             f"(parameters: {', '.join([*info.options, 'objective', 'chance'])})")
        options = tuple(sorted((key, int(value)) for key, value in params.items()))
        context = _context(self.game_name, options, objective, chance)
        per_game = ACTIONS_PER_DEAL_BOUND * (1 if objective == "deal" else DEALS_PER_MATCH_BOUND)
        game_info = pyspiel.GameInfo(
            num_distinct_actions=context.module.NUM_ACTIONS,
            max_chance_outcomes=context.max_chance_outcomes,
            num_players=context.game.n_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=per_game,
        )
        super().__init__(_GAME_TYPES[self.game_name], game_info,
                         {**dict(options), "objective": objective, "chance": chance})

    def _key(self) -> tuple:
        params = self.get_parameters()
        objective, chance = params.pop("objective"), params.pop("chance")
        return self.game_name, tuple(sorted((k, int(v)) for k, v in params.items())), objective, chance

    def new_initial_state(self):
        return SlagwerkState(self)

    def engine_game(self):
        """The slagwerk game (with these options) that this OpenSpiel game plays."""
        return _context(*self._key()).game

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported: {params!r}")
        if iig_obs_type is not None and (not iig_obs_type.public_info or
                                         iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("only a seat's own observation is offered (public information and that "
                             f"seat's private information), not {iig_obs_type}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return _Observer(_context(*self._key()), recall)


class _Step:
    """One link of a state's history chain: the engine state after a step, and
    the step (an action, or a completed deal). Immutable, so states share it:
    a copy of a state copies no history. Information-state strings are
    cached per seat on the link where they are first asked for."""

    __slots__ = ("prev", "array", "mover", "action", "prefix", "recall", "cache")

    def __init__(self, prev, array, mover=-1, action=-1, prefix=None, recall=None):
        self.prev = prev
        self.array = array
        self.mover = mover  # -1: a deal was completed here (or the root)
        self.action = action  # the engine action
        self.prefix = prefix  # root only: seat -> its information state so far, or None
        # root only: seat -> the step its deal's history ends at (None: unknown; a
        # _ViewHistory: a bot view's, replayed when first asked for)
        self.recall = recall
        self.cache = {}

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        # a long chain pickles as a flat list (nested links would recurse once per step)
        links = []
        node = self
        while node is not None:
            links.append((node.array, node.mover, node.action, node.prefix, node.recall))
            node = node.prev
        return _chain, (links[::-1],)

    def deal_steps(self, context: _Context, seat: int) -> list:
        """The blocks (``observe_step``) of the deal's player actions so far, as
        ``seat`` saw them, oldest first."""
        links = []
        node = self
        while node.mover >= 0:
            links.append(node)
            node = node.prev
        blocks = []
        if node.prev is None and node.prefix is not None:  # a root rebuilt for one seat
            known = (node.recall or {}).get(seat)
            if isinstance(known, _ViewHistory):
                known = node.recall[seat] = known.replay(context)
            if known is None:
                why = ("from a view whose history could not be replayed" if seat in (node.recall or {})
                       else "for another seat (resample_from_infostate, state_from_view, "
                            "state_from_engine), whose history alone it keeps")
                raise ValueError(f"seat {seat}'s information-state tensor is not known in this deal: "
                                 f"the state was rebuilt {why}")
            blocks.extend(known.deal_steps(context, seat))
        for link in reversed(links):
            block = link.cache.get(("step", seat))
            if block is None:
                block = np.zeros(context.module.STEP_SIZE, np.float32)
                context.module.observe_step(link.prev.array, link.array, seat, link.action, block)
                link.cache[("step", seat)] = block
            blocks.append(block)
        return blocks

    def info(self, context: _Context, seat: int) -> str:
        chain = []
        node = self
        while node is not None and seat not in node.cache:
            chain.append(node)
            node = node.prev
        text = node.cache[seat] if node is not None else ""
        for link in reversed(chain):
            text = text + link.token(context, seat)
            link.cache[seat] = text
        return text

    def token(self, context: _Context, seat: int) -> str:
        game = context.game
        if self.prev is None:  # the root
            if self.prefix is None:
                return ""
            known = self.prefix.get(seat)
            return known if known is not None else _seen_text(context, self.array, seat)
        if self.mover < 0:
            return f"\n[deal {int(self.array[DEAL_NUMBER])}] " + view_text(game, self.array, seat)
        before = State(game, self.prev.array)
        seen = game.seen_text(before, self.action, seat)
        if seat == self.mover:  # the mover also knows what it chose (Koetsieren: a forehead slot)
            chosen = game.action_text(before, self.action, seat)
            seen = seen if chosen == seen else f"{chosen}={seen}"
        text = f"\n{self.mover}:{seen}"
        learnt = getattr(context.module, "learnt_events", None)
        if learnt is not None:
            text += learnt(game, self.prev.array, self.array, seat, self.action)
        # Then whose turn it is and in which phase: public in every game, and not always
        # implied by what happened (Kozel: only a seat holding a molodka is asked, §3.11).
        text += f" | next {int(self.array[TO_MOVE])} phase {int(self.array[PHASE])}"
        if game.info.counting_reveals_actions and self.array[DEAL_COMPLETE]:
            # the count shows everybody the hidden actions (Kozel's discards, §3.8)
            text += "\n[counted] " + view_text(game, self.array, seat)
        return text


@dataclass(frozen=True)
class _ViewHistory:
    """The deal's history of a bot's view, replayed only when a tensor asks for it."""

    view_text: str  # the view as JSON (a copy: the caller may change its dict)
    world: np.ndarray  # a state the view's seat cannot tell from the true one
    seed: int

    def replay(self, context: _Context):
        """The last step of the view's history replayed, from the deal, in a world
        that shows the seat its view (the given one, else, in a game whose
        ``determinize`` does not read the whole history, up to
        :data:`REPLAY_WORLDS` redrawn for the seat), or None. The world's hidden
        cards are not the true ones, but the seat's blocks cannot tell."""
        game = context.game
        view = json.loads(self.view_text)
        try:
            script = game.replay_script(view)
        except (ValueError, IndexError, KeyError):  # a history that does not fit the deal
            return None
        if script is None:
            return None
        rng = make_rng(self.seed)
        world = self.world.copy()
        worlds = 1 if game.info.determinize_uses_whole_history else REPLAY_WORLDS
        for attempt in range(worlds):
            if attempt:
                game.kernels.determinize(world, int(view["seat"]), rng)
            for _ in range(DEAL_TRIES):  # a world may be dealt in several ways (Kozel's draws)
                steps = []
                replayed, _ = replay_in(game.kernels, script, world, rng, steps)
                if replayed is not None and not views_differ(game, replayed, self.world, view):
                    node = None
                    for mover, action, array in steps:
                        node = _Step(node, array, mover, action)
                    return node
        return None


def _seen_text(context: _Context, array: np.ndarray, seat: int) -> str:
    """What ``seat`` sees of ``array`` (the nonzero entries of its observation,
    itself the seat's view only), compactly: the start of a resampled seat's
    information state, asked for once per seat and simulation by a search."""
    out = np.empty(context.module.OBSERVATION_SIZE, np.float32)
    context.module.observe(array, seat, out)
    nonzero = np.flatnonzero(out)
    return "[seen] " + ",".join(f"{i}:{out[i]:.4g}" for i in nonzero.tolist())


def _chain(links):
    node = None
    for array, mover, action, prefix, *recall in links:  # (a state pickled before recall: 4 fields)
        node = _Step(node, array, mover, action, prefix, recall[0] if recall else None)
    return node


class _Legal:
    """The legal indices of an engine state and their engine actions (never
    changed once made, so copies of a state share it)."""

    __slots__ = ("mask", "actions", "indices")

    def __init__(self, module, array):
        self.mask = np.empty(module.NUM_ACTIONS, dtype=np.int8)
        self.actions = np.empty(module.NUM_ACTIONS, dtype=np.int64)
        module.legal_indices(array, self.mask, self.actions)
        self.indices = tuple(np.flatnonzero(self.mask).tolist())

    def __deepcopy__(self, memo):
        return self


class SlagwerkState(pyspiel.State):
    """A match (or a deal) of a slagwerk game as an OpenSpiel state."""

    def __init__(self, game):
        super().__init__(game)
        self._context = context = _context(*game._key())
        kernels = context.game.kernels
        array = np.zeros(kernels.STATE_SIZE, dtype=np.int64)
        kernels.init_match(array, context.game.options_array)
        self._deal = None  # the deal vector being drawn (chance), else None
        self._drawn = 0  # chance events of the deal drawn so far
        self._set_step(_Step(None, array))

    # -- helpers
    def _set_step(self, step: _Step) -> None:
        """Move to ``step``'s engine state (every change of the state goes through here)."""
        self._step = step
        array = step.array
        self._legal = None  # the array's _Legal, when asked for
        phase = int(array[PHASE])
        if phase == PHASE_MATCH_OVER or (phase == PHASE_DEAL_PENDING and self._context.objective == "deal"
                                         and array[DEAL_COMPLETE]):
            self._player = _TERMINAL
        elif phase == PHASE_DEAL_PENDING:
            self._player = _CHANCE
        else:
            self._player = int(array[TO_MOVE])

    @property
    def _array(self) -> np.ndarray:
        return self._step.array

    def engine_state(self) -> State:
        """The engine state now (no history): for notation and pictures."""
        return State(self._context.game, self._array.copy())

    def engine_match(self) -> State:
        """The engine match this state stands for, with its history (for a seat's view with
        the deal's history): its deals and actions replayed. Whole-deal games only
        (``chance="deal"``), whose history names each deal."""
        context = self._context
        if context.whole_deals is None:
            raise ValueError("the engine match of a state needs the game with chance='deal' (whole deals)")
        replay = self.get_game().new_initial_state()
        match = context.game.new_match()
        for action in self.history():
            if replay.is_chance_node():
                match.deal(context.whole_deals[action])
            else:
                match.apply(replay.engine_action(action))
            replay.apply_action(action)
        return match

    def engine_action(self, index: int) -> int:
        """The engine action of legal index ``index``."""
        return int(self._legal_table().actions[index])

    def _legal_table(self) -> _Legal:
        if self._legal is None:
            self._legal = _Legal(self._context.module, self._step.array)
        return self._legal

    # -- the OpenSpiel API
    def current_player(self):
        return self._player

    def is_terminal(self):
        return self._player == _TERMINAL

    def is_chance_node(self):
        return self._player == _CHANCE

    def _legal_actions(self, player):
        if player != self._player:
            return []
        return list(self._legal_table().indices)

    def chance_outcomes(self):
        context = self._context
        if context.whole_deals is not None:
            p = 1.0 / len(context.whole_deals)
            return [(i, p) for i in range(len(context.whole_deals))]
        if self._drawn < context.draws:
            taken = set() if self._deal is None else {int(c) for c in self._deal[: self._drawn]}
            cards = [c for c in context.game.cards_in_play() if c not in taken]
            p = 1.0 / len(cards)
            return [(c, p) for c in cards]
        _, low, high = context.choices[self._drawn - context.draws]
        p = 1.0 / (high - low + 1)
        return [(v, p) for v in range(low, high + 1)]

    def _apply_action(self, action):
        context = self._context
        kernels = context.game.kernels
        self._check_legal(action)
        if self.is_chance_node() and context.whole_deals is not None:
            array = self._array.copy()
            kernels.apply_deal(array, context.whole_deals[action])
            self._set_step(_Step(self._step, array))
            return
        if self.is_chance_node():
            if self._deal is None:
                self._deal = np.zeros(kernels.DEAL_SIZE, dtype=np.int64)
            if self._drawn < context.draws:
                self._deal[self._drawn] = action
            else:
                self._deal[context.choices[self._drawn - context.draws][0]] = action
            self._drawn += 1
            if self._drawn == context.draws + len(context.choices):
                self._finish_deal()
            return
        array = self._array.copy()
        engine_action = self.engine_action(action)
        kernels.apply_action(array, engine_action)
        self._set_step(_Step(self._step, array, self._player, engine_action))

    def _finish_deal(self):
        context = self._context
        deck = context.game.deck.size
        taken = {int(c) for c in self._deal[: context.draws]}
        in_play = context.game.cards_in_play()  # the rest of the deck in play, then the cards out of it
        rest = [c for c in in_play if c not in taken] + sorted(set(range(deck)) - set(in_play))
        self._deal[context.draws : deck] = rest
        array = self._array.copy()
        context.game.kernels.apply_deal(array, self._deal)
        self._deal = None
        self._drawn = 0
        self._set_step(_Step(self._step, array))

    def _check_legal(self, action) -> None:
        """An illegal action is an error (it would otherwise be played from
        whatever the legal table holds at that index)."""
        if self.is_terminal():
            raise ValueError(f"action {action}: the {self._context.game.name} game is over")
        if self.is_chance_node():
            whole = self._context.whole_deals
            legal = (0 <= action < len(whole) if whole is not None
                     else action in {outcome for outcome, _ in self.chance_outcomes()})
        else:
            legal = action in self._legal_table().indices
        if not legal:
            who = "the chance node" if self.is_chance_node() else f"seat {self._player}"
            raise ValueError(f"action {action} is not legal for {who} of {self._context.game.name}")

    def _action_to_string(self, player, action):
        context = self._context
        if player == pyspiel.PlayerId.CHANCE:
            if context.whole_deals is not None:
                if not 0 <= action < len(context.whole_deals):
                    return f"action {action}"
                record = context.game.deal_to_json(context.whole_deals[action])
                text = "deal " + " | ".join(" ".join(_cards_of(hand)) for hand in record.pop("hands"))
                record.pop("undealt", None)  # the rest of the deck: follows from the rest
                # what else makes a deal (Kozel: its stock and the card shown, docs/rules.md §3.18)
                return " ".join([text, *(f"{key} {' '.join(value) if isinstance(value, list) else value}"
                                         for key, value in record.items())])
            if self._drawn < context.draws:
                return f"deal {context.game.deck.name(action)} to position {self._drawn}"
            return f"choose {action} for position {context.choices[self._drawn - context.draws][0]}"
        if self._player != player or action not in self._legal_table().indices:
            return f"action {action}"
        return context.game.action_text(self.engine_state(), self.engine_action(action), player)

    def returns(self):
        context = self._context
        n = context.game.n_players
        if not self.is_terminal():
            return [0.0] * n
        objective = OBJECTIVE_DEAL if context.objective == "deal" else OBJECTIVE_MATCH
        return seat_rewards(context.game.kernels, self._array, objective, n)

    def resample_from_infostate(self, player_id, probability_sampler):
        seed = int(probability_sampler() * (1 << 53))
        return self.resample(player_id, make_rng(seed))

    def resample(self, player: int, rng: np.ndarray) -> SlagwerkState:
        """A state ``player`` cannot tell from this one, its unseen cards redealt
        from ``rng`` by the engine's ``determinize``.

        :raises ValueError: if ``player`` is not a seat (pyspiel checks the
            player of its own methods, but not of this Python one)."""
        n = self._context.game.n_players
        if isinstance(player, bool) or not isinstance(player, (int, np.integer)) or not 0 <= player < n:
            raise ValueError(f"player {player!r} is not a seat of {self._context.game.name} (0..{n - 1})")
        other = self.clone()
        if self._deal is not None:  # mid-deal chance: nothing dealt is seen yet
            return other
        array = self._array.copy()
        self._context.game.kernels.determinize(array, player, rng)
        other._set_step(_Step(None, array, prefix={player: self._step.info(self._context, player)},
                              recall={player: self._step}))
        return other

    def information_state_text(self, player: int) -> str:
        return self._step.info(self._context, player)

    def __str__(self):
        context = self._context
        text = context.game.render(State(context.game, self._array))
        if self._deal is not None:
            text += f"\n(dealing: {self._drawn} chance events drawn)"
        return text


class _Observer:
    """OpenSpiel's observer: the seat's view (``perfect_recall`` off) or its
    perfect-recall information state. The tensor is the game's encoding, with
    perfect recall followed by a block (``observe_step``) for each player
    action of the deal so far, as the seat saw it, and zeros after them."""

    def __init__(self, context: _Context, perfect_recall: bool):
        self.perfect_recall = perfect_recall
        self.context = context
        module = context.module
        size = module.OBSERVATION_SIZE
        self.steps = 0
        if perfect_recall:
            if not hasattr(module, "observe_step"):
                raise ValueError(f"{context.game.name} offers no information-state tensor")
            self.steps = module.max_deal_steps(context.game.options_array)
        self.tensor = np.zeros(size + self.steps * getattr(module, "STEP_SIZE", 0), np.float32)
        self.dict = {}
        at = 0
        for name, part in module.OBSERVATION_PARTS:
            self.dict[name] = self.tensor[at : at + part]
            at += part
        if perfect_recall:
            self.history = self.tensor[size:].reshape(self.steps, module.STEP_SIZE)
            self.dict["history"] = self.history

    def set_from(self, state, player):
        module = self.context.module
        observation = self.tensor[: module.OBSERVATION_SIZE]
        module.observe(state._array, player, observation)
        if self.perfect_recall:
            blocks = state._step.deal_steps(self.context, player)
            if len(blocks) > self.steps:  # max_deal_steps is a bound the rules guarantee
                raise RuntimeError(f"{len(blocks)} actions in one {self.context.game.name} deal, more "
                                   f"than the {self.steps} its information-state tensor has room for")
            self.history[:] = 0.0
            if blocks:
                self.history[: len(blocks)] = blocks

    def string_from(self, state, player):
        if self.perfect_recall:
            return state.information_state_text(player)
        return view_text(self.context.game, state._array, player)


_GAME_TYPES: dict[str, pyspiel.GameType] = {}
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_CHANCE = int(pyspiel.PlayerId.CHANCE)


def _cards_of(hand) -> list[str]:
    """The cards of a record's hand in its order: a list of cards, or an object of slots
    (Koetsieren's ``table``, ``forehead``, ``hidden``; a slot not dealt is null)."""
    if isinstance(hand, dict):
        return [card for value in hand.values() for card in (value if isinstance(value, list) else [value])
                if card is not None]
    return list(hand)


def register(games=None) -> list[str]:
    """Register ``python_slagwerk_<game>`` with pyspiel for ``games`` (default: every
    game with an observation encoding); returns the short names. Idempotent."""
    names = []
    for info in registry.game_infos():
        if (games is not None and info.name not in games) or not info.observation:
            continue
        if info.name not in _GAME_TYPES:
            _GAME_TYPES[info.name] = _game_type(info.name)
            cls = type(f"Slagwerk{info.name.title()}Game", (SlagwerkGame,), {"game_name": info.name})
            pyspiel.register_game(_GAME_TYPES[info.name], cls)
        names.append(short_name(info.name))
    return names


def load_game(game_name: str, objective: str = "match", chance: str = "card", **options):
    """The registered OpenSpiel game of ``game_name`` with ``options``."""
    register([game_name])
    return pyspiel.load_game(short_name(game_name), {**options, "objective": objective, "chance": chance})


def state_from_view(game, view: dict, seed: int) -> SlagwerkState:
    """An OpenSpiel state of ``game`` that the view's seat cannot tell from the
    true one: the engine's ``state_from_view`` (unseen cards dealt from ``seed``),
    the seat's information state being the view itself (with its history)."""
    context = _context(*game._key())
    engine_state = context.game.state_from_view(view, seed=seed)
    state = game.new_initial_state()
    seat = int(view["seat"])
    prefix = {seat: "[view] " + json.dumps(view, separators=(",", ":"), sort_keys=True)}
    recall = {seat: _ViewHistory(json.dumps(view), engine_state.array.copy(), seed)}
    state._set_step(_Step(None, engine_state.array.copy(), prefix=prefix, recall=recall))
    return state


def state_from_engine(game, engine_state: State) -> SlagwerkState:
    """An OpenSpiel state of ``game`` at the engine state (everything seen: for
    the perfect-information ``MCTSBot`` only)."""
    state = game.new_initial_state()
    state._set_step(_Step(None, engine_state.array.copy(), prefix={}))
    return state
