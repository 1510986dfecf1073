"""The hidden-partner benchmark's evaluation sets (``euchre partner-bench``).

A *population* is who plays the hands (:data:`POPULATIONS`): the heuristic at every seat, the shipped
model (``trained``) at every seat, or each seat drawn for the hand from a mix with random players. An
evaluation set is ``hands`` hands of a population from a ``seed``, a pure function of the two; its
*positions* are the states at the first decision of each trick once the maker has declared, where the
benchmark asks every belief who the partner is. The sets of 400 hands of seed 0 are frozen: named
``partner-<population>-v1``, their positions pinned by :data:`FROZEN_SHA256`, their hands kept as hand
records (``euchre_env.records``) that replay to the same positions with no player at all.

Example::

    from euchre_env import make_rules
    from partner_lab.sets import evaluation_set, set_records

    records = set_records("mix")                       # the frozen mix set's 400 hands
    states, hand, meta = evaluation_set(make_rules("five_handed"), "mix", records=records)
    print(meta["name"], states.batch_size, "positions")   # partner-mix-v1 1905 positions
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from euchre_env.actions import Phase
from euchre_env.rules import RulesConfig, make_rules
from euchre_env.state import State
from partner_lab.dataset import draw_seats, parse_mix

POPULATIONS = {"heuristic": "heuristic", "trained": "trained", "mix": "heuristic=1,trained=1,random=1"}
"""Who plays each population's hands (``partner_lab.dataset.parse_mix`` specs)."""
SET_VERSION = "v1"
FROZEN_HANDS, FROZEN_SEED = 400, 0
"""The frozen evaluation sets ``partner-<population>-v1``: 400 hands of seed 0 per population."""
FROZEN_SHA256 = {
    "heuristic": "c47fd76b5645a019f1425400cf01e3286c03377f852ebe9893662f123bd4550e",
    "trained": "cd1c235215f0d4b25dc96a2f974246d993f48f7fb14ea347beb4d1f93f473b3b",
    "mix": "e3f3c3a9f47d3c11cf21361236f43244b26dcb449e6e88a3b9253328f4f557f5",
}
"""What each frozen set's positions hash to (:func:`set_digest`): a set that hashes otherwise is not the one
published scores are over."""


def positions(
    rules: RulesConfig, agents: dict[str, float], hands: int, seed: int
) -> tuple[State, np.ndarray]:
    """States at the first decision of each trick after the declaration; ``(states, hand index (N,))``."""
    states, hand, _ = _play_set(rules, agents, hands, seed, record=False)
    return states, hand


def _is_position(s: State) -> np.ndarray:
    """(B,) bool: a trick's first decision once the maker has declared (what the benchmark scores)."""
    return (s.phase == Phase.PLAY) & (s.n_played == 0) & (s.called >= 0)


def _play_set(rules: RulesConfig, agents: dict[str, float], hands: int, seed: int,
              record: bool) -> tuple[State, np.ndarray, list[Any] | None]:  # fmt: skip
    """:func:`positions`, and with ``record`` the hands as ``HandRecord`` s in hand order."""
    from agents import make_agent
    from arena.evaluate import play_tables
    from euchre_env.records import HandRecorder

    names = list(agents)
    rng = np.random.default_rng(seed)
    slots = draw_seats(agents, hands, rules.num_players, rng)
    seeds = np.random.SeedSequence([seed, 1]).generate_state(hands, np.uint64)
    recorder = HandRecorder(rules, [[names[k] for k in row] for row in slots]) if record else None
    taken: list[State] = []
    hand_ids: list[np.ndarray] = []

    def observe(s: State, acts: np.ndarray) -> None:
        if recorder is not None:
            recorder(s, acts)
        rows = np.flatnonzero((acts >= 0) & _is_position(s))
        if rows.size:
            taken.append(s.take(rows))
            hand_ids.append(rows)

    final = play_tables(
        rules, seeds, slots, [make_agent(n, rules) for n in names], rng, names=names, observer=observe
    )
    records = None
    if recorder is not None:
        order = {int(x): i for i, x in enumerate(seeds)}
        records = sorted(recorder.finish(final), key=lambda r: order[r.seed])
    return State.concatenate(taken), np.concatenate(hand_ids), records


