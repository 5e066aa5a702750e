"""The C twin of the Coins random playout (engine/coins/playout.c, docs/rules.md §1)
plays the same game as the numba engine: the same trick winner for every trick,
and the same statistics over many seeded random deals. Speed is never asserted.
"""

from __future__ import annotations

import subprocess
from importlib import resources

import numpy as np
import pytest

from paths import PACKAGE_DATA
from slagwerk.engine import dispatch, make_game
from slagwerk.engine.bits import make_rng
from slagwerk.engine.cards import COINS_DECK
from slagwerk.engine.coins import kernels as K
from slagwerk.engine.playout import POLICY_RANDOM, play_deal
from slagwerk.engine.state import TOTALS
from slagwerk.experiments.bench import suite as bench

PLAYOUTS = 200_000
"""Deals per implementation: means are then known to about 0.005 coins."""
MAX_Z = 5.0
"""Largest difference allowed between the two implementations' statistics, in
standard errors (the seeds are fixed, so the outcome is too)."""


@pytest.fixture(scope="module")
def c_twin(tmp_path_factory):
    compiler = bench.find_c_compiler()
    if compiler is None:
        pytest.skip("no C compiler (cc, gcc or clang) on PATH: the C twin cannot be built")
    binary, note = bench.compile_c_twin(tmp_path_factory.mktemp("c-twin"), compiler)
    assert binary is not None, note
    return binary


def test_the_c_twin_ships_with_the_package():
    assert resources.files(bench.C_TWIN[0]).joinpath(bench.C_TWIN[1]).is_file()
    assert "playout.c" in PACKAGE_DATA["slagwerk.engine.coins"]


def test_trick_winner_agrees_with_the_engine_on_every_trick(c_twin):
    out = subprocess.run([str(c_twin), "winners"], capture_output=True, text=True,
                         check=True).stdout.strip()
    c0, c1, c2 = np.meshgrid(*[np.arange(K.DECK_SIZE)] * 3, indexing="ij")
    distinct = (c0 != c1) & (c0 != c2) & (c1 != c2)
    expected = "".join(map(str, K.TRICK_WINNER[distinct]))  # lexicographic (c0, c1, c2)
    assert len(out) == len(expected) == 48 * 47 * 46
    if out != expected:
        i = next(i for i, (a, b) in enumerate(zip(out, expected)) if a != b)
        trick = [COINS_DECK.name(int(c[distinct][i])) for c in (c0, c1, c2)]
        pytest.fail(f"trick {trick}: the C twin says position {out[i]}, the engine {expected[i]}")


def _numba_coins(count, seed):
    """Per seat, the coins taken in each of ``count`` random deals of the engine
    (int64[count, 3]), from a new match at a target nobody reaches: seat 0
    deals and seat 1 leads, as in the twin."""
    start = make_game("coins", target=1000, first_dealer=0).new_match().array
    rng = make_rng(seed)
    deal = np.zeros(K.DEAL_SIZE, np.int64)
    actions = np.zeros(K.MAX_ACTIONS, np.int64)
    state = start.copy()
    coins = np.zeros((count, K.N_SEATS), np.int64)
    play = dispatch.specialize(play_deal, K.GAME_ID, state, POLICY_RANDOM, rng, actions)
    for i in range(count):  # the engine's own (cached) kernels, called one deal at a time
        state[:] = start
        K.random_deal(state, rng, deal)
        K.apply_deal(state, deal)
        play(K.GAME_ID, state, POLICY_RANDOM, rng, actions)
        coins[i] = state[TOTALS : TOTALS + K.N_SEATS]
    return coins


def test_playouts_agree_with_the_engine(c_twin):
    run = bench.run_c_twin(c_twin, PLAYOUTS, seed=7)
    assert run["playouts"] == PLAYOUTS
    assert sum(run["coins"]) == K.COINS_PER_DEAL * PLAYOUTS  # every deal is played out
    c_mean = np.array(run["coins"]) / PLAYOUTS
    c_var = np.array(run["squares"]) / PLAYOUTS - c_mean**2

    coins = _numba_coins(PLAYOUTS, seed=7)
    assert (coins.sum(axis=1) == K.COINS_PER_DEAL).all()
    n_mean, n_var = coins.mean(axis=0), coins.var(axis=0)

    standard_error = np.sqrt((c_var + n_var) / PLAYOUTS)
    for seat in range(K.N_SEATS):  # seat 1 leads the first trick
        z = abs(c_mean[seat] - n_mean[seat]) / standard_error[seat]
        assert z < MAX_Z, f"seat {seat}: mean coins {c_mean[seat]:.4f} (C) vs {n_mean[seat]:.4f}"
        # the spread depends on how the trick rule gathers coins: within 2%
        assert c_var[seat] == pytest.approx(n_var[seat], rel=0.02), f"seat {seat}: variance"


def test_bench_reports_numba_against_the_c_twin(c_twin, capsys):
    rows = bench.playout_rows(["coins"], 0.1, rounds=1)
    c_rows = [row for row in rows if row["implementation"] == "c"]
    assert len(c_rows) == 1 and c_rows[0]["numba_over_c"] > 0
    assert "playout.c" in c_rows[0]["note"]
    assert capsys.readouterr().err == ""


def test_bench_without_a_compiler_says_so_once_and_reports_the_rest(monkeypatch, capsys):
    monkeypatch.setattr(bench, "find_c_compiler", lambda: None)
    monkeypatch.setattr(bench, "_C_BUILD", {})
    rows = bench.playout_rows(["coins"], 0.1, rounds=1)
    assert {row["implementation"] for row in rows} == {"numba", "python"}
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "C comparison skipped: no C compiler found" in err[0]
    assert "install one" in err[0]
