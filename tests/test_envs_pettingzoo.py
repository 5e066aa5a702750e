"""The games as PettingZoo AEC environments (slagwerk.envs.pettingzoo, docs/envs.md).

PettingZoo's own conformance tests (``api_test``, ``seed_test``,
``render_test``) for every game, the compact action index against the
engine's legal actions, and the no-leak property: a seat's observation does
not change when only cards hidden from it change (docs/rules.md §2.2 for
Koetsieren's slots, §3.8 for Kozel's face-down discards).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="PettingZoo is not installed (extra [pettingzoo])")

import pettingzoo  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

from slagwerk.engine import make_game  # noqa: E402
from slagwerk.engine.bits import make_rng  # noqa: E402
from slagwerk.engine.registry import game_infos  # noqa: E402
from slagwerk.envs.encoded import EncodedMatch  # noqa: E402
from slagwerk.envs.pettingzoo import env, raw_env  # noqa: E402
from slagwerk.errors import OptionError  # noqa: E402

# small matches keep the suite quick: Coins to 3 coins, Koetsieren with 3 players
GAMES = {info.name: info.short_options for info in game_infos() if info.observation}
"""Every registered game with an observation encoding, with short matches."""


@pytest.fixture(autouse=True)
def _quiet_pettingzoo_advice():
    # the api test's advice for dict observations ("not a NumPy array") is for other designs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_test(game):
    api_test(env(game, **GAMES[game]), num_cycles=200)


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_test_with_history(game):
    """docs/envs.md: history=True appends the deal's actions, one block each."""
    api_test(env(game, history=True, **GAMES[game]), num_cycles=100)
    match = EncodedMatch(game, seed=2, history=True, **GAMES[game])
    module = match.module
    blocks = lambda seat: match.observe(seat)[module.OBSERVATION_SIZE :].reshape(-1, module.STEP_SIZE)  # noqa: E731
    assert not blocks(0).any()
    rng = np.random.default_rng(2)
    for done in range(1, 6):
        match.step(int(rng.choice(np.flatnonzero(match.mask()))))
        for seat in range(match.n_players):  # one more block, as each seat saw it
            assert blocks(seat)[:done].any(axis=1).all() and not blocks(seat)[done:].any()
    with pytest.raises(OptionError, match="'history' must be true or false, not 'yes'"):
        EncodedMatch(game, history="yes", **GAMES[game])


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_seed_test(game):
    seed_test(lambda: env(game, **GAMES[game]), num_cycles=200)


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_render_test(game, capsys):
    render_test(lambda render_mode=None: env(game, render_mode=render_mode, **GAMES[game]))
    assert "sees:" in capsys.readouterr().out  # "human" printed the seat's picture


def test_the_environments_are_registered_for_pettingzoo_make():
    made = pettingzoo.make("aec", "slagwerk/kozel_v0")
    made.reset(seed=3)
    assert made.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    assert made.unwrapped.match.game.name == "kozel"
    coins = pettingzoo.make("aec", "slagwerk/coins_v0", target=5)
    assert coins.unwrapped.match.game.options["target"] == 5


def test_an_illegal_move_ends_the_match_with_minus_one_for_its_seat():
    wrapped = env("coins")
    wrapped.reset(seed=1)
    mover = wrapped.agent_selection
    observation, *_ = wrapped.last()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    wrapped.step(illegal)
    assert all(wrapped.terminations.values())
    assert wrapped.rewards[mover] == -1.0


def test_reward_per_deal_is_given_at_each_deal_end():
    """docs/rules.md §1.6: a Coins deal shares its 12 coins; the deal reward maps the share to [-1, 1]."""
    raw = raw_env("coins", reward="deal", target=1000)
    raw.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(48):  # one whole deal: 16 cards for each of the three seats
        mask = raw.observe(raw.agent_selection)["action_mask"]
        raw.step(int(rng.choice(np.flatnonzero(mask))))
    shares = [raw._cumulative_rewards[a] for a in raw.possible_agents]
    assert sum((r + 1) / 2 * 12 for r in shares) == pytest.approx(12)
    assert not any(raw.terminations.values())


def test_seeded_resets_deal_the_same_cards():
    a, b = raw_env("aluette"), raw_env("aluette")
    a.reset(seed=11)
    b.reset(seed=11)
    assert np.array_equal(a.match.array, b.match.array)
    b.reset(seed=12)
    assert not np.array_equal(a.match.array, b.match.array)


