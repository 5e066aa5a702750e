"""The games as OpenSpiel Python games (slagwerk.envs.openspiel, docs/envs.md),
and OpenSpiel's bots as slagwerk agents (agents/openspiel.py).

OpenSpiel's own ``random_sim_test`` (with serialization) for every game;
the no-leak property of information-state and observation strings and
tensors: they do not change when only cards hidden from the seat change
(docs/rules.md §2.2, §3.8); the information-state tensor has perfect recall
(it tells two decision points apart exactly when the string does);
``resample_from_infostate`` keeps the seat's information state.
"""

from __future__ import annotations

import itertools
import json
import sys

import numpy as np
import pytest

if sys.version_info < (3, 11):
    pytest.skip("OpenSpiel publishes wheels for Python 3.11 and newer only", allow_module_level=True)
pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (extra [openspiel])")

from open_spiel.python.observation import make_observation  # noqa: E402

from slagwerk.agents import make  # noqa: E402
from slagwerk.engine import make_game  # noqa: E402
from slagwerk.engine.bits import make_rng  # noqa: E402
from slagwerk.engine.encoding import part_offsets  # noqa: E402
from slagwerk.engine.game import State  # noqa: E402
from slagwerk.engine.registry import game_infos  # noqa: E402
from slagwerk.engine.state import DEAL_COMPLETE  # noqa: E402
from slagwerk.envs import openspiel as sw_openspiel  # noqa: E402

GAMES = {info.name: info.short_options for info in game_infos() if info.observation}
"""Every registered game with an observation encoding, with short matches."""


def test_every_game_is_registered():
    assert sw_openspiel.register() == [f"python_slagwerk_{g}" for g in GAMES]
    game = pyspiel.load_game("python_slagwerk_coins", {"target": 3})
    assert game.num_players() == 3 and game.num_distinct_actions() == 48
    assert game.get_parameters() == {"target": 3, "first_dealer": 0, "ranks": 12, "hand": 16,
                                     "objective": "match", "chance": "card"}


def _draw_card_by_card(game, deck: int, ranks: str, pick: int):
    """Deal ``game`` card by card, taking outcome ``pick`` each time: every draw offers the cards
    of a ``deck``-card deck not yet drawn, all of ``ranks``, equally likely. The state after, and
    the number of draws."""
    state = game.new_initial_state()
    drawn = 0
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert len(outcomes) == deck - drawn
        assert all(state.action_to_string(c).split()[1][0] in ranks for c, _ in outcomes)
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        state.apply_action(outcomes[pick][0])
        drawn += 1
    return state, drawn


def _whole_deals(game, count: int, ranks: str):
    """The one chance node of a whole-deal game: ``count`` distinct deals of cards of ``ranks``
    only, equally likely. The state after deal 17."""
    state = game.new_initial_state()
    outcomes = state.chance_outcomes()
    assert game.max_chance_outcomes() == len(outcomes) == count
    assert len({p for _, p in outcomes}) == 1 and sum(p for _, p in outcomes) == pytest.approx(1.0)
    deals = {state.action_to_string(outcome) for outcome, _ in outcomes}
    assert len(deals) == count and all(card[0] in ranks for deal in deals for card in deal.split()[1:]
                                       if card != "|")
    state.apply_action(17)
    return state


def test_a_small_variant_deals_only_its_deck_one_card_at_a_time():
    """docs/rules.md §1.10 through the adapter: chance draws only the cards of the deck in play,
    every hand card by card, and random play runs to the end (pyspiel's own checks)."""
    game = sw_openspiel.load_game("coins", objective="deal", ranks=2, hand=2)
    _, drawn = _draw_card_by_card(game, 8, "AK", pick=0)
    assert drawn == 6
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("objective", ["deal", "match"])
def test_random_sim_test_with_serialization(game, objective):
    options = GAMES[game] if objective == "deal" or game != "kozel" else {}
    os_game = sw_openspiel.load_game(game, objective=objective, **options)
    pyspiel.random_sim_test(os_game, num_sims=2 if objective == "deal" else 1, serialize=True, verbose=False)


def _cards_in(value, names: set[str]) -> set[str]:
    """Every card named anywhere in a JSON view."""
    if isinstance(value, str):
        return {value} if value in names else set()
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return set().union(*(_cards_in(v, names) for v in value)) if value else set()
    return set()