def set_records(population: str, hands: int = FROZEN_HANDS, seed: int = FROZEN_SEED) -> list[Any]:
    """A population's evaluation set as hand records (``euchre_env.records``), in hand order: each hand's deal,
    every decision and who sat where. :func:`evaluation_set` rebuilds the set from them with no player at all."""
    return _play_set(make_rules("five_handed"), parse_mix(_players(population)), hands, seed, record=True)[2]


def _players(population: str) -> str:
    """Who plays ``population`` (a ``parse_mix`` spec); ``ValueError`` naming it if it is none of ours."""
    if population not in POPULATIONS:
        raise ValueError(f"population must be one of {', '.join(POPULATIONS)}, got {population!r}")
    return POPULATIONS[population]


def positions_from_records(records: Sequence[Any]) -> tuple[State, np.ndarray]:
    """:func:`positions` of recorded hands (``HandRecord`` s, one per hand in hand order), by replaying them:
    the same states in the same order (each hand's decisions were played in step with the others')."""
    from euchre_env.records import replay

    wrong = [i for i, r in enumerate(records) if not r.rules.called_card]
    if wrong or not records:
        raise ValueError("records must be hands of five-handed called-card Euchre, "
                         + (f"records[{wrong[0]}] is {records[wrong[0]].rules.variant}" if wrong else "got none"))  # fmt: skip
    played = [replay(r)[: len(r.decisions)] for r in records]  # the state before each decision
    taken = [(k, i, s) for i, states in enumerate(played) for k, s in enumerate(states) if _is_position(s)[0]]
    taken.sort(key=lambda t: t[:2])  # decision by decision, then hand by hand, as the tables were played
    return State.concatenate([s for _, _, s in taken]), np.array([i for _, i, _ in taken], dtype=np.int64)


def set_digest(states: State, hand: np.ndarray) -> str:
    """sha256 of an evaluation set's positions: every hand, trick and call (what the scores are over)."""
    h = hashlib.sha256()
    for a in (hand, states.hands, states.kitty, states.trick_cards, states.called, states.maker, states.trump,
              states.dealer, states.partner):  # fmt: skip
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def set_name(population: str, hands: int = FROZEN_HANDS, seed: int = FROZEN_SEED) -> str:
    """``partner-<population>-v1`` for the frozen set, else ``partner-<population>-seed<seed>-<hands>``."""
    frozen = (hands, seed) == (FROZEN_HANDS, FROZEN_SEED)
    return f"partner-{population}-{SET_VERSION}" if frozen else f"partner-{population}-seed{seed}-{hands}"


def evaluation_set(rules: RulesConfig, population: str, hands: int = FROZEN_HANDS, seed: int = FROZEN_SEED,
                   records: Sequence[Any] | None = None) -> tuple[State, np.ndarray, dict[str, Any]]:  # fmt: skip
    """A population's evaluation positions: ``(states, hand index (N,), the set's name, seed, hands and sha256)``.

    The hands are played by the population's players, or replayed from ``records`` (its hands as
    :func:`set_records` gives them: no player is needed). At ``FROZEN_HANDS`` hands of ``FROZEN_SEED`` it is
    the frozen set ``partner-<population>-v1``, and its positions must hash to :data:`FROZEN_SHA256` (else the
    engine, the players or the records changed, and scores on it would not be comparable with published
    ones: ``ValueError``); any other set is named by its seed and size.
    """
    players = _players(population)
    name = set_name(population, hands, seed)
    if records is None:
        states, hand = positions(rules, parse_mix(players), hands, seed)
    elif len(records) != hands:
        raise ValueError(f"the records of {name} hold {len(records)} hands, expected {hands}")
    else:
        states, hand = positions_from_records(records)
    digest = set_digest(states, hand)
    frozen = name == set_name(population)
    if frozen and digest != FROZEN_SHA256[population]:
        raise ValueError(f"the frozen set {name} hashes to {digest[:16]}..., not {FROZEN_SHA256[population][:16]}...: "
                         "the engine, its players or the records changed, and scores on it are not comparable "
                         "with published ones")  # fmt: skip
    return states, hand, {"name": name, "seed": seed, "hands": hands, "sha256": digest, "frozen": frozen}


def true_class(s: State, p: int) -> np.ndarray:
    """The answer in absolute layout: the partner's seat, or ``p`` for none. Int64 (B,)."""
    return np.where(s.partner >= 0, s.partner, p).astype(np.int64)
