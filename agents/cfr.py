"""The agent ``cfr``: a solved policy of a small variant, read from a file.

``slagwerk experiment exploitability`` solves a small variant's deal with CFR and writes the
average policy as ``cfr-policy.npz``; ``cfr:policy=FILE`` plays it in tournaments on that
variant, so that a policy's Elo and its exploitability can be read side by side. The file
maps each information state, named by the seat's view (:func:`view_key`), to its actions'
probabilities; the agent draws its action from them with its seeded generator. It knows the
first deal of the variant it was solved for (a tournament's deals: ``--unit deal``, the
default); a view outside it is a one-line error.

A policy file is a NumPy ``.npz`` archive (read with ``allow_pickle=False``) of ``keys``
(one per information state), ``first`` and ``count`` (each state's slice of ``actions``, in
notation, and ``probabilities``) and ``meta``, a UTF-8 JSON object (format, version, game,
options, how it was solved).
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np

from .. import __version__
from ..engine.bits import rand_below
from ..errors import InvalidViewError, SpecError
from ..safe_files import replace_file
from .base import Agent, Decision, ParamSpec

FORMAT = "slagwerk-cfr-policy"
FORMAT_VERSION = 1
MAX_POLICY_BYTES = 1 << 30
ARRAYS = ("keys", "first", "count", "actions", "probabilities", "meta")
DRAW_STEPS = 1 << 30
KEY_FIELDS_LEFT_OUT = ("legal_actions",)
"""View fields the key leaves out: what the rest of the view implies."""


def view_key(view: dict) -> str:
    """The text naming ``view``'s information state in a policy file: the view as canonical
    JSON (its legal actions left out)."""
    kept = {key: value for key, value in view.items() if key not in KEY_FIELDS_LEFT_OUT}
    return json.dumps(kept, sort_keys=True, separators=(",", ":"))


def save_policy(path, keys, actions: list[list[str]], probabilities: np.ndarray, meta: dict) -> None:
    """Write a policy file (see the module doc); ``actions[i]`` are state ``i``'s actions in
    notation, ``probabilities`` theirs, flat in the same order."""
    count = np.array([len(a) for a in actions], dtype=np.int64)
    arrays = {
        "keys": np.array(list(keys), dtype=str), "count": count,
        "first": np.concatenate(([0], np.cumsum(count)[:-1])).astype(np.int64),
        "actions": np.array([a for state in actions for a in state], dtype=str),
        "probabilities": np.asarray(probabilities, dtype=np.float64),
        "meta": np.frombuffer(json.dumps({"format": FORMAT, "format_version": FORMAT_VERSION,
                                          "slagwerk": __version__, **meta}).encode(), dtype=np.uint8),
    }
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    path = Path(path)
    replace_file(path.parent, path.name, buffer.getvalue())


class Policy:
    """A policy file's decisions by :func:`view_key`."""

    def __init__(self, path, game):
        self.path = str(path)
        arrays = _read_arrays(self.path)
        meta = self.meta = _meta(self.path, arrays)
        if meta.get("format") != FORMAT or meta.get("format_version") != FORMAT_VERSION:
            raise SpecError(f"cfr policy {self.path!r}: not a {FORMAT} file of version {FORMAT_VERSION}")
        if meta.get("game") != game.name or meta.get("options") != game.options:
            raise SpecError(f"cfr policy {self.path!r} was solved for {meta.get('game')} with options "
                            f"{meta.get('options')}, not {game.name} with {game.options}")
        keys, first, count = arrays["keys"], arrays["first"], arrays["count"]
        actions, probabilities = arrays["actions"], arrays["probabilities"]
        if not (keys.shape == first.shape == count.shape and actions.shape == probabilities.shape
                and count.sum() == actions.size and np.all(first + count <= actions.size)):
            raise SpecError(f"cfr policy {self.path!r}: its arrays do not fit together")
        self.choices = {str(key): (actions[f:f + c].tolist(), probabilities[f:f + c])
                        for key, f, c in zip(keys.tolist(), first.tolist(), count.tolist())}

    def choices_for(self, view: dict) -> tuple[list[str], np.ndarray]:
        found = self.choices.get(view_key(view))
        if found is None:
            raise InvalidViewError(
                f"cfr policy {self.path!r} has no decision for this view: it holds the first deal of "
                f"{self.meta.get('game')} with options {self.meta.get('options')} (play it with --unit deal)")
        return found


def _read_arrays(path: str) -> dict[str, np.ndarray]:
    file = Path(path)
    if not file.is_file():
        raise SpecError(f"cfr policy {path!r}: no such file")
    if file.stat().st_size > MAX_POLICY_BYTES:
        raise SpecError(f"cfr policy {path!r}: larger than {MAX_POLICY_BYTES >> 20} MB")
    try:
        with np.load(path, allow_pickle=False) as data:
            return {name: data[name] for name in ARRAYS}
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as err:
        raise SpecError(f"cfr policy {path!r}: not a policy file ({str(err).splitlines()[0]})") from None


def _meta(path: str, arrays) -> dict:
    try:
        meta = json.loads(arrays["meta"].tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        meta = None
    if not isinstance(meta, dict):
        raise SpecError(f"cfr policy {path!r}: its meta is not a JSON object")
    return meta


class CFRAgent(Agent):
    """Draws its action from a policy file's probabilities for the view (see the module doc)."""

    name = "cfr"
    description = "a small variant's CFR policy, from a file of slagwerk experiment exploitability"
    params = {
        "policy": ParamSpec(str, "", "the policy file (cfr-policy.npz of an exploitability run; "
                            "command lines only)", names_file=True),
    }

    @classmethod
    def unavailable(cls, game_name: str) -> str | None:
        return "cfr plays a policy file: give cfr:policy=FILE"

    def __init__(self, game, seed: int = 0, **params):
        super().__init__(game, seed, **params)
        if not self.config["policy"]:
            raise SpecError("cfr needs policy=FILE (slagwerk experiment exploitability writes "
                            "cfr-policy.npz)")
        self.policy = Policy(self.config["policy"], game)

    def decide(self, view: dict) -> Decision:
        actions, probabilities = self.policy.choices_for(view)
        legal = view.get("legal_actions")
        if legal is not None and sorted(legal) != sorted(actions):
            raise InvalidViewError(f"cfr policy {self.policy.path!r} knows other actions for this view")
        # 30 random bits: a policy's probabilities are drawn to one part in a billion
        draw = int(rand_below(self.decision_rng(view), DRAW_STEPS)) / DRAW_STEPS * float(probabilities.sum())
        index = min(int(np.searchsorted(np.cumsum(probabilities), draw, side="right")), len(actions) - 1)
        return Decision(actions[index], {"probability": float(probabilities[index])})