def _play(os_game, chance, actions, stop):
    """Replay chance events and engine actions (index looked up in each state); None if illegal."""
    state = os_game.new_initial_state()
    for card in chance:
        state.apply_action(int(card))
    for action in actions[:stop]:
        table = state._legal_table()
        index = [i for i in table.indices if table.actions[i] == action]
        if not index:
            return None
        state.apply_action(index[0])
    return state


def _chance_events(context, deal) -> list[int]:
    """The OpenSpiel chance events that deal the engine's deal vector ``deal``."""
    return [int(c) for c in deal[: context.draws]] + [int(deal[at]) for at, _, _ in context.choices]


def _map_action(game_name, action, relabel):
    """An engine action with its cards relabelled (only Kozel's actions name cards as masks;
    Coins and Aluette play seen cards, which keep their labels)."""
    if game_name != "kozel":
        return action
    from slagwerk.engine.kozel import kernels as K

    cards = action & K.CARD_FIELD
    mapped = 0
    for c in range(K.DECK_SIZE):
        if cards >> c & 1:
            mapped |= 1 << relabel.get(c, c)
    return (action & ~K.CARD_FIELD) | mapped


_changed: dict[str, int] = {}
RELABELLINGS = 20


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("trial", range(4))
def test_strings_do_not_change_when_only_hidden_cards_change(game, trial):
    """docs/rules.md §2.2, §3.8: a seat's information-state string (perfect recall) and
    observation string and tensor are the same in two deals that differ only in cards the
    seat never saw, after the same actions."""
    os_game = sw_openspiel.load_game(game, objective="deal", **GAMES[game])
    context = sw_openspiel._context(*os_game._key())
    engine_game = context.game
    rng = np.random.default_rng(100 + trial)
    state = os_game.new_initial_state()
    chance = []
    while state.is_chance_node():
        outcomes = [a for a, _ in state.chance_outcomes()]
        chance.append(int(rng.choice(outcomes)))
        state.apply_action(chance[-1])
    actions = []
    seat = int(rng.integers(engine_game.n_players))
    names = {engine_game.deck.name(c) for c in range(engine_game.deck.size)}
    seen = _cards_in(json.loads(sw_openspiel.view_text(engine_game, state._array, seat)), names)
    for _ in range(int(rng.integers(3, 30))):
        if state.is_terminal():
            break
        index = int(rng.choice(state.legal_actions()))
        actions.append(state.engine_action(index))
        state.apply_action(index)
        seen |= _cards_in(engine_game.view(State(engine_game, state._array), seat), names)
    # relabel the cards this seat never saw, among themselves, in the deal
    deck = [engine_game.deck.name(c) for c in range(engine_game.deck.size)]
    hidden = [c for c in range(len(deck)) if deck[c] not in seen]
    for _attempt in range(RELABELLINGS):  # rarely, a relabelling makes a recorded action illegal
        permuted = list(rng.permutation(hidden))
        relabel = dict(zip(hidden, (int(c) for c in permuted)))
        other_chance = [relabel.get(c, c) if i < context.draws else c for i, c in enumerate(chance)]
        other = _play(os_game, other_chance, [_map_action(game, a, relabel) for a in actions], len(actions))
        if other is not None:
            break
    assert other is not None, f"none of {RELABELLINGS} relabelled deals could replay the actions"
    _changed[game] = _changed.get(game, 0) + int(not np.array_equal(state._array, other._array))
    assert other.information_state_string(seat) == state.information_state_string(seat)
    assert other.information_state_tensor(seat) == state.information_state_tensor(seat)
    assert other.observation_string(seat) == state.observation_string(seat)
    assert other.observation_tensor(seat) == state.observation_tensor(seat)


@pytest.mark.parametrize("game", GAMES)
def test_the_relabelled_deals_did_differ(game):
    """The property above is not vacuous: the deals it compared were different."""
    if not _changed.get(game):  # this worker ran none of the game's trials, or only some
        for trial in range(4):
            test_strings_do_not_change_when_only_hidden_cards_change(game, trial)
    assert _changed.get(game, 0) > 0


