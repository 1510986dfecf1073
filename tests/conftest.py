"""Shared fixtures: a seeded rng and the rules presets."""

from __future__ import annotations

import numpy as np
import pytest

from euchre_env import engine
from euchre_env.rules import PRESETS, RulesConfig
from euchre_env.state import State

PRESET_NAMES = sorted(PRESETS)


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded generator, so every run plays the same random hands."""
    return np.random.default_rng(20260511)


@pytest.fixture(params=PRESET_NAMES)
def preset_name(request: pytest.FixtureRequest) -> str:
    """Each preset name of ``euchre_env.rules.PRESETS`` in turn."""
    return str(request.param)


@pytest.fixture
def rules(preset_name: str) -> RulesConfig:
    """The rules of each preset in turn."""
    return PRESETS[preset_name]


@pytest.fixture(params=["five_handed", "four_handed"])
def variant(request: pytest.FixtureRequest) -> str:
    """Each variant in turn."""
    return str(request.param)


def random_positions(rules: RulesConfig, rng: np.random.Generator, tables: int) -> State:
    """Every live state of ``tables`` uniformly random hands (or games), concatenated
    (``from conftest import random_positions``)."""
    s = engine.init_state(rules, tables, rng=rng)
    seen = []
    while not engine.is_done(s).all():
        seen.append(s.take(np.flatnonzero(~engine.is_done(s))))
        s = engine.step(s, engine.sample_legal(s, rules, rng), rules)
    return State.concatenate(seen)
