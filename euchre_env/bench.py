"""Throughput benchmarks (``euchre bench``): engine, environments and a reference.

Every figure is decisions per second on one core, measured as the best of
``repeats`` timed windows, and printed beside a reference measured in the
same run (OpenSpiel's euchre when ``open_spiel`` is installed), so figures are
read as ratios rather than absolute numbers.

Decisions are counted once per live table per engine step (bids, discards,
calls, declarations and card plays alike).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from euchre_env import engine
from euchre_env.rules import RulesConfig, make_rules

BATCH_SIZES = (1, 64, 1024, 4096, 16384)


def _best_rate(run: Callable[[float], tuple[int, float]], seconds: float, repeats: int) -> float:
    """Best decisions/s over ``repeats`` windows of about ``seconds`` each."""
    return max(n / dt for n, dt in (run(seconds) for _ in range(repeats)))


def engine_random_play(
    rules: RulesConfig, batch_size: int, seed: int = 0, bool_masks: bool = False
) -> Callable[[float], tuple[int, float]]:
    """Uniformly random legal play through whole hands, ``batch_size`` tables at once.

    Tables deal on by themselves (a game to an unreachable target), so every
    step advances every table: legal set -> random choice -> step. With
    ``bool_masks`` the choice is made from the expanded ``(B, A)`` bool mask.
    """
    game = make_rules(
        rules.variant,
        stick_the_dealer=rules.stick_the_dealer,
        defend_alone=rules.defend_alone,
        episode="game",
        points_to_win=1000,
    )
    rng = np.random.default_rng(seed)
    state = engine.init_state(game, batch_size, rng=rng)

    def choose() -> np.ndarray:
        if bool_masks:
            mask = engine.legal_action_mask(state)
            return np.argmax(mask * rng.random(mask.shape), axis=1)
        base, bits = engine.legal_bits(state)
        return engine.sample_bits(base, bits, rng.random(batch_size))

    def run(seconds: float) -> tuple[int, float]:
        nonlocal state
        n, start = 0, time.perf_counter()
        while True:
            for _ in range(10):
                state = engine.step(state, choose(), game)
            n += 10 * batch_size
            dt = time.perf_counter() - start
            if dt >= seconds:
                return n, dt

    return run


def openspiel_random_play(seconds: float, read_tensor: bool) -> tuple[int, float] | None:
    """OpenSpiel's four-handed euchre driven from Python with random legal actions.

    ``read_tensor`` also reads the acting player's information-state tensor
    into numpy at every decision. Returns None if ``open_spiel`` is missing.
    """
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("euchre")
    rng = random.Random(0)
    n, start = 0, time.perf_counter()
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                continue
            if read_tensor:
                np.asarray(state.information_state_tensor(), dtype=np.float32)
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            n += 1
        dt = time.perf_counter() - start
        if dt >= seconds:
            return n, dt


def openspiel_cpp_random(seconds: float) -> tuple[int, float] | None:
    """OpenSpiel's C++ random simulation (``pyspiel`` uniform random bots), if available."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("euchre")
    bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(game.num_players())]
    start = time.perf_counter()
    runs = 0
    while True:
        for _ in range(200):
            pyspiel.evaluate_bots(game.new_initial_state(), bots, 1 + runs)
            runs += 1
        dt = time.perf_counter() - start
        if dt >= seconds:
            # evaluate_bots does not report decisions; a random hand has the mean
            # measured by openspiel_decisions_per_hand().
            return int(runs * openspiel_decisions_per_hand()), dt


def openspiel_decisions_per_hand(hands: int = 2000) -> float:
    """Mean player decisions per random OpenSpiel euchre hand."""
    import pyspiel  # type: ignore[import-not-found]

    game = pyspiel.load_game("euchre")
    rng = random.Random(1)
    total = 0
    for _ in range(hands):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                total += 1
    return total / hands


def aec_loop(variant: str, wrapped: bool) -> Callable[[float], tuple[int, float]]:
    """The PettingZoo AEC loop: ``agent_iter``, ``last``, a random legal action from the mask, ``step``."""
    from euchre_env.envs.aec_env import env as make_env
    from euchre_env.envs.aec_env import raw_env

    env = make_env(variant) if wrapped else raw_env(variant)
    rng = np.random.default_rng(0)
    episode = 0

    def run(seconds: float) -> tuple[int, float]:
        nonlocal episode
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            env.reset(seed=episode)
            episode += 1
            for _agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[int(rng.random() * legal.size)]))
                n += 1
        return n, time.perf_counter() - start

    return run


def gym_env_loop(variant: str) -> Callable[[float], tuple[int, float]]:
    """``EuchreEnv`` (one learner seat, random opponents): every decision (learner and opponents) counts.

    The learner takes a random legal action from ``info["action_mask"]``; each
    step returns a float32 observation ``(D,)``.
    """
    from euchre_env.envs.gym_env import EuchreEnv

    env = EuchreEnv(variant)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)

    def run(seconds: float) -> tuple[int, float]:
        nonlocal info
        core = env.tables
        before = core.learner_decisions + core.opponent_decisions
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            legal = np.flatnonzero(info["action_mask"])
            _, _, terminated, _, info = env.step(int(legal[int(rng.random() * legal.size)]))
            if terminated:
                _, info = env.reset()
        return core.learner_decisions + core.opponent_decisions - before, time.perf_counter() - start

    return run