def _random_deal(os_game, chance_seed: int, play_seed: int):
    """The states of one deal (objective "deal"): chance events from ``chance_seed``,
    then random actions from ``play_seed``; the decision points and the end."""
    state = os_game.new_initial_state()
    chance = np.random.default_rng(chance_seed)
    play = np.random.default_rng(play_seed)
    while state.is_chance_node():
        state.apply_action(int(chance.choice([a for a, _ in state.chance_outcomes()])))
    states = [state.clone()]
    while not state.is_terminal():
        state.apply_action(int(play.choice(state.legal_actions())))
        states.append(state.clone())
    return states


@pytest.mark.parametrize("game", GAMES)
def test_the_information_state_tensor_has_perfect_recall(game):
    """docs/envs.md: at every decision point of a deal, two states have the same
    information-state tensor for a seat exactly when they have the same
    information-state string (everything the seat saw, in order). The states are
    many random continuations of a few deals, so that the same cards get played in
    other orders (the observation tensor alone cannot tell those apart)."""
    os_game = sw_openspiel.load_game(game, objective="deal", **GAMES[game])
    n = os_game.num_players()
    size = os_game.information_state_tensor_size()
    assert size == os_game.information_state_tensor_shape()[0] > os_game.observation_tensor_size()
    by_string, by_tensor = {}, {}
    seat_states_checked = 0
    for deal in range(3):
        for play in range(12):
            for state in _random_deal(os_game, deal, 1000 * deal + play)[:-1]:
                for seat in range(n):
                    tensor = np.asarray(state.information_state_tensor(seat), np.float32)
                    assert tensor.shape == (size,) and tensor.min() >= 0.0 and tensor.max() <= 1.0
                    text = state.information_state_string(seat)
                    key = (seat, tensor.tobytes())
                    assert by_string.setdefault((seat, text), key) == key, "one string, two tensors"
                    if by_tensor.setdefault(key, text) != text:
                        raise AssertionError(f"one tensor, two strings: {by_tensor[key]!r} / {text!r}")
                    seat_states_checked += 1
    # the check compared many states: some strings came back (several continuations share a start)
    assert len(by_string) < seat_states_checked


@pytest.mark.parametrize("game", GAMES)
def test_each_actions_block_says_what_its_text_says(game):
    """docs/envs.md: the block of an action in the information-state tensor holds the
    same facts as the action's part of the string (who moved, what the seat saw of
    it, what it learnt: Kozel's drawn cards, a molodka's cards), no more and no less:
    over every action of 15 random continuations of each of 10 deals, for every
    seat, one text has one block and one block one text. The deal and the seat are
    part of both keys: a text leaves out what the deal's start implies (Koetsieren:
    which slot held the card another seat played, the block's action), and the
    mover in the text is absolute, in the block relative to the seat."""
    os_game = sw_openspiel.load_game(game, objective="deal", **GAMES[game])
    context = sw_openspiel._context(*os_game._key())
    n = os_game.num_players()
    block_of, text_of = {}, {}
    for deal, play in itertools.product(range(10), range(15)):
        end = _random_deal(os_game, deal, 100 * deal + play)[-1]
        for seat in range(n):
            blocks = end._step.deal_steps(context, seat)
            links, node = [], end._step
            while node.mover >= 0:
                links.append(node)
                node = node.prev
            assert len(blocks) == len(links) > 0
            for link, block in zip(reversed(links), blocks):
                # what follows " | next" (whose turn, the count) is the next block's and the
                # observation's, not this action's
                text = (deal, seat, link.token(context, seat).split(" | next")[0])
                key = (deal, seat, block.tobytes())
                assert block_of.setdefault(text, key) == key, f"{text!r}: two blocks"
                assert text_of.setdefault(key, text) == text, f"{text!r} and {text_of[key]!r}: one block"
    assert len(block_of) > 200


