"""Seeded random fuzzing of the public entry points (plain loops, no hypothesis).

Every call gets hostile input: wrong types, nested garbage, huge and negative
numbers, NaN, strings, missing and extra keys, malformed saved states, bad
action ids, rows and seeds. Each call must either work or raise a documented
error (``ValueError``, or ``TypeError`` where the API says so): never another
exception type, never a hang. After a failed call the object is unchanged: it
equals (and goes on exactly as) a twin that never saw the call.
"""

from __future__ import annotations

import copy
import json
import math
import signal
from collections.abc import Callable, Iterator
from dataclasses import fields
from typing import Any

import numpy as np
import pytest

from agents import make_agent
from euchre_env import actions, cards
from euchre_env import engine as E
from euchre_env.envs.aec_env import raw_env
from euchre_env.envs.gym_env import EuchreEnv
from euchre_env.envs.vector_env import EuchreVectorEnv
from euchre_env.rules import PRESETS, make_rules
from euchre_env.state import State
from euchre_env.validation import find_problem, validate_state

CLEAN = (ValueError, TypeError)  # the documented error types


@pytest.fixture(autouse=True)
def watchdog() -> Iterator[None]:
    """Fail (rather than hang) if one fuzz test runs for minutes."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def hang(signum: int, frame: Any) -> None:
        raise AssertionError("a fuzz test hung")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(120)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _deep(n: int) -> list:
    out: list = []
    for _ in range(n):
        out = [out]
    return out


JUNK: list[Any] = [
    None, True, False, 0, -1, 1, 5, 27, 84, 92, 93, 127, 128, 255, -129, 2**31, 2**63, 2**64, -(2**70), 10**40,
    0.0, 1.5, -2.5, 1e300, float("nan"), float("inf"), float("-inf"), 1 + 2j,
    "", " ", "0", "12", "-3", "abc", "AS", "10H", "play AS", "pass", "NaN", "♠", "\x00", "é" * 50, b"AS",
    [], [1], [1, 2, 3], [[1, 2], [3]], ["a", 1], [None], [float("nan")], (1, 2), {1, 2}, {}, {"a": 1},
    {"deal": None}, _deep(60), list(range(300)),
    np.int64(3), np.int8(-1), np.uint64(2**63), np.float32(2.0), np.bool_(True), np.array(4),
    np.array([1, 2]), np.array([[0]]), np.array(["x"]), np.array([1.5]), np.array([], dtype=np.int64),
    np.array([None], dtype=object), object(), len, Ellipsis, slice(1, 2),
]  # fmt: skip


def junk(rng: np.random.Generator) -> Any:
    """A hostile value: from JUNK, a random integer of any size, or a random string."""
    k = rng.integers(10)
    if k < 6:  # a copy: a caller may change it (JUNK must stay as it is)
        return copy.deepcopy(JUNK[int(rng.integers(len(JUNK)))])
    if k < 8:
        return int(rng.integers(-(2**62), 2**62)) >> int(rng.integers(0, 62))
    return random_text(rng)


ALPHABET = "AKQJT1098765432CDHS cdhs♣♦♥♠ playdiscardcallnamepassorderupalonewithpartnerdefend\t\n-_.,:é🂡"


def random_text(rng: np.random.Generator) -> str:
    return "".join(ALPHABET[i] for i in rng.integers(len(ALPHABET), size=int(rng.integers(0, 14))))


def outcome(
    call: Callable[..., Any], *args: Any, allowed: tuple[type[BaseException], ...] = CLEAN, **kwargs: Any
) -> tuple[bool, Any]:
    """(True, result) if ``call(*args, **kwargs)`` works, (False, error) if it raises an ``allowed``
    error (with a message); any other exception propagates and fails the test."""
    try:
        return True, call(*args, **kwargs)
    except allowed as err:
        assert str(err), f"{type(err).__name__} without a message"
        return False, err


# --- saved states ------------------------------------------------------------------------


def _saved_states() -> list[tuple[str, dict]]:
    """Small valid states of both games, mid-hand, as ``to_dict`` dicts."""
    out = []
    for name in ("four_handed", "five_handed"):
        rules = make_rules(name, episode="game", points_to_win=3)
        rng = np.random.default_rng(3)
        s = E.init_state(rules, 2, rng=rng)
        for _ in range(int(rng.integers(4, 16))):
            s = E.step(s, E.sample_legal(s, rules, rng), rules)
        out.append((name, s.to_dict()))
    return out


def _containers(d: Any) -> Iterator[tuple[Any, Any]]:
    """Every (container, key) inside a nested dict/list."""
    keys = list(d) if isinstance(d, dict) else range(len(d)) if isinstance(d, list) else []
    for k in keys:
        yield d, k
        yield from _containers(d[k])


def mutate(d: dict, rng: np.random.Generator) -> dict:
    """A copy of ``d`` with one to three random changes: replace, delete, insert or nudge a value."""
    d = copy.deepcopy(d)
    if rng.random() < 0.05:  # a harmless change: another table seed
        d["fields"]["seed"]["data"][0] = str(int(rng.integers(0, 2**63)))
        return d
    for _ in range(int(rng.integers(1, 4))):
        spots = list(_containers(d))
        if rng.random() < 0.5:  # favour the structure over the many data leaves
            spots = [x for x in spots if isinstance(x[0], dict)]
        container, key = spots[int(rng.integers(len(spots)))]
        op = rng.integers(5)
        if op == 0 and isinstance(container, dict):
            del container[key]
        elif op == 0:
            container.pop(key)
        elif op == 1 and isinstance(container, dict):
            container[random_text(rng) or "x"] = junk(rng)
        elif op == 1:
            container.insert(key, junk(rng))
        elif op == 2 and isinstance(container[key], int) and not isinstance(container[key], bool):
            container[key] = container[key] + int(rng.choice([-300, -2, -1, 1, 2, 5, 300, 2**40]))
        else:
            container[key] = junk(rng)
    return d


def test_fuzz_from_dict_and_from_json() -> None:
    """Mutated saved states load as valid states or raise ValueError; the input is left as it was."""
    rng = np.random.default_rng(2024)
    loaded = refused = 0
    for name, saved in _saved_states():
        assert State.from_dict(copy.deepcopy(saved), name) is not None
        for _ in range(350):
            bad = mutate(saved, rng)
            before = repr(bad)
            ok, result = outcome(State.from_dict, bad, allowed=(ValueError,))
            assert repr(bad) == before, "from_dict changed its argument"
            if ok:
                loaded += 1
                validate_state(result)
                assert State.from_json(result.to_json()) == result
            else:
                refused += 1
            text = json.dumps(bad, default=repr)
            ok_text, _ = outcome(State.from_json, text, allowed=(ValueError,))
            assert ok_text or not ok, "a dict that loads must load from its JSON too"
    assert refused > 600 and loaded > 0, (loaded, refused)


def test_fuzz_from_json_text() -> None:
    """Cut, spliced and garbled JSON text, and non-text, load or raise ValueError."""
    rng = np.random.default_rng(7)
    texts = [json.dumps(saved) for _, saved in _saved_states()]
    for _ in range(300):
        text = texts[int(rng.integers(len(texts)))]
        k = int(rng.integers(6))
        i, j = sorted(int(x) for x in rng.integers(0, len(text), 2))
        if k == 0:
            bad: Any = text[:i]
        elif k == 1:
            bad = text[:i] + random_text(rng) + text[j:]
        elif k == 2:
            bad = text[:i] + text[j:]
        elif k == 3:
            bad = text.replace("int8", random_text(rng), 1)
        elif k == 4:
            bad = junk(rng)
        else:
            bad = "[" * int(rng.integers(1, 200_000)) + "]" * int(rng.integers(0, 3))
        ok, result = outcome(State.from_json, bad, allowed=(ValueError,))
        if ok:
            validate_state(result)


def test_fuzz_validation_of_random_field_values() -> None:
    """validate_state on states with random values in random fields (right dtypes and shapes): it names a
    problem or accepts the state, never crashes; an accepted state plays on and stays valid."""
    rng = np.random.default_rng(31)
    pools = []
    for name in ("four_handed_defend_alone", "five_handed"):
        rules = make_rules(name, episode="game", points_to_win=3)
        s = E.init_state(rules, 16, rng=rng)
        kept = [s]
        for _ in range(60):
            s = E.step(s, E.sample_legal(s, rules, rng), rules, active=rng.random(16) < 0.8)
            kept.append(s)
        pools.append((rules, State.concatenate(kept[::3])))
    names = [f.name for f in fields(State)]
    accepted = 0
    for i in range(700):
        rules, pool = pools[i % 2]
        s = pool.take(rng.integers(pool.batch_size, size=2))
        for _ in range(int(rng.integers(1, 3))):
            a = getattr(s, names[int(rng.integers(len(names)))]).reshape(-1)
            k = int(rng.integers(a.size))
            if a.dtype == bool:
                a[k] = not a[k]
            else:
                info = np.iinfo(a.dtype)
                lo, hi = (
                    (info.min, info.max) if rng.random() < 0.3 else (max(info.min, -2), min(info.max, 30))
                )
                a[k] = rng.integers(lo, hi, endpoint=True, dtype=a.dtype)
        for given in (rules, None):
            problem = find_problem(s, given)
            assert problem is None or (problem.field and problem.row in (0, 1)), problem
        if find_problem(s, rules) is None:
            accepted += 1
            for _ in range(40):
                s = E.step(s, E.sample_legal(s, rules, rng), rules)
                validate_state(s, rules)
    assert 0 < accepted < 700


# --- the engine ------------------------------------------------------------------------------


def _bad_batch(rng: np.random.Generator, b: int, legal: np.ndarray) -> Any:
    """Actions or rows, usually wrong: shapes, dtypes, values."""
    k = rng.integers(9)
    if k == 0:
        return legal
    if k == 1:
        a = legal.astype(np.int64)
        a[int(rng.integers(b))] = int(rng.integers(-200, 200))
        return a
    if k == 2:
        return legal.astype(rng.choice([np.float64, np.int8, np.uint8, np.int32, bool, object]))
    if k == 3:
        return np.append(legal, 0)
    if k == 4:
        return legal.reshape(1, -1)
    if k == 5:
        return list(legal)
    if k == 6:
        a = legal.astype(np.float64)
        a[0] = rng.choice([np.nan, np.inf, 0.5, 1e30])
        return a
    return junk(rng)


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_fuzz_engine_calls(variant: str) -> None:
    """step / step_rows / reset_rows / play_out_random with bad arguments: ValueError, state unchanged."""
    rules = make_rules(variant, episode="game", points_to_win=3)
    rng = np.random.default_rng(11)
    s = E.init_state(rules, 4, rng=rng)
    for _ in range(9):
        s = E.step(s, E.sample_legal(s, rules, rng), rules)
    for _ in range(250):
        before = s.copy()
        legal = E.sample_legal(s, rules, rng)
        rows, acts = _bad_batch(rng, 4, np.arange(4)), _bad_batch(rng, 4, legal)
        k = rng.integers(6)
        if k == 0:
            active = None if rng.random() < 0.5 else _bad_batch(rng, 4, rng.random(4) < 0.5)
            ok, _ = outcome(E.step, s, acts, rules, active=active, inplace=True)
        elif k == 1:
            ok, _ = outcome(E.step_rows, s, rows, acts, rules)
        elif k == 2:
            ok, _ = outcome(E.reset_rows, s, rows, _bad_batch(rng, 4, legal.astype(np.uint64)), rules)
        elif k == 3:
            ok, _ = outcome(E.play_out_random, s, rows, _bad_batch(rng, 4, legal.astype(np.uint64)), rules)
        elif k == 4:
            ok, _ = outcome(E.step, s, legal, junk(rng) if rng.random() < 0.5 else PRESETS["five_handed"])
        else:
            ok, _ = outcome(E.step, junk(rng), legal, rules)
        if not ok:
            assert s == before, "a refused engine call changed the state"
        validate_state(s, rules)
        if E.is_done(s).all():
            s = E.init_state(rules, 4, rng=rng)


# --- parsing --------------------------------------------------------------------------------


def test_fuzz_card_and_action_parsing() -> None:
    """Card, suit and action names and ids: parsed and printed consistently, or ValueError."""
    rng = np.random.default_rng(5)
    for _ in range(1500):
        x = random_text(rng) if rng.random() < 0.6 else junk(rng)
        only = (ValueError,)
        ok, c = outcome(cards.parse, x, allowed=only)
        if ok:
            assert cards.parse(cards.name(c)) == c
        ok, suit = outcome(cards.parse_suit, x, allowed=only)
        if ok:
            assert 0 <= suit < cards.NUM_SUITS
        outcome(cards.name, x, allowed=only)
        ok, a = outcome(actions.parse, x, allowed=only)
        if ok:
            assert actions.parse(actions.describe(a)) == a
        ok, words = outcome(actions.describe, x, allowed=only)
        if ok:
            assert actions.parse(words) == int(x)
        for maker in (actions.play, actions.discard, actions.call, actions.name_suit):
            outcome(maker, x, allowed=only)


# --- environments: each call against a twin that never sees the failed ones ------------------------


def _deal(rules: Any, rng: np.random.Generator) -> dict:
    """A given deal, usually with one entry spoilt."""
    deck = [cards.name(c) for c in rng.permutation(rules.deck)]
    p = rules.num_players
    deal: dict[str, Any] = {
        "dealer": int(rng.integers(p)),
        "hands": [deck[5 * i : 5 * i + 5] for i in range(p)],
        "upcard": deck[5 * p],
        "kitty": deck[5 * p + 1 :],
    }
    if rng.random() < 0.7:
        key = str(rng.choice(["dealer", "hands", "upcard", "kitty", "scores", "extra"]))
        if key == "hands" and rng.random() < 0.5:
            deal["hands"][int(rng.integers(p))][0] = junk(rng)
        else:
            deal[key] = junk(rng)
    return deal


def _options(rng: np.random.Generator, key: str, rules: Any, b: int) -> Any:
    k = rng.integers(5)
    if k == 0:
        return None
    if k == 1:
        return junk(rng)
    if k == 2:
        return {key: junk(rng)}
    if key == "deals":
        return {key: {int(rng.integers(-1, b + 1)): _deal(rules, rng)}}
    return {key: _deal(rules, rng)}


def _seed(rng: np.random.Generator) -> Any:
    return int(rng.integers(0, 2**63)) if rng.random() < 0.4 else junk(rng)


def _gym_view(env: EuchreEnv) -> tuple:
    return (env.state, env.action_masks().tolist(), env.state and env.learner_seat)


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_fuzz_gym_env(variant: str) -> None:
    """EuchreEnv.reset / step with bad seeds, options and actions: a clean error and no change, or the
    same result as the twin."""
    rng = np.random.default_rng(13)
    env, twin = EuchreEnv(variant), EuchreEnv(variant)
    for e in (env, twin):  # seeded: later resets without a seed deal alike
        e.reset(seed=0)
    for _ in range(250):
        if rng.random() < 0.3:
            seed, options = _seed(rng), _options(rng, "deal", env.rules, 1)
            call: Callable[[EuchreEnv], Any] = lambda e, seed=seed, options=options: e.reset(
                seed=seed, options=options
            )
        else:
            mask = env.action_masks()
            good = int(rng.choice(np.flatnonzero(mask))) if mask.any() else 0
            action = good if rng.random() < 0.5 else junk(rng)
            call = lambda e, action=action: e.step(action)
        before = _gym_view(env)
        ok, result = outcome(call, env, allowed=(ValueError, TypeError, RuntimeError))
        if not ok:
            if isinstance(result, RuntimeError):
                assert env.state is None or not env.action_masks().any(), "RuntimeError from a live episode"
            assert _gym_view(env) == before, f"a refused call changed the env: {result}"
        else:
            twin_result = call(twin)
            assert np.array_equal(result[0], twin_result[0]), "the env and its twin diverged"
        assert _gym_view(env) == _gym_view(twin), (
            "the env differs from a twin that never saw the refused calls"
        )


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_fuzz_vector_env(variant: str) -> None:
    """EuchreVectorEnv.reset / step with bad seeds, options and actions: as the single env."""
    rng = np.random.default_rng(17)
    b = 3
    env, twin = EuchreVectorEnv(b, variant), EuchreVectorEnv(b, variant)
    for e in (env, twin):  # seeded: later resets without a seed deal alike
        e.reset(seed=0)

    def view(e: EuchreVectorEnv) -> tuple:
        return (e.tables.state, e.action_masks().tolist(), e.prev_done.tolist())

    for _ in range(200):
        if rng.random() < 0.3:
            seed = _seed(rng) if rng.random() < 0.7 else [_seed(rng) for _ in range(b)]
            options = _options(rng, "deals", env.rules, b)
            call: Callable[[EuchreVectorEnv], Any] = lambda e, seed=seed, options=options: e.reset(
                seed=seed, options=options
            )
        else:
            masks = env.action_masks()
            good = np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in masks])
            actions_ = _bad_batch(rng, b, good) if rng.random() < 0.6 else good
            call = lambda e, a=actions_: e.step(a)
        before = view(env)
        ok, result = outcome(call, env, allowed=(ValueError, TypeError, RuntimeError))
        if not ok:
            if isinstance(result, RuntimeError):
                assert env.tables.state is None, "RuntimeError after a reset"
            assert view(env) == before, f"a refused call changed the env: {result}"
        else:
            assert np.array_equal(result[0], call(twin)[0]), "the env and its twin diverged"
        assert view(env) == view(twin)


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_fuzz_aec_env(variant: str) -> None:
    """The PettingZoo AEC env's reset / step with bad seeds, options and actions (TypeError or ValueError as
    documented; RuntimeError before a reset or once every agent has left), compared with a twin."""
    rng = np.random.default_rng(19)
    env, twin = raw_env(variant), raw_env(variant)
    for e in (env, twin):  # seeded: later resets without a seed deal alike
        e.reset(seed=0)

    def view(e: Any) -> tuple:
        try:
            state = e.engine_state
        except RuntimeError:  # never reset
            return (None,)
        agent = e.agent_selection
        obs = e.observe(agent) if agent in e.possible_agents else None
        return (
            state,
            agent,
            list(e.agents),
            dict(e.terminations),
            dict(e._cumulative_rewards),
            None if obs is None else (obs["observation"].tolist(), obs["action_mask"].tolist()),
        )

    for i in range(250):
        k = rng.random()
        if k < 0.25:
            seed = _seed(rng) if rng.random() < 0.8 else None
            options = _options(rng, "deal", env.rules, 1)
            call: Callable[[Any], Any] = lambda e, seed=seed, options=options: e.reset(
                seed=seed, options=options
            )
        else:
            live = bool(getattr(env, "agents", [])) and not env.terminations.get(env.agent_selection, True)
            mask = env.observe(env.agent_selection)["action_mask"] if live else None
            if mask is None:
                action = None if rng.random() < 0.7 else junk(rng)
            else:
                action = int(rng.choice(np.flatnonzero(mask))) if rng.random() < 0.5 else junk(rng)
            call = lambda e, action=action: e.step(action)
        before = view(env)
        ok, result = outcome(call, env, allowed=(ValueError, TypeError, RuntimeError))
        if not ok:
            if isinstance(result, RuntimeError):
                assert view(env) == (None,) or not env.agents, "RuntimeError while agents remain"
            assert view(env) == before, f"a refused call changed the env: {result!r}"
        else:
            call(twin)
        assert view(env) == view(twin), "the env differs from a twin that never saw the refused calls"
        if i % 25 == 24:  # the seed streams agree too: a reset without a seed deals the same
            env.reset(), twin.reset()
            assert view(env) == view(twin)


# --- agents ------------------------------------------------------------------------------------------


def test_fuzz_make_agent() -> None:
    """make_agent with bad names, rules and options: a ValueError or TypeError, or an agent that acts."""
    rng = np.random.default_rng(23)
    rules = PRESETS["four_handed"]
    names = ["random", "heuristic", "search", "model:", "model:nope", "trained", "Random", "search:", ":", ""]
    options = [
        "num_worlds",
        "bid_worlds",
        "rollouts",
        "time_budget",
        "seed",
        "surprise",
        "thresholds",
        "name",
    ]
    env = EuchreEnv("four_handed")
    obs, info = env.reset(seed=1)
    for _ in range(120):
        name = names[int(rng.integers(len(names)))] if rng.random() < 0.7 else junk(rng)
        given = rules if rng.random() < 0.8 else junk(rng)
        kwargs = {str(rng.choice(options)): junk(rng)} if rng.random() < 0.6 else {}
        if isinstance(name, str) and name == "search":
            kwargs.setdefault("num_worlds", 2)
        ok, agent = outcome(make_agent, name, given, **kwargs)
        sizes = [getattr(agent, k, 1) for k in ("num_worlds", "bid_worlds", "rollouts", "oversample")]
        if ok and getattr(agent, "time_budget", None) is None and max(sizes) <= 8:  # (big searches take long)
            a = agent.act(obs[None], info["action_mask"][None], np.random.default_rng(0))
            assert info["action_mask"][int(np.asarray(a).reshape(-1)[0])], "the agent chose an illegal action"


def test_junk_values_are_hostile() -> None:
    """The fuzz values include what the module docstring promises."""
    kinds = {type(x) for x in JUNK}
    assert {type(None), bool, int, float, str, list, dict, np.ndarray} <= kinds
    assert any(isinstance(x, float) and math.isnan(x) for x in JUNK)
    assert any(isinstance(x, int) and x > 2**64 for x in JUNK)
