"""Model files: a trained network's weights and what it was trained for.

A model file is a NumPy ``.npz`` archive (read with ``allow_pickle=False``: it
holds arrays only) with the weights of :mod:`slagwerk.search.network`'s
network (``w1 b1 w2 b2 w3 b3``, float32) and ``meta``, a UTF-8 JSON object:
its format and version, the game and options it was trained for, the
encoding it reads (version, observation size, action count), slagwerk's
version and how it was trained. :func:`load_model` refuses, in one line
naming the file, a file that is missing or not such an archive, weights of
the wrong shapes, or a model of another format version, encoding, game or
options; playing with a model needs numpy and numba only.

>>> import tempfile, pathlib
>>> from slagwerk.engine import make_game
>>> model = Model.initial(make_game("coins"), hidden=(8, 8), seed=1)
>>> path = pathlib.Path(tempfile.mkdtemp()) / "coins.npz"
>>> save_model(model, path)
>>> load_model(path, make_game("coins")).meta["game"]
'coins'
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from .. import __version__
from ..engine.encoding import version_of
from ..engine.history import replayable
from ..engine.registry import observation_module as encoding_module
from ..errors import SpecError
from ..safe_files import replace_file

FORMAT = "slagwerk-model"
FORMAT_VERSION = 1
WEIGHTS = ("w1", "b1", "w2", "b2", "w3", "b3")
MAX_MODEL_BYTES = 64 << 20
"""The largest model file read (a shipped model is a few MB at most)."""


@dataclass(frozen=True)
class Model:
    """A network's weights (float32, C-contiguous) and its ``meta`` (see the module doc)."""

    weights: tuple[np.ndarray, ...]
    meta: dict = field(compare=False)

    @classmethod
    def initial(cls, game, hidden=(256, 256), seed: int = 0, method: str = "dmc",
                history: bool = False, seat_values: bool = False, world: bool = False) -> Model:
        """A new network for ``game`` with small random weights (what training starts from);
        with ``history``, it reads the deal's history too (:mod:`slagwerk.engine.history`); with
        ``seat_values``, it also values the deal for every seat (:attr:`seat_values`)."""
        module = encoding_module(game.name)
        values = game.n_players if seat_values else 0
        sizes = (encoding_facts(module, game, history, world)["observation_size"], *hidden,
                 module.NUM_ACTIONS + values)
        rng = np.random.default_rng(seed)
        weights = []
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
            bound = 1.0 / np.sqrt(fan_in)  # PyTorch's default initialisation of a linear layer
            weights.append(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32))
            weights.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
        return cls(tuple(weights), model_meta(game, module, method, history=history, seat_values=values,
                                              world=world))

    @property
    def input_size(self) -> int:
        return int(self.weights[0].shape[0])

    @property
    def reads_world(self) -> bool:
        """Whether the network reads every seat's observation (a whole deal): only a search's leaves,
        determinized worlds, may be valued by it."""
        return self.meta["encoding"].get("world") is True

    @property
    def seat_values(self) -> int:
        """How many outputs after the action values value the deal for each seat (0, or the
        number of seats: relative seats, the observing seat first), in [-1, 1] as the actions'."""
        return int(self.meta.get("seat_values", 0))

    @property
    def num_actions(self) -> int:
        return int(self.weights[-1].shape[0]) - self.seat_values

    @property
    def reads_history(self) -> bool:
        """Whether the network's input is the observation followed by the deal's history."""
        return self.meta["encoding"].get("history") is True


def model_meta(game, module, method: str, history: bool = False, seat_values: int = 0, world: bool = False,
               **trained) -> dict:
    """The ``meta`` of a model of ``game`` that reads the encoding ``module`` (with ``history``,
    followed by the deal's history) and gives ``seat_values`` values of the deal after its action
    values (0 or the number of seats; omitted when 0, as in older files)."""
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "game": game.name,
            "options": dict(game.options), "encoding": encoding_facts(module, game, history, world),
            "slagwerk": __version__, "method": method, "trained": trained}
    if seat_values:
        meta["seat_values"] = int(seat_values)
    return meta


def encoding_facts(module, game, history: bool = False, world: bool = False) -> dict:
    """What a model's input and output are: the encoding's version and sizes; with ``history``
    the input also holds the history blocks of ``game`` (with its options), and its size counts
    them; with ``world`` it is every seat's observation (``world`` is recorded only then)."""
    size = int(module.OBSERVATION_SIZE)
    if history:
        size += int(module.max_deal_steps(game.options_array)) * int(module.STEP_SIZE)
    facts = {"version": version_of(module), "observation_size": size * (game.n_players if world else 1),
             "num_actions": int(module.NUM_ACTIONS), "history": bool(history)}
    if world:
        facts["world"] = True
    return facts