@pytest.mark.parametrize("game", GAMES)
def test_a_deal_never_has_more_actions_than_its_tensor_holds(game):
    """The bound ``max_deal_steps`` of each game (its docstring argues it from the
    rules) over a thousand random first deals (six Koetsieren players; Coins to
    1,000 coins, so that no deal ends the match early): exact in Coins, Aluette and
    Koetsieren (every card is played, trump named and bids made once); in Kozel,
    where sets and molodka questions vary, no trick longer than its bound."""
    options = {"coins": {"target": 1000}, "koetsieren": {"players": 6}}.get(game, {})
    engine_game = make_game(game, **options)
    module = sw_openspiel._context(game, tuple(options.items()), "deal").module
    bound = module.max_deal_steps(engine_game.options_array)
    lengths, longest_trick = set(), 0
    for seed in range(1000):
        state = engine_game.new_match(seed=seed)
        rng = np.random.default_rng(seed)
        steps = in_trick = 0
        tricks = state.tricks_done
        while not state.array[DEAL_COMPLETE]:
            state.apply(int(rng.choice(state.legal_actions())))
            steps += 1
            in_trick += 1
            if state.tricks_done != tricks:
                longest_trick, in_trick, tricks = max(longest_trick, in_trick), 0, state.tricks_done
        lengths.add(steps)
    if game == "kozel":
        assert max(lengths) <= bound and longest_trick <= module.TRICK_STEPS_BOUND
    else:
        assert lengths == {bound}


def test_kozels_longest_trick_fits_its_bound():
    """docs/rules.md §3.10, §3.11: the longest trick there can be. Every seat holds a
    molodka, passes at each question point, and the last seat asked declares after
    three plays: 9 passes, 3 plays sent back, the molodka and 3 answers, 16 actions,
    within ``TRICK_STEPS_BOUND`` (17: the bound counts one pass more)."""
    from slagwerk.engine.kozel import kernels as K
    from slagwerk.engine.kozel import observation

    game = make_game("kozel")
    state = game.new_match()
    vector = np.zeros(K.DEAL_SIZE, np.int64)
    hands = [suit * K.N_RANKS + rank for suit in range(K.N_SUITS) for rank in range(K.HAND_SIZE)]
    vector[: len(hands)] = hands
    vector[K.DEAL_STOCK : K.DEAL_STOCK + K.STOCK_SIZE] = [c for c in range(K.DECK_SIZE) if c not in hands]
    vector[K.DEAL_TRUMP_POSITION] = K.TRUMP_FIRST_PLACE
    state.deal(vector)
    texts, plays = [], 0
    while state.tricks_done == 0:
        words = {game.action_text(state, a): a for a in state.legal_actions()}
        word = ("molodka" if "molodka" in words and plays == 3 else "pass" if "pass" in words
                else min(words, key=lambda w: (w.count(","), w)))
        plays += word.split(":")[0] in ("lead", "beat", "discard")
        texts.append(word)
        state.apply(words[word])
    assert texts.count("pass") == 9 and texts.count("molodka") == 1 and len(texts) == 16
    assert len(texts) <= observation.TRICK_STEPS_BOUND


def _without_drawn_cards(context, tensor) -> bytes:
    """The tensor with each block's cards drawn (Kozel's ``gained``) left out."""
    module = context.module
    tensor = np.asarray(tensor, np.float32).copy()
    if "gained" in dict(module.STEP_PARTS):
        at = part_offsets(module.STEP_PARTS)["gained"]
        blocks = tensor[module.OBSERVATION_SIZE :].reshape(-1, module.STEP_SIZE)
        blocks[:, at : at + dict(module.STEP_PARTS)["gained"]] = 0.0
    return tensor.tobytes()


