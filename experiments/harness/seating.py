"""Who sits where: tables of agents and their duplicate rotations.

A *table* names the agent in every seat (agent numbers, index = seat). A
*duplicate group* plays one deal (or one match's deal sequence) at a table
once in each of the table's distinct rotations, so every agent holds every
seat's cards and sits in every seat position against the same opponents;
luck cancels out of the group's result.

- Individual games: with at least as many agents as seats, a table is a
  set of distinct agents in one cyclic order, and every cyclic order of
  every set is a table (so each agent sits directly before and after each
  other agent). With fewer agents than seats, tables fill the seats with
  copies: every seating that uses each agent at least once, up to rotation.
- Team games (Kozel, Aluette): an entry plays as a partnership, of two
  copies of one agent or of two agents named ``A+B`` (see
  ``runner.seat_spec``); a table is a pair of entries, and its rotations
  swap the teams.

The tournament cycles through the tables, one per group: with at least as
many groups as tables, the schedule is balanced.

>>> tables_for(2, 3, team_game=False)
[(0, 0, 1), (0, 1, 1)]
>>> rotations((0, 0, 1))
[(0, 0, 1), (0, 1, 0), (1, 0, 0)]
>>> rotations((0, 1, 0, 1))
[(0, 1, 0, 1), (1, 0, 1, 0)]
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, permutations, product

from ...errors import SpecError

MAX_TABLES = 5000
"""Refuse schedules with more distinct tables than this (too many to cycle through)."""


def rotations(table: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The distinct rotations of ``table``, starting with the table itself.

    Rotation ``r`` seats ``table[(s + r) % n]`` in seat ``s``; rotations that
    repeat an earlier seating (``(0, 1, 0, 1)`` turned by two) are left out.
    """
    n = len(table)
    seen: list[tuple[int, ...]] = []
    for r in range(n):
        turned = tuple(table[(s + r) % n] for s in range(n))
        if turned not in seen:
            seen.append(turned)
    return seen


def _is_canonical(seq: tuple[int, ...]) -> bool:
    """True when ``seq`` is the smallest of its rotations (one per necklace)."""
    return all(seq <= seq[r:] + seq[:r] for r in range(1, len(seq)))


def tables_for(n_agents: int, n_seats: int, team_game: bool, team_of=None) -> list[tuple[int, ...]]:
    """Every table of a balanced schedule for ``n_agents`` agents at ``n_seats`` seats.

    ``team_of(seat)`` gives a seat's team in a team game (default: ``seat % 2``).

    :raises SpecError: for fewer than two agents or an unmanageably large schedule.
    """
    if n_agents < 2:
        raise SpecError(f"a tournament needs at least two agents, not {n_agents}")
    if team_game:
        team_of = team_of or (lambda seat: seat % 2)
        return [
            tuple(a if team_of(s) == 0 else b for s in range(n_seats))
            for a, b in combinations(range(n_agents), 2)
        ]
    if n_agents >= n_seats:
        count = _count_distinct_tables(n_agents, n_seats)
        _check_size(count, n_agents, n_seats)
        return [
            (first, *order)
            for chosen in combinations(range(n_agents), n_seats)
            for first, rest in [(chosen[0], chosen[1:])]
            for order in permutations(rest)
        ]
    _check_size(n_agents**n_seats // n_seats, n_agents, n_seats)
    return [
        seq
        for seq in product(range(n_agents), repeat=n_seats)
        if len(set(seq)) == n_agents and _is_canonical(seq)
    ]


def _count_distinct_tables(n_agents: int, n_seats: int) -> int:
    from math import comb, factorial

    return comb(n_agents, n_seats) * factorial(n_seats - 1)


def _check_size(count: int, n_agents: int, n_seats: int) -> None:
    if count > MAX_TABLES:
        raise SpecError(
            f"{n_agents} agents at {n_seats} seats make about {count} different tables "
            f"(more than {MAX_TABLES}); use fewer agents"
        )


@dataclass(frozen=True)
class GameSlot:
    """One game of a schedule: its index, duplicate group, rotation and seating."""

    index: int
    group: int
    rotation: int
    seats: tuple[int, ...]


def schedule(tables: list[tuple[int, ...]], groups: int, first_group: int = 0) -> list[GameSlot]:
    """The games of ``groups`` duplicate groups: group ``g`` uses ``tables[g % len(tables)]``
    in all its rotations. Game indices count from the first game of group 0, so
    the same tables and group number always give the same index."""
    slots: list[GameSlot] = []
    index = sum(len(rotations(tables[g % len(tables)])) for g in range(first_group))
    for g in range(first_group, first_group + groups):
        for r, seats in enumerate(rotations(tables[g % len(tables)])):
            slots.append(GameSlot(index, g, r, seats))
            index += 1
    return slots
