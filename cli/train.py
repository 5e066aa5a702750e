"""``slagwerk train``: train the ``net`` agent's network for one game by self-play."""

from __future__ import annotations

import json
import shutil
import sys
import time

from .options import (
    add_game_options,
    add_results_options,
    add_run_options,
    game_from_args,
    game_options_given,
    nonempty,
    refuse_changes,
    refuse_resume_conflicts,
    say_how_to_continue,
)


def add_parser(subparsers) -> None:
    from ..experiments.harness.defaults import RESULTS_ROOT
    from ..experiments.training.config import TrainConfig

    parser = subparsers.add_parser(
        "train", help="train a network for the net agent by self-play (needs slagwerk[train])",
        description="Train the net agent's network for one game by self-play (Deep Monte-Carlo: "
        "the network values every action; actors play deals with it, exploring now and then; "
        "each decision's value learns the return its seat got). Every round is checkpointed in "
        "the results folder (--resume continues a stopped run); model.npz there is the network "
        "so far, which net:model=FILE plays. When the training ends, its snapshots play a tournament "
        "against fixed opponents: the learning curve (curve.csv, curve.png). Needs PyTorch: "
        "pip install 'slagwerk[train]'.",
        epilog="example: slagwerk train coins --minutes 60 --seed 1 --jobs 2 --out coins.npz",
    )
    TrainConfig.add_flags(parser)
    parser.add_argument("--out", type=nonempty, metavar="FILE",
                        help="also write the finished model to FILE (net:model=FILE plays it)")
    add_results_options(parser, "training run", RESULTS_ROOT / "train-<game>-<time>")
    parser.add_argument("--json", action="store_true", help="print the rounds' lines as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    add_run_options(parser)
    add_game_options(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    from ..experiments.training.config import TrainConfig
    from ..experiments.training.folder import TrainingFolder
    from ..experiments.training.learner import require_torch
    from ..experiments.training.run import check_inputs, default_folder, run_training

    require_torch()  # said before anything else happens
    quiet = args.quiet or args.json
    common = dict(jobs=args.jobs, backend=args.backend, scheduler=args.scheduler,
                  on_round=None if quiet else _say_round, on_curve=None if quiet else _say_curve)
    folder = None
    try:
        if args.resume:
            stored = TrainingFolder.open(args.resume)
            config = TrainConfig.load(stored.config(), stored.config_path)
            refuse_resume_conflicts(args)
            refuse_changes(args, config)
            folder = args.resume
            result = run_training(None, folder, resume=True, **common)
        else:
            config = TrainConfig.from_flags(args)  # names what is missing (GAME) before it is used
            game = game_from_args(config.game, args)
            config = TrainConfig.from_flags(args, options=game.options if game_options_given(args) else {})
            check_inputs(config)
            folder = args.results or default_folder(config)
            rounds, seconds = config.stops_after()
            print(f"training a network for {config.game} by self-play into {folder} "
                  f"({f'{rounds} rounds' if rounds else f'{seconds / 60:g} minutes'}; Ctrl-C stops "
                  f"after saving every finished round)", file=sys.stderr, flush=True)
            result = run_training(config, folder, force=args.force, **common)
    except KeyboardInterrupt as stop:
        if folder is not None:
            say_how_to_continue(stop, "train", folder, saved="round")
        raise
    if args.out:
        shutil.copyfile(result.model_path, args.out)
    if args.json:
        print(json.dumps(result.rounds))
    else:
        model = args.out or result.model_path
        use = (f"guide a search with it: ismcts:guide=net,model={model},leaf=value,prior=0"
               if result.config.world else f"play it with net:model={model}")
        print(f"model: {result.model_path}{f' (and {args.out})' if args.out else ''}; {use}", file=sys.stderr)
        if result.curve:
            print(_curve_text(result), file=sys.stderr)
    return 0


_SAID = {"at": -1e9}
SAY_EVERY_S = 10.0
"""Seconds between two progress lines (each round's is in training.jsonl)."""


def _say_round(line: dict) -> None:
    now = time.monotonic()
    if now - _SAID["at"] < SAY_EVERY_S:
        return
    _SAID["at"] = now
    mean = (f"mean return {line['mean_return']:+.3f}" if "mean_return" in line
            else f"mean target {line['mean_target']:+.3f}")
    print(f"round {line['round'] + 1}: {line['deals']} deals, {line['samples']} decisions, loss "
          f"{line['loss']:.4f}, {mean}, "
          f"{line['total_seconds'] / 60:.1f} min in all", file=sys.stderr, flush=True)


def _say_curve(config) -> None:
    print(f"learning curve: rating up to {config.curve_points} snapshots against "
          f"{', '.join(config.curve_opponents)} on {config.curve_groups} duplicate groups (seed "
          f"{config.seed})", file=sys.stderr, flush=True)


def _curve_text(result) -> str:
    from ..experiments.training.curve import CURVE_CSV, CURVE_PNG

    lines = [f"learning curve ({result.folder / CURVE_CSV}, {result.folder / CURVE_PNG}):"]
    for row in result.curve:
        when = f"after {row['deals']} deals" if row["rounds"] is not None else "(opponent)"
        lines.append(f"  {row['entry']:<24} {row['rating']:7.1f} [{row['ci_low']:.1f}, {row['ci_high']:.1f}] "
                     f"{when}")
    return "\n".join(lines)