@pytest.mark.parametrize("game", GAMES)
def test_a_state_rebuilt_from_a_view_has_the_seats_tensor(game):
    """A bot's view carries the deal's history (as text): a state rebuilt from it
    (``state_from_view``, what a program trained on the tensor meets as a bot)
    replays that history in a world of its own and has the seat's true tensor,
    whatever its hidden cards; another seat's tensor is an error. Kozel: a view
    does not say which cards of the seat's hand were dealt and which it drew
    when, so there the blocks' drawn cards are left out of the comparison."""
    engine_game = make_game(game, **GAMES[game])
    os_game = sw_openspiel.load_game(game, objective="deal", **GAMES[game])
    context = sw_openspiel._context(*os_game._key())
    kernels = engine_game.kernels
    compared = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        state = engine_game.new_match()
        deal = np.zeros(kernels.DEAL_SIZE, dtype=np.int64)
        kernels.random_deal(state.array, make_rng(seed), deal)
        state.deal(deal)
        chance = _chance_events(context, deal)
        actions = []
        for _ in range(int(rng.integers(0, 25))):
            if state.array[DEAL_COMPLETE]:
                break
            actions.append(int(rng.choice(state.legal_actions())))
            state.apply(actions[-1])
        if state.array[DEAL_COMPLETE]:
            continue
        true = _play(os_game, chance, actions, len(actions))
        view = state.view(state.to_move)
        expected = _without_drawn_cards(context, true.information_state_tensor(state.to_move))
        for world_seed in (1, 2):
            rebuilt = sw_openspiel.state_from_view(os_game, view, seed=world_seed)
            assert _without_drawn_cards(context, rebuilt.information_state_tensor(state.to_move)) == expected
            compared += 1
        with pytest.raises(ValueError, match="rebuilt for another seat"):
            rebuilt.information_state_tensor((state.to_move + 1) % os_game.num_players())
    assert compared >= 12


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoos_history_is_openspiels_information_state_tensor(game):
    """docs/envs.md: PettingZoo's ``history=True`` observation is the same vector as
    OpenSpiel's information-state tensor, for every seat at every step of a deal."""
    from slagwerk.envs.encoded import EncodedMatch

    os_game = sw_openspiel.load_game(game, objective="deal", **GAMES[game])
    context = sw_openspiel._context(*os_game._key())
    match = EncodedMatch(game, seed=4, history=True, **GAMES[game])
    state = _play(os_game, _chance_events(context, match._deal), [], 0)
    rng = np.random.default_rng(4)
    steps = 0
    while not state.is_terminal():
        assert np.array_equal(state._array, match.array)
        for seat in range(match.n_players):
            tensor = np.asarray(state.information_state_tensor(seat), np.float32)
            assert np.array_equal(match.observe(seat), tensor)
        index = int(rng.choice(state.legal_actions()))
        state.apply_action(index)
        match.step(index)
        steps += 1
    assert steps > 10


def _twin_matches(game, seed: int):
    """The same random match in the engine (with its history) and in OpenSpiel, up to
    a decision in deal 1, 2 or 3; or None if the match ends first."""
    engine_game = make_game(game)
    os_game = sw_openspiel.load_game(game, objective="match")
    context = sw_openspiel._context(*os_game._key())
    kernels = engine_game.kernels
    rng = np.random.default_rng(seed)
    state, twin = engine_game.new_match(), os_game.new_initial_state()
    stop_deal, left = 1 + seed % 3, int(rng.integers(0, 30))
    while not state.is_terminal:
        if state.deal_pending:
            deal = np.zeros(kernels.DEAL_SIZE, dtype=np.int64)
            kernels.random_deal(state.array, make_rng(seed * 100 + state.deal_number), deal)
            state.deal(deal)
            for event in _chance_events(context, deal):
                twin.apply_action(event)
            continue
        if state.deal_number >= stop_deal:
            if left == 0:
                return os_game, state, twin
            left -= 1
        action = int(rng.choice(state.legal_actions()))
        table = twin._legal_table()
        twin.apply_action(next(i for i in table.indices if table.actions[i] == action))
        state.apply(action)
    return None


def test_kozel_views_of_later_deals_rebuild_the_seats_tensor():
    """Views at random points of the first three deals of random Kozel matches: every
    rebuilt state replays its history (earlier tricks' molodka questions included)
    and has the seat's true tensor, the drawn cards aside."""
    compared = 0
    for seed in range(150):
        twins = _twin_matches("kozel", seed)
        if twins is None:
            continue
        os_game, state, twin = twins
        seat = state.to_move
        context = sw_openspiel._context(*os_game._key())
        rebuilt = sw_openspiel.state_from_view(os_game, state.view(seat), seed=seed)
        assert _without_drawn_cards(context, rebuilt.information_state_tensor(seat)) == \
            _without_drawn_cards(context, twin.information_state_tensor(seat))
        compared += 1
    assert compared > 100


