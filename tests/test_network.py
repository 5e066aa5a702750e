"""The learned agent's pieces: the numba forward pass, model files, and ``net`` playing from views."""

from __future__ import annotations

import io
import json
import re
import zipfile

import numpy as np
import pytest

from slagwerk.agents import make
from slagwerk.agents.match import play_match
from slagwerk.agents.model import FORMAT_VERSION, Model, load_model, save_model
from slagwerk.engine import GAME_NAMES, make_game
from slagwerk.engine.registry import observation_module
from slagwerk.errors import SpecError
from slagwerk.search.network import best_index, forward


def _model_file(tmp_path, game, seed=1, hidden=(16, 8)):
    path = tmp_path / f"{game.name}-{seed}.npz"
    save_model(Model.initial(game, hidden=hidden, seed=seed), path)
    return path


def test_the_numba_forward_pass_equals_pytorchs():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    sizes = (37, 64, 32, 11)
    layers = [torch.nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]
    net = torch.nn.Sequential(layers[0], torch.nn.ReLU(), layers[1], torch.nn.ReLU(), layers[2])
    weights = []
    for layer in layers:  # PyTorch keeps W as (out, in); the numba pass multiplies x (in) by W (in, out)
        weights += [layer.weight.detach().numpy().T.copy(), layer.bias.detach().numpy().copy()]
    out = np.zeros(sizes[-1], dtype=np.float32)
    for _ in range(50):
        x = rng.standard_normal(sizes[0]).astype(np.float32)
        forward(x, *weights, out)
        expected = net(torch.from_numpy(x)).detach().numpy()
        assert np.abs(out - expected).max() < 1e-5


def test_the_best_index_keeps_to_legal_indices():
    values = np.array([5.0, 1.0, 3.0, 3.0], dtype=np.float32)
    mask = np.array([0, 1, 1, 1], dtype=np.int8)
    assert best_index(values, mask) == 2  # the highest legal value; the lower index on a tie


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_net_plays_a_legal_match_in_every_game(tmp_path, game_name):
    game = make_game(game_name)
    agent = make(f"net:model={_model_file(tmp_path, game)}", game, seed=3)
    state = play_match(game, [agent] * game.n_players, seed=5, max_deals=1)
    assert state.deals  # the engine checked every action for legality on the way


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_nets_decision_reads_nothing_its_seat_cannot_see(tmp_path, game_name):
    """Two agents that fill the hidden cards differently (their seeds), and states that
    differ only in cards hidden from the seat, give the same observation and decision."""
    game = make_game(game_name)
    path = _model_file(tmp_path, game, seed=2)
    agents = [make(f"net:model={path}", game, seed=seed) for seed in (1, 2, 3)]
    module = observation_module(game_name)
    views = []

    def collect(state, seat, text):
        if state.to_move >= 0 and len(views) < 30:
            views.append(state.view(state.to_move))

    play_match(game, [make("random", game, seed=s) for s in range(game.n_players)], seed=11,
               max_deals=1, on_action=collect)
    for view in views:
        seat = view["seat"]
        worlds = [game.state_from_view(view, seed=s) for s in (5, 6, 7)]
        seen = [np.zeros(module.OBSERVATION_SIZE, np.float32) for _ in worlds]
        for world, out in zip(worlds, seen):
            module.observe(world.array, seat, out)
        assert all(np.array_equal(seen[0], other) for other in seen[1:])
        assert len({agent.decide(view).action for agent in agents}) == 1


def _rewrite(path, change):
    """The model file at ``path`` with its arrays changed by ``change(arrays)``."""
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    change(arrays)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())


def _meta(**changes):
    def change(arrays):
        meta = json.loads(arrays["meta"].tobytes())
        meta.update(changes)
        arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    return change


BAD_FILES = [
    ("missing", None, "cannot read: No such file"),
    ("garbage", lambda p: p.write_bytes(b"not a zip at all"), "not a model file"),
    ("other zip", lambda p: zipfile.ZipFile(p, "w").close(), "not a model file"),
    ("no weights", lambda p: _rewrite(p, lambda a: a.pop("w2")), "not a model file (no 'w2' in it)"),
    ("meta not json", lambda p: _rewrite(p, lambda a: a.update(meta=np.zeros(3, np.uint8))),
     "its meta is not a slagwerk-model description"),
    ("format version", lambda p: _rewrite(p, _meta(format_version=FORMAT_VERSION + 1)),
     f"format version {FORMAT_VERSION + 1}, but this slagwerk"),
    ("other game", lambda p: _rewrite(p, _meta(game="kozel")), "is a model of 'kozel', not of coins"),
    ("encoding", lambda p: _rewrite(p, _meta(encoding={"version": 0})), "reads the encoding"),
    ("options", lambda p: _rewrite(p, _meta(options={"target": 50})),
     "was trained for coins with target=50, not target=10"),
    ("shapes", lambda p: _rewrite(p, lambda a: a.update(b1=np.zeros(3, np.float32))),
     "its weights do not make a network"),
    ("not finite", lambda p: _rewrite(p, lambda a: a["w3"].__setitem__((0, 0), np.nan)),
     "its weights do not make a network"),
]


@pytest.mark.parametrize("what, spoil, message", BAD_FILES, ids=[case[0] for case in BAD_FILES])
def test_a_bad_model_file_is_one_line_naming_the_file(tmp_path, what, spoil, message):
    game = make_game("coins")
    path = _model_file(tmp_path, game)
    if spoil is None:
        path.unlink()
    else:
        spoil(path)
    with pytest.raises(SpecError, match=re.escape(message)) as err:
        load_model(path, game)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_a_request_never_names_a_model_file(tmp_path):
    from slagwerk.agents.protocol import handle

    game = make_game("coins")
    state = game.new_match(seed=1)
    answer = handle({"id": 1, "type": "act", "game": "coins", "view": state.view(state.to_move),
                     "agent": f"net:model={_model_file(tmp_path, game)}"})
    assert "a request never names a file" in answer["error"]


def test_the_bench_reports_the_cost_of_a_net_decision_as_ratios():
    from slagwerk.experiments.bench.search import net_rows

    rows = net_rows(["coins"], seconds=0.05, rounds=1)
    assert [row["benchmark"] for row in rows] == ["net_decision_kernels", "net_decision_agent"]
    for row in rows:
        assert row["per_second"] > 0 and row["ratio_to_random_playout"] > 0
        assert row["decisions_per_ismcts_1000"] > 0


def test_every_shipped_model_loads_and_plays_as_net():
    """A model in agents/models/ is what ``net`` (model=shipped) plays for its game."""
    from slagwerk.agents.net import MODELS_FOLDER, NetAgent

    shipped = sorted(MODELS_FOLDER.glob("*.npz"))
    for path in shipped:
        game = make_game(path.stem)
        assert load_model(path, game).meta["game"] == path.stem
        assert NetAgent.unavailable(path.stem) is None
        agent = make("net", game, seed=1)
        assert play_match(game, [agent] * game.n_players, seed=3, max_deals=1).deals
    for name in GAME_NAMES:
        assert (NetAgent.unavailable(name) is None) == any(p.stem == name for p in shipped)