def save_model(model: Model, path) -> None:
    """Write ``model`` to ``path`` atomically (a finished file or none)."""
    buffer = io.BytesIO()
    meta = np.frombuffer(json.dumps(model.meta, sort_keys=True).encode(), dtype=np.uint8)
    np.savez(buffer, meta=meta, **dict(zip(WEIGHTS, model.weights)))
    path = Path(path)
    replace_file(path.parent, path.name, buffer.getvalue())


def load_model(path, game) -> Model:
    """The model in file ``path``, checked to be one ``game`` (with its options) can play with.

    :raises SpecError: one line naming the file and what is wrong with it.
    """
    path = Path(path)
    try:
        stat = path.stat()
    except OSError as err:
        raise SpecError(f"model file {str(path)!r}: cannot read: {err.strerror or err}") from None
    model = _read(str(path), stat.st_mtime_ns, stat.st_size)
    _check_fits(model, game, path)
    return model


@lru_cache(maxsize=8)
def _read(path: str, mtime_ns: int, size: int) -> Model:
    """The model of a file, read once a process while the file stays the same."""
    where = f"model file {path!r}"
    if size > MAX_MODEL_BYTES:
        raise SpecError(f"{where}: larger than {MAX_MODEL_BYTES} bytes, the most read")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as err:
        raise SpecError(f"{where}: not a model file ({type(err).__name__}: {str(err)[:120]})") from None
    missing = [name for name in ("meta", *WEIGHTS) if name not in arrays]
    if missing:
        raise SpecError(f"{where}: not a model file (no {missing[0]!r} in it)")
    try:
        meta = json.loads(arrays["meta"].tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        meta = None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise SpecError(f"{where}: not a model file (its meta is not a {FORMAT} description)")
    if meta.get("format_version") != FORMAT_VERSION:
        raise SpecError(f"{where}: format version {meta.get('format_version')!r}, but this slagwerk "
                        f"({__version__}) reads version {FORMAT_VERSION}: train it again")
    weights = tuple(np.ascontiguousarray(arrays[name], dtype=np.float32) for name in WEIGHTS)
    if not _makes_network(weights):
        shapes = [w.shape for w in weights]
        raise SpecError(f"{where}: its weights do not make a network (shapes {shapes}, or not finite)")
    return Model(weights, meta)


def _makes_network(weights) -> bool:
    """Finite ``(W, b)`` pairs whose sizes chain: ``W`` (in, out), ``b`` (out), the next ``W`` (out, ...)."""
    size = None
    for w, b in zip(weights[::2], weights[1::2]):
        if w.ndim != 2 or b.ndim != 1 or b.shape[0] != w.shape[1] or size not in (None, w.shape[0]):
            return False
        size = w.shape[1]
    return all(np.isfinite(x).all() for x in weights)


def _check_fits(model: Model, game, path: Path) -> None:
    where = f"model file {str(path)!r}"
    meta = model.meta
    if meta.get("game") != game.name:
        raise SpecError(f"{where} is a model of {meta.get('game')!r}, not of {game.name}")
    trained = meta.get("options")
    if not isinstance(trained, dict):
        raise SpecError(f"{where} records its options as {trained!r}, not as an object: train it again")
    # An option added since keeps its default in older models (Coins' small variants, §1.10).
    trained = {**{key: spec.default for key, spec in game.option_specs.items()}, **trained}
    differ = sorted(key for key in set(trained) | set(game.options)
                    if trained.get(key) != game.options.get(key))
    if differ:
        raise SpecError(f"{where} was trained for {game.name} with "
                        f"{_options({key: trained.get(key) for key in differ})}, "
                        f"not {_options({key: game.options.get(key) for key in differ})}")
    if meta.get("seat_values", 0) not in (0, game.n_players):
        raise SpecError(f"{where} values the deal for {meta.get('seat_values')!r} seats, not for "
                        f"{game.name}'s {game.n_players}: train it again")
    encoding = meta.get("encoding")
    history = isinstance(encoding, dict) and encoding.get("history") is True
    world = isinstance(encoding, dict) and encoding.get("world") is True
    if history and not replayable(game.name):
        raise SpecError(f"{where} reads the deal's history, which {game.name} agents cannot rebuild "
                        f"from their views: train it again without --history")
    wanted = encoding_facts(encoding_module(game.name), game, history, world)
    if meta.get("encoding") != wanted or model.input_size != wanted["observation_size"] \
            or model.num_actions != wanted["num_actions"]:
        raise SpecError(f"{where} reads the encoding {meta.get('encoding')}, but this slagwerk's "
                        f"{game.name} encoding is {wanted}: train it again")


def _options(options) -> str:
    if not isinstance(options, dict):
        return repr(options)
    return ", ".join(f"{key}={value}" for key, value in sorted(options.items())) or "no options"