@pytest.mark.parametrize("game", GAMES)
def test_a_trimmed_or_changed_view_still_rebuilds_the_tensor(game):
    """A view as a bot may pass it on: without ``legal_actions`` (optional), its legal
    actions in another order, or its dict changed after the state was built (the
    state keeps a copy)."""
    twins = next(t for t in (_twin_matches(game, seed) for seed in range(3, 40)) if t is not None)
    os_game, state, twin = twins
    seat = state.to_move
    context = sw_openspiel._context(*os_game._key())
    expected = _without_drawn_cards(context, twin.information_state_tensor(seat))
    trimmed = state.view(seat)
    del trimmed["legal_actions"]
    reordered = state.view(seat)
    reordered["legal_actions"] = reordered["legal_actions"][::-1]
    changed = state.view(seat)
    for view in (trimmed, reordered, changed):
        rebuilt = sw_openspiel.state_from_view(os_game, view, seed=1)
        view.clear()
        assert _without_drawn_cards(context, rebuilt.information_state_tensor(seat)) == expected


def test_in_a_match_the_information_state_tensor_keeps_the_deal_in_progress():
    """docs/envs.md: with objective "match", the blocks are the current deal's actions
    (the string keeps every deal); between deals, the last deal's."""
    os_game = sw_openspiel.load_game("coins", objective="match", target=30)
    history_at = os_game.observation_tensor_size()
    block = sw_openspiel._context(*os_game._key()).module.STEP_SIZE
    state = os_game.new_initial_state()
    rng = np.random.default_rng(1)
    actions = 0
    while "[deal 2]" not in state.information_state_string(0) or actions < 5:
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
            if not state.is_chance_node():  # a deal was dealt: its history begins
                actions = 0
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            actions += 1
            blocks = np.asarray(state.information_state_tensor(0))[history_at:].reshape(-1, block)
            assert blocks[:actions].any(axis=1).all() and not blocks[actions:].any()
    assert "[deal 1]" in state.information_state_string(0)


def test_the_information_state_remembers_earlier_deals():
    os_game = sw_openspiel.load_game("coins", objective="match", target=30)
    state = os_game.new_initial_state()
    rng = np.random.default_rng(1)
    while state.current_player() != pyspiel.PlayerId.TERMINAL and "[deal 2]" not in \
            state.information_state_string(0):
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    text = state.information_state_string(0)
    assert "[deal 1]" in text and "[deal 2]" in text


def test_the_information_state_learns_kozels_discards_at_the_count():
    """docs/rules.md §3.8 (3.): another seat's discards are hidden until the deal is
    counted; from the count on, the information state names them."""
    os_game = sw_openspiel.load_game("kozel", objective="match")
    engine_game = make_game("kozel")
    state = os_game.new_initial_state()
    rng = np.random.default_rng(2)
    while state.is_chance_node():
        state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
    before = None
    while not state.is_chance_node():
        before = state.information_state_string(0)
        state.apply_action(int(rng.choice(state.legal_actions())))
    after = state.information_state_string(0)
    arr, kernels = state._array, engine_game.kernels
    theirs = set()  # the cards seats 1-3 discarded
    for cell in range(4 * State(engine_game, arr).tricks_done):
        if cell % 4 and arr[kernels.PLAY_KIND + cell] == kernels.KIND_DISCARD:
            theirs |= set(engine_game.names_of(int(arr[kernels.PLAYED + cell])))
    names = {engine_game.deck.name(c) for c in range(engine_game.deck.size)}
    counted = _cards_in(json.loads(after.split("[counted] ")[-1]), names)
    assert theirs and theirs <= counted
    assert "[counted]" not in before and after.startswith(before)


@pytest.mark.parametrize("game", GAMES)
def test_an_illegal_action_is_an_error_and_changes_nothing(game):
    """docs/envs.md: an index outside legal_actions() (or the chance outcomes) is refused;
    it used to be played from whatever the legal table held at that index."""
    os_game = sw_openspiel.load_game(game, objective="deal", **GAMES[game])
    state = os_game.new_initial_state()
    rng = np.random.default_rng(5)
    taken = int(rng.choice([a for a, _ in state.chance_outcomes()]))
    state.apply_action(taken)
    with pytest.raises(ValueError, match="not legal for the chance node"):
        state.apply_action(taken)  # that card is dealt already
    while state.is_chance_node():
        state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
    for _ in range(3):
        before = (state._array.copy(), state.history(), state.information_state_string(0))
        illegal = [a for a in range(os_game.num_distinct_actions()) if a not in state.legal_actions()]
        for action in illegal[:: max(1, len(illegal) // 7)] + [os_game.num_distinct_actions()]:
            with pytest.raises(ValueError, match=f"action {action} is not legal for seat"):
                state.apply_action(action)
        assert np.array_equal(state._array, before[0])
        assert (state.history(), state.information_state_string(0)) == before[1:]
        state.apply_action(int(rng.choice(state.legal_actions())))
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_outcomes() if state.is_chance_node()
                                          else state.legal_actions())))
    with pytest.raises(ValueError, match="is over"):
        state.apply_action(0)