def vector_env_loop(variant: str, num_envs: int) -> Callable[[float], tuple[int, float]]:
    """``EuchreVectorEnv`` against random opponents: every decision (learner and opponents) counts.

    Each step returns float32 observations ``(B, D)`` and bool masks ``(B, A)``;
    the learner's actions, drawn by ``action_space.sample()`` (a random legal
    action per table), are timed too.
    """
    from euchre_env.envs.vector_env import EuchreVectorEnv

    env = EuchreVectorEnv(num_envs, variant)
    env.reset(seed=0)
    env.action_space.seed(0)

    def run(seconds: float) -> tuple[int, float]:
        tables = env.tables
        before = tables.learner_decisions + tables.opponent_decisions
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            env.step(env.action_space.sample())
        return tables.learner_decisions + tables.opponent_decisions - before, time.perf_counter() - start

    return run


def bench_envs(seconds: float, repeats: int, num_envs: int = 4096) -> dict[str, Any]:
    """AEC loop (raw and wrapped), single-agent env and vector-env decisions/s for both variants."""
    out: dict[str, Any] = {}
    for variant in ("four_handed", "five_handed"):
        out[variant] = {
            "aec_raw": _best_rate(aec_loop(variant, wrapped=False), seconds, repeats),
            "aec_wrapped": _best_rate(aec_loop(variant, wrapped=True), seconds, repeats),
            "gym_env": _best_rate(gym_env_loop(variant), seconds, repeats),
            f"vector_env_{num_envs}": _best_rate(vector_env_loop(variant, num_envs), seconds, repeats),
        }
    return out


def bench_engine(seconds: float, repeats: int, batch_sizes: tuple[int, ...] = BATCH_SIZES) -> dict[str, Any]:
    """Engine decisions/s for both variants at each batch size, plus state bytes per table."""
    results: dict[str, Any] = {}
    for variant in ("four_handed", "five_handed"):
        rules = make_rules(variant)
        rows = {}
        for b in batch_sizes:
            rows[b] = _best_rate(engine_random_play(rules, b), seconds, repeats)
        full = _best_rate(engine_random_play(rules, 4096, bool_masks=True), seconds, repeats)
        state = engine.init_state(rules, 8, rng=np.random.default_rng(0))
        results[variant] = {
            "decisions_per_s": rows,
            "full_mask_4096": full,
            "state_bytes_per_table": state.nbytes_per_table,
        }
    return results


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The options of ``euchre bench``."""
    ap.add_argument("--seconds", type=float, default=1.0, help="length of each timed window")
    ap.add_argument("--repeats", type=int, default=3, help="timed windows per figure (best is kept)")
    ap.add_argument("--batch-sizes", type=int, nargs="+", default=list(BATCH_SIZES))
    ap.add_argument("--out", "--json", dest="json", type=str, default=None,
                    help="also write the figures to this JSON file")  # fmt: skip
    ap.add_argument("--overwrite", action="store_true", help="replace the file at --out")
    ap.add_argument("--engine-only", action="store_true", help="skip the environment figures")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """``euchre bench``: print and return the figures."""
    ap = argparse.ArgumentParser(prog="euchre bench", description=__doc__.split("\n")[0])
    add_arguments(ap)
    args = ap.parse_args(argv)
    if args.json is not None:
        target = Path(args.json)
        if target.is_dir():
            ap.error(f"--out {args.json!r} is a folder; it takes a JSON file")
        if target.exists() and not args.overwrite:
            ap.error(f"--out {args.json!r} exists: pass --overwrite to replace it")
    if not args.seconds > 0 or args.repeats < 1 or min(args.batch_sizes, default=0) < 1:
        ap.error(
            f"--seconds must be positive, --repeats and every --batch-sizes at least 1, got {args.seconds}, "
            f"{args.repeats} and {args.batch_sizes}"
        )
    out: dict[str, Any] = {
        "machine": platform.processor() or platform.machine(),
        "python": platform.python_version(),
    }
    ref_tensor = openspiel_random_play(args.seconds, read_tensor=True)
    ref_cpp = openspiel_cpp_random(args.seconds)
    out["reference"] = {
        "openspiel_python_loop_with_infostate": None if ref_tensor is None else ref_tensor[0] / ref_tensor[1],
        "openspiel_cpp_random_bots": None if ref_cpp is None else ref_cpp[0] / ref_cpp[1],
    }
    out["engine"] = bench_engine(args.seconds, args.repeats, tuple(args.batch_sizes))
    if not args.engine_only:
        out["envs"] = bench_envs(args.seconds, args.repeats)
    _print(out)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    return out


def _print(out: dict[str, Any]) -> None:
    ref = out["reference"]
    cpp = ref["openspiel_cpp_random_bots"]
    print("reference (same run):")
    for k, v in ref.items():
        print(f"  {k:42s} {'not installed' if v is None else f'{v:>12,.0f} decisions/s'}")
    print("engine, uniformly random legal play through whole hands:")
    for variant, res in out["engine"].items():
        print(f"  {variant} (state: {res['state_bytes_per_table']} bytes/table)")
        for b, rate in res["decisions_per_s"].items():
            ratio = f"  {rate / cpp:5.2f}x OpenSpiel C++" if cpp else ""
            print(f"    batch {b:>6}: {rate:>12,.0f} decisions/s{ratio}")
        print(f"    batch   4096 with bool (B, A) masks: {res['full_mask_4096']:>12,.0f} decisions/s")
    py_ref = ref["openspiel_python_loop_with_infostate"]
    for variant, res in out.get("envs", {}).items():
        print(f"environments, {variant}:")
        for name, rate in res.items():
            single = name.startswith(("aec", "gym"))
            against = py_ref if single else cpp
            label = "OpenSpiel Python loop" if single else "OpenSpiel C++"
            ratio = f"  {rate / against:5.2f}x {label}" if against else ""
            print(f"  {name:22s} {rate:>12,.0f} decisions/s{ratio}")


if __name__ == "__main__":
    main()