def test_bad_options_are_one_line_errors():
    with pytest.raises(OptionError, match="out of range"):
        env("koetsieren", players=9)
    with pytest.raises(OptionError, match="'reward' must be one of 'match', 'deal', not 'points'"):
        env("coins", reward="points")


@pytest.mark.parametrize("seed", [1.5, True, -1, 2**63, "3"])
def test_a_seed_is_an_integer_in_the_toolkits_range(seed):
    """docs/envs.md "Seeds": 0..2**63-1 as everywhere; a float was truncated and 2**64 wrapped to 0."""
    raw = raw_env("coins")
    with pytest.raises(ValueError, match="seed must be an integer 0..2"):
        raw.reset(seed=seed)
    raw.reset(seed=2**63 - 1)  # the largest seed is one


def test_max_cycles_and_actions_are_checked():
    for bad in (0, -1, "x", 2.5):
        with pytest.raises(ValueError, match="max_cycles must be a positive integer"):
            raw_env("coins", max_cycles=bad)
    raw = raw_env("coins")
    raw.reset(seed=1)
    for bad in (None, 1.7, "3"):
        with pytest.raises(ValueError, match="an action is an integer index"):
            raw.step(bad)
    legal = int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"])[0])
    raw.step(np.int64(legal))  # numpy integers are integers


def test_the_picture_after_the_match_names_the_seat_it_shows():
    """render() once nobody is selected shows seat 0's picture and says so."""
    raw = raw_env("coins", render_mode="ansi", target=1)
    raw.reset(seed=1)
    rng = np.random.default_rng(0)
    while raw.agents:
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(None)  # PettingZoo's way to remove a finished agent
            continue
        raw.step(int(rng.choice(np.flatnonzero(raw.observe(agent)["action_mask"]))))
    assert raw.agent_selection != "player_0"
    picture = raw.render()
    assert picture.startswith("player_0 sees:\n") and picture.endswith(raw.match.render(0))


@pytest.mark.parametrize("game", GAMES)
def test_the_action_index_names_every_legal_action_once(game):
    """Every legal engine action has one compact index, and the index maps back to it
    (Kozel: subsets of the hand's slots, docs/rules.md §3.17)."""
    match = EncodedMatch(game, seed=5, **GAMES[game])
    state = make_game(game, **GAMES[game]).state_from_array(match.array)
    rng = np.random.default_rng(5)
    for _ in range(120):
        if match.is_over:
            break
        state.array = match.array
        legal = sorted(state.legal_actions())
        mask = match.mask()
        indices = np.flatnonzero(mask)
        assert sorted(int(match._actions[i]) for i in indices) == legal
        for i in indices:
            assert match.module.index_of(match.array, match._actions[i]) == i
        match.step(int(rng.choice(indices)))


_differed: dict[str, int] = {}


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), steps=st.integers(0, 60), world=st.integers(0, 2**31))
def test_observations_do_not_change_when_only_hidden_cards_change(game, seed, steps, world):
    """docs/rules.md §2.2, §3.8: what a seat cannot see never reaches its observation,
    its action mask or its rendered picture."""
    match = EncodedMatch(game, seed=seed, **GAMES[game])
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if match.is_over:
            break
        match.step(int(rng.choice(np.flatnonzero(match.mask()))))
    if match.is_over:
        return
    for seat in range(match.n_players):
        before = match.observe(seat)
        picture = match.render(seat)  # what render_mode="ansi" shows this seat
        mask = match.mask().copy() if seat == match.to_move else None
        original = match.array.copy()
        match.kernels.determinize(match.array, seat, make_rng(world))
        match._legal_fresh = False
        _differed[game] = _differed.get(game, 0) + int(not np.array_equal(original, match.array))
        assert np.array_equal(match.observe(seat), before)
        assert match.render(seat) == picture
        if mask is not None:
            assert np.array_equal(match.mask(), mask)
        match.array[:] = original
        match._legal_fresh = False


@pytest.mark.parametrize("game", GAMES)
def test_the_leak_test_did_change_hidden_cards(game):
    """The property above is not vacuous: its redeals changed the state."""
    if not _differed.get(game):
        test_observations_do_not_change_when_only_hidden_cards_change(game)
    assert _differed.get(game, 0) > 0


def test_the_bench_reports_environment_steps_per_second():
    from slagwerk.experiments.bench.envs import TARGET_STEPS, env_rows

    (row,) = env_rows(["coins"], 0.2)
    assert row["benchmark"] == "pettingzoo_env_step" and row["per_second"] > 0
    assert row["over_target"] == round(row["per_second"] / TARGET_STEPS, 2)