def test_only_the_seats_own_observation_is_offered():
    """docs/envs.md: an observer of another kind is refused, not silently the private one."""
    os_game = sw_openspiel.load_game("coins", objective="deal", target=3)
    public_only = pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                             private_info=pyspiel.PrivateInfoType.NONE)
    with pytest.raises(ValueError, match="only a seat's own observation"):
        make_observation(os_game, public_only)
    own = make_observation(os_game, pyspiel.IIGObservationType(perfect_recall=False))
    assert own.tensor.size > 0


def test_a_molodkas_four_cards_enter_the_information_state():
    """docs/rules.md §3.10, docs/envs.md: a molodka is written `molodka`, and its four
    face-up cards follow it (=cards), so the information state keeps perfect recall."""
    os_game = sw_openspiel.load_game("kozel", objective="deal")
    engine_game = make_game("kozel")
    for seed in range(40):
        rng = np.random.default_rng(seed)
        state = os_game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
                continue
            mover = state.current_player()
            texts = {a: state.action_to_string(mover, a) for a in state.legal_actions()}
            declare = [a for a, text in texts.items() if text == "molodka"]
            if declare:
                state.apply_action(declare[0])
                arr, kernels = state._array, engine_game.kernels
                cell = int(arr[kernels.TRICKS_DONE]) * 4 + mover
                cards = engine_game.names_of(int(arr[kernels.PLAYED + cell]))
                for seat in range(4):
                    last = state.information_state_string(seat).splitlines()[-1]
                    assert last.startswith(f"{mover}:molodka =" + ",".join(cards)), last
                return
            state.apply_action(int(rng.choice(state.legal_actions())))
    raise AssertionError("no random deal offered a molodka: the test proved nothing")


@pytest.mark.parametrize("game", GAMES)
def test_resampling_keeps_the_seats_information_state(game):
    os_game = sw_openspiel.load_game(game, objective="deal", **GAMES[game])
    state = os_game.new_initial_state()
    rng = np.random.default_rng(3)
    while state.is_chance_node():
        state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
    for _ in range(4):  # a few plays: the hands are no longer as dealt
        state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    n = os_game.num_players()
    worlds = [state.resample_from_infostate(player, sampler) for _ in range(5)]
    assert all(w.information_state_string(player) == state.information_state_string(player) for w in worlds)
    assert all(w.information_state_tensor(player) == state.information_state_tensor(player) for w in worlds)
    with pytest.raises(ValueError, match="rebuilt for another seat"):  # its history stayed behind
        worlds[0].information_state_tensor((player + 1) % n)
    again = worlds[0].resample_from_infostate(player, sampler)  # a world of a world keeps it too
    assert again.information_state_tensor(player) == state.information_state_tensor(player)
    assert all(w.legal_actions() == state.legal_actions() for w in worlds)
    assert any(not np.array_equal(w._array, state._array) for w in worlds)
    for bad in (-1, n, 100, True, 1.0):
        with pytest.raises(ValueError, match=f"player {bad!r} is not a seat"):
            state.resample_from_infostate(bad, sampler)


@pytest.mark.parametrize("game", GAMES)
def test_openspiel_bots_play_legal_moves(game):
    engine_game = make_game(game, **GAMES[game])
    state = engine_game.new_match(seed=4)
    view = state.view(state.to_move)
    decision = make("openspiel-ismcts:simulations=20", engine_game, seed=1).decide(view)
    assert decision.action in view["legal_actions"] and decision.stats["iterations"] == 20
    again = make("openspiel-ismcts:simulations=20", engine_game, seed=1).decide(view)
    assert again.action == decision.action  # seeded
    cheat = make("openspiel-mcts:simulations=20", engine_game, seed=1).decide_true_state(state)
    assert cheat.action in view["legal_actions"]


