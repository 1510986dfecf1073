"""A user's own agent, without editing this library: ``py:package.module:factory`` and entry points.

``make_agent("py:mod:factory", rules, **kw)`` imports ``mod`` and returns ``factory(rules, **kw)``;
an installed package's entry point in the group ``euchre_env.agents`` makes its name an agent name.
Every command that takes agent names goes through ``make_agent``, so ``euchre eval --agents`` accepts
both (checked end to end). Mistakes give a ``ValueError`` naming what was given and what was expected.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from agents import ENTRY_POINT_GROUP, HeuristicAgent, agent_names, make_agent
from euchre_env import engine, make_rules
from euchre_env.encoding import encode

ROOT = Path(__file__).resolve().parents[1]
_COUNTER = itertools.count()

USER_MODULE = '''
import numpy as np

from agents import Agent


class FirstLegal(Agent):
    """Takes the legal action with the lowest id."""

    name = "first-legal"

    def __init__(self, rules, label="first"):
        super().__init__(rules)
        self.label = label

    def act(self, observations, action_masks, rng):
        return np.asarray(action_masks).argmax(axis=1)


def make_first(rules, **kw):
    return FirstLegal(rules, **kw)


class Factories:
    first = staticmethod(make_first)


not_callable = 42


def returns_none(rules, **kw):
    return None


def fails(rules, **kw):
    raise RuntimeError("the user's factory failed")
'''


def write_module(folder: Path, source: str = USER_MODULE) -> str:
    """A module with a fresh name in ``folder`` (so no earlier import is reused); returns its name."""
    name = f"user_bots_{os.getpid()}_{next(_COUNTER)}"
    (folder / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    return name


def write_dist(folder: Path, dist: str, entries: dict[str, str]) -> Path:
    """An installed distribution's metadata as importlib.metadata finds it: ``<dist>-1.0.dist-info`` with
    METADATA and an entry_points.txt declaring ``entries`` in the group ``euchre_env.agents``."""
    info = folder / f"{dist}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n", encoding="utf-8")
    lines = "".join(f"{k} = {v}\n" for k, v in entries.items())
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{lines}", encoding="utf-8")
    return info


@pytest.fixture
def user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The name of a user module on sys.path (a folder outside the repository)."""
    name = write_module(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def plays_legally(agent: object, variant: str = "four_handed") -> bool:
    rules = make_rules(variant)
    rng = np.random.default_rng(0)
    s = engine.init_state(rules, 16, rng=rng)
    while not engine.is_done(s).all():
        live = np.flatnonzero(~engine.is_done(s))
        masks = engine.legal_action_mask(s, rules)[live]
        actions = np.asarray(agent.act(encode(s.take(live), s.turn[live], rules, np.float32), masks, rng))
        if not masks[np.arange(len(live)), actions].all():
            return False
        full = engine.sample_legal(s, rules, rng)
        full[live] = actions
        s = engine.step(s, full, rules)
    return True


def test_py_spec_imports_and_calls_the_users_factory(user_module: str) -> None:
    """``py:mod:factory`` calls ``factory(rules, **kw)``: keywords reach it, a class or a dotted name works."""
    rules = make_rules("five_handed")
    agent = make_agent(f"py:{user_module}:make_first", rules, label="mine")
    assert type(agent).__name__ == "FirstLegal" and agent.rules == rules and agent.label == "mine"
    assert plays_legally(agent, "five_handed"), "the user's agent did not play"
    assert type(make_agent(f"py:{user_module}:FirstLegal", rules)).__name__ == "FirstLegal"
    assert type(make_agent(f"py:{user_module}:Factories.first", rules)).__name__ == "FirstLegal"
    assert "py:..." in agent_names()


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("py:{mod}", r"is not of the form 'py:package\.module:factory'"),
        ("py:{mod}:", r"is not of the form 'py:package\.module:factory'"),
        ("py::make_first", r"is not of the form 'py:package\.module:factory'"),
        ("py:", r"is not of the form 'py:package\.module:factory'"),
        (
            "py:no_such_module_for_euchre_tests:make",
            (
                r"cannot import module 'no_such_module_for_euchre_tests' "
                r"\(is it installed, or its folder on PYTHONPATH\?\): ModuleNotFoundError"
            ),
        ),
        ("py:{mod}:missing", r"module '{mod}' has no attribute 'missing'"),
        ("py:{mod}:Factories.nothing", r"module '{mod}' has no attribute 'Factories\.nothing'"),
        (
            "py:{mod}:not_callable",
            r"42 is not callable; expected a factory called as factory\(rules, \*\*kw\)",
        ),
        (
            "py:{mod}:returns_none",
            r"returned NoneType .* which has no act\(observations, action_masks, rng\)",
        ),
    ],
)
def test_py_spec_mistakes_are_clear_errors(user_module: str, spec: str, expected: str) -> None:
    """Malformed spec, unimportable module, missing attribute, non-callable, no ``act``: ValueError naming it."""
    given = spec.format(mod=user_module)
    with pytest.raises(ValueError, match=expected.format(mod=user_module)) as err:
        make_agent(given, make_rules("four_handed"))
    assert repr(given) in str(err.value), f"the message does not name what was given: {err.value}"


