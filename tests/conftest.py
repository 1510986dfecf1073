"""Shared fixtures: a seeded rng and the rules presets."""

from __future__ import annotations

import os
from collections.abc import Iterator

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


@pytest.fixture(autouse=True, scope="session")
def cpu_without_bf16() -> Iterator[None]:
    """``--precision auto`` resolves as on a CPU without bfloat16 units, on every machine (subprocesses
    included), so no test's behaviour depends on the CPU it runs on; the bf16 path is run on purpose, with
    the ``precision`` fixture, and the probe itself is tested with it mocked both ways. An explicit
    ``EUCHRE_CPU_BF16=1 pytest`` runs the whole suite as a CPU with bfloat16 units would."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("EUCHRE_CPU_BF16", os.environ.get("EUCHRE_CPU_BF16") or "0")
        yield


@pytest.fixture(autouse=True, scope="session")
def sb3_logs_in_pytest_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """stable-baselines3's ``learn()`` makes a folder in the system's temporary directory on every call
    that brings no logger of its own (``SB3-<date>``, empty when not verbose); the tests' go under
    pytest's temporary folder instead (notebook kernels, which inherit the environment, included)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3_logs")))
        yield


@pytest.fixture(params=["fp32", "bf16"])
def precision(request: pytest.FixtureRequest) -> str:
    """Each precision of the network's update passes in turn (torch runs bfloat16 on any CPU, only slower)."""
    return str(request.param)


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