def test_a_time_budget_stops_the_search():
    engine_game = make_game("coins")
    state = engine_game.new_match(seed=4)
    decision = make("openspiel-ismcts:time_ms=30", engine_game, seed=1).decide(state.view(state.to_move))
    assert decision.stats["iterations"] >= 1


def test_openspiel_agents_play_a_tournament():
    from slagwerk.experiments.harness.tournament import TournamentConfig, run_tournament

    config = TournamentConfig("koetsieren", ("random", "openspiel-ismcts:simulations=10,label=os"),
                              deals=1, seed=1, bootstrap=20, options=(("players", 2),))
    result = run_tournament(config, jobs=1, progress=False, save=False)
    assert {row.agent for row in result.ratings.ranking} == {"random", "os"}


def test_a_whole_deal_is_one_chance_outcome_with_chance_deal():
    """Issue #56's exact traversal: with chance="deal" the smallest Coins variant has one chance
    node of its 2,520 deals, each listed once and equally likely, and plays like the card-by-card
    game (pyspiel's own random simulation checks)."""
    game = sw_openspiel.load_game("coins", objective="deal", chance="deal", ranks=2, hand=2)
    state = _whole_deals(game, 2520, "AK")
    assert not state.is_chance_node() and len(state.legal_actions()) == 2
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_chance_deal_refuses_what_it_cannot_list_in_one_line():
    with pytest.raises(ValueError, match="chance must be one of card, deal"):
        sw_openspiel.load_game("coins", chance="cards")
    with pytest.raises(ValueError, match="1,355,345,464,406,015,082,330 deals: too many"):
        sw_openspiel.load_game("coins", chance="deal")
    with pytest.raises(ValueError, match="1,108,800 deals: too many"):  # Kozel's small variants (§3.18)
        sw_openspiel.load_game("kozel", chance="deal", ranks=3, hand=3, stock=0)


@pytest.mark.slow
def test_nash_conv_is_the_same_with_whole_deals_as_card_by_card():
    """OpenSpiel's NashConv of the uniform random policy on the smallest Coins variant (deal
    objective) is the same whether a deal is one chance outcome or six cards drawn one by one.
    The card-by-card value was measured once with ``exploitability.nash_conv(load_game("coins",
    objective="deal", ranks=2, hand=2), UniformRandomPolicy(game))`` (six minutes); the
    whole-deal game takes seconds."""
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import exploitability

    card_by_card = 0.3944444444444445
    game = sw_openspiel.load_game("coins", objective="deal", chance="deal", ranks=2, hand=2)
    nash_conv = exploitability.nash_conv(game, policy_lib.UniformRandomPolicy(game))
    assert nash_conv == pytest.approx(card_by_card, abs=1e-9)


def test_a_small_koetsieren_deals_only_its_deck_one_slot_at_a_time():
    """docs/rules.md §2.15 through the adapter: chance draws each dealt slot's card from the deck in
    play only (A K of each suit), four draws for two players of two slots, and random play runs to
    the end (pyspiel's own checks)."""
    game = sw_openspiel.load_game("koetsieren", objective="deal", players=2, ranks=2, hand=2)
    state, drawn = _draw_card_by_card(game, 8, "AK", pick=-1)
    assert drawn == 4 and state.legal_actions() == [5, 6, 7, 8]  # the trump maker names trump
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


def test_a_whole_small_koetsieren_deal_is_one_chance_outcome():
    """Issue #56's exact traversal on Koetsieren: players=2, ranks=2, hand=2 has one chance node of its
    1,680 deals (docs/rules.md §2.15), each listed once and equally likely, and plays like the
    card-by-card game (pyspiel's own random simulation checks)."""
    game = sw_openspiel.load_game("koetsieren", objective="deal", chance="deal", players=2, ranks=2, hand=2)
    state = _whole_deals(game, 1680, "AK")
    assert not state.is_chance_node() and len(state.legal_actions()) == 4
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
    with pytest.raises(ValueError, match="deals: too many"):
        sw_openspiel.load_game("koetsieren", chance="deal")