def test_py_spec_module_whose_import_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A module that exists but fails to import: the error names the module and its import error."""
    broken = write_module(tmp_path, "import a_dependency_nobody_has_12345\n")
    syntax = write_module(tmp_path, "def oops(:\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    rules = make_rules("four_handed")
    with pytest.raises(ValueError, match=rf"cannot import module '{broken}': ModuleNotFoundError: .*"
                                         r"a_dependency_nobody_has_12345"):  # fmt: skip
        make_agent(f"py:{broken}:make", rules)
    with pytest.raises(ValueError, match=rf"cannot import module '{syntax}': SyntaxError"):
        make_agent(f"py:{syntax}:make", rules)


def test_py_spec_factory_errors_are_the_factorys(user_module: str) -> None:
    """An error raised by the user's factory itself reaches the caller unchanged."""
    with pytest.raises(RuntimeError, match="the user's factory failed"):
        make_agent(f"py:{user_module}:fails", make_rules("four_handed"))


def test_entry_point_agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An installed package's ``euchre_env.agents`` entry point is an agent name; built-in names win."""
    mod = write_module(tmp_path)
    name = f"ep_first_{os.getpid()}"
    write_dist(tmp_path, f"userbots_{os.getpid()}", {
        name: f"{mod}:make_first",
        f"{name}_broken": f"{mod}:missing",
        f"{name}_none": f"{mod}:returns_none",
        "heuristic": f"{mod}:returns_none",  # never used: the built-in heuristic wins
    })  # fmt: skip
    rules = make_rules("four_handed")
    assert name not in agent_names()
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert {name, f"{name}_broken"} <= set(agent_names())
        agent = make_agent(name, rules, label="ep")
        assert type(agent).__name__ == "FirstLegal" and agent.label == "ep" and plays_legally(agent)
        assert isinstance(make_agent("heuristic", rules), HeuristicAgent), (
            "an entry point hid a built-in agent"
        )
        with pytest.raises(ValueError, match=rf"agent '{name}_broken' \(entry point {name}_broken = {mod}:missing "
                                             rf"of package 'userbots_\d+'\): module '{mod}' has no attribute"):  # fmt: skip
            make_agent(f"{name}_broken", rules)
        with pytest.raises(ValueError, match=rf"agent '{name}_none' .* returned NoneType"):
            make_agent(f"{name}_none", rules)
        with pytest.raises(ValueError, match=rf"unknown agent 'nosuch_{name}'; known agents: .*'{name}'"):
            make_agent(f"nosuch_{name}", rules)
    finally:
        sys.modules.pop(mod, None)
    monkeypatch.undo()
    assert name not in agent_names(), "an uninstalled package's agent is still listed"


def test_entry_point_declared_twice_is_ambiguous(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two installed packages declaring one name for different factories: an error naming both."""
    mod = write_module(tmp_path)
    name = f"ep_twice_{os.getpid()}"
    write_dist(tmp_path, "first_pkg", {name: f"{mod}:make_first"})
    write_dist(tmp_path, "second_pkg", {name: f"{mod}:FirstLegal"})
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match=rf"'{name}' is declared by several installed packages.*"
                                         r"'first_pkg'.*'second_pkg'.*py:"):  # fmt: skip
        make_agent(name, make_rules("four_handed"))
    sys.modules.pop(mod, None)


def run_cli(args: list[str], pythonpath: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(pythonpath), str(ROOT)]), "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "apps.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, check=False)  # fmt: skip


def test_eval_command_takes_the_users_agents(tmp_path: Path) -> None:
    """``euchre eval --agents py:mod:factory <entry point> heuristic`` plays them; a mistake exits 2 saying why."""
    users = tmp_path / "users"
    users.mkdir()
    mod = write_module(users)
    write_dist(users, "my_bots", {"my_first_bot": f"{mod}:make_first"})
    spec = f"py:{mod}:make_first"
    out = tmp_path / "out"
    proc = run_cli(["eval", "--variant", "four_handed", "--agents", spec, "my_first_bot", "heuristic",
                    "--deals", "4", "--games", "0", "--quiet", "--no-plot", "--out", str(out)], users, tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads((out / "eval.json").read_text(encoding="utf-8"))
    assert report["agents"] == [spec, "my_first_bot", "heuristic"]
    assert set(report["overall_points_per_hand"]) == {spec, "my_first_bot", "heuristic"}

    helped = run_cli(["eval", "--help"], users, tmp_path)
    assert helped.returncode == 0 and "my_first_bot" in helped.stdout and "py:..." in helped.stdout

    bad = run_cli(["eval", "--agents", f"py:{mod}", "heuristic", "--deals", "4", "--games", "0", "--quiet",
                   "--out", str(tmp_path / "bad")], users, tmp_path)  # fmt: skip
    assert bad.returncode == 2
    assert f"'py:{mod}' is not of the form 'py:package.module:factory'" in bad.stderr, bad.stderr[-2000:]
