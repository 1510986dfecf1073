"""Frozen, versioned deal sets: the same deals for every benchmark run, checked card by card.

A deal set is a rules preset, a seed and a number of deals: its deals are the ones ``euchre eval
--seed SEED`` plays (:func:`arena.evaluate.match_seeds`), so a match on the first ``n`` deals of a set
is ``euchre eval --variant VARIANT --seed SEED --deals n``. Each set is shipped with a checksum of the
cards its deals give every seat and the kitty (``deal_sets.json`` beside this file); :func:`load`
deals them again and refuses the set if the cards differ, so results made by a changed dealer are never
put beside results made by the old one. A set's name carries its version: a new dealer, or new deals,
is a new name (``four_handed-v2``), never a changed checksum.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from euchre_env import engine
from euchre_env.rules import PRESETS, RulesConfig, make_rules

SETS_FILE = Path(__file__).with_name("deal_sets.json")


@dataclass(frozen=True)
class DealSet:
    """A named set of deals (``name`` as ``<variant>-v<k>``), ``num_deals`` of the seed's deals."""

    name: str
    variant: str
    seed: int
    num_deals: int
    sha256: str

    @property
    def rules(self) -> RulesConfig:
        """The set's rules, one hand per deal."""
        return make_rules(self.variant, episode="hand")

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "variant": self.variant, "seed": self.seed, "num_deals": self.num_deals,
                "sha256": self.sha256}  # fmt: skip


def deal_seeds(seed: int, num_deals: int) -> np.ndarray:
    """uint64 (num_deals,) table seeds of a set: the deals ``euchre eval --seed seed`` plays (its first
    ``n`` are the deals of ``--deals n``)."""
    from arena.evaluate import match_seeds

    return match_seeds(int(seed), int(num_deals), 0, 0)[0]


def checksum(variant: str, seed: int, num_deals: int) -> str:
    """sha256 (hex) of every deal's cards: each seat's hand and the kitty, in deal order."""
    state = engine.init_state(make_rules(variant, episode="hand"), seeds=deal_seeds(seed, num_deals))
    digest = hashlib.sha256()
    digest.update(np.ascontiguousarray(state.hands, dtype="<u4").tobytes())
    digest.update(np.ascontiguousarray(state.kitty, dtype="<u4").tobytes())
    digest.update(np.ascontiguousarray(state.upcard, dtype="i1").tobytes())
    digest.update(np.ascontiguousarray(state.dealer, dtype="i1").tobytes())
    return digest.hexdigest()


def shipped() -> dict[str, DealSet]:
    """Every set in ``deal_sets.json``, by name (not yet checked)."""
    raw = json.loads(SETS_FILE.read_text())
    return {entry["name"]: DealSet(**entry) for entry in raw["sets"]}


def load(name: str) -> DealSet:
    """The deal set called ``name``, its cards checked against its checksum.

    Raises:
        ValueError: an unknown name (the message lists the sets), or deals whose cards differ from the
            ones the set was frozen with (the dealer changed: results on it would not be comparable).
    """
    sets = shipped()
    if name not in sets:
        raise ValueError(f"unknown deal set {name!r}; the sets are {sorted(sets)}")
    found = sets[name]
    got = checksum(found.variant, found.seed, found.num_deals)
    if got != found.sha256:
        raise ValueError(
            f"deal set {name!r}: its deals no longer give the cards it was frozen with (sha256 {got[:12]}... "
            f"instead of {found.sha256[:12]}...): the dealer changed, so results on it are not comparable "
            "with earlier ones; freeze a new version of the set"
        )
    return found


def freeze(name: str, variant: str, seed: int, num_deals: int) -> DealSet:
    """A new set with its checksum (add it to ``deal_sets.json`` by hand: a shipped set never changes)."""
    if variant not in PRESETS:
        raise ValueError(f"variant must be one of {sorted(PRESETS)}, got {variant!r}")
    return DealSet(name, variant, int(seed), int(num_deals), checksum(variant, seed, num_deals))
