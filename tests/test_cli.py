"""The ``euchre`` command tree (apps.cli): every command and route is reachable, shows its options, and
takes the same names for the same things; bad output paths are refused before any work."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from apps import cli

ROOT = Path(__file__).resolve().parents[1]


def parse(argv):
    return cli.build_parser().parse_args(cli.route_words(argv))


def help_of(capsys, argv) -> str:
    with pytest.raises(SystemExit) as stop:
        parse([*argv, "--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["train"], ("train", "ppo")),
        (["train", "--total-decisions", "5"], ("train", "ppo")),
        (["train", "ppo", "--seed", "3"], ("train", "ppo")),
        (["train", "sb3", "--total-timesteps", "5"], ("train", "sb3")),
        (["train", "--algo", "sb3", "--total-timesteps", "5"], ("train", "sb3")),  # the older spelling
        (["train", "--algo=sb3"], ("train", "sb3")),
        (["train", "--backend", "rllib", "--iterations", "1"], ("train", "rllib")),
        (["train", "--backend", "local"], ("train", "ppo")),
        (["train", "rllib", "--iterations", "1"], ("train", "rllib")),
        (["eval", "--agents", "random", "heuristic"], ("eval",)),
        (["analyse", "phase-split", "heuristic"], ("analyse", "phase-split")),
        (["analyse", "open-cards"], ("analyse", "open-cards")),
        (["analyse", "halves", "heuristic"], ("analyse", "halves")),
        (["partner-bench", "--out", "x"], ("partner-bench",)),
    ],
)
def test_each_command_line_reaches_its_command(argv, words):
    command = parse(argv).command
    assert command.words == words
    assert command.module == {c.words: c.module for c in cli.COMMANDS}[words]


def test_the_train_help_shows_the_routes_and_each_route_its_own_options(capsys):
    text = help_of(capsys, ["train"])
    assert "--algo {ppo,dmc,sb3}" in text and "--backend {local,ray}" in text and "--total-decisions" in text
    assert "--num-workers" in text and "--address" in text  # the batched routes run on Ray too
    dmc = help_of(capsys, ["train", "dmc"])
    assert "--epsilon" in dmc and "--clip-coef" not in dmc and "--epsilon" not in text
    assert "--backend {local,ray}" in dmc
    assert "--backend {local,rllib}" in help_of(capsys, ["train", "sb3"])
    assert "--num-env-runners" in help_of(capsys, ["train", "rllib"])
    assert "--total-timesteps" in help_of(capsys, ["train", "sb3"])
    assert "--total-decisions" not in help_of(capsys, ["train", "sb3"])


def test_the_top_help_lists_every_command_and_help_texts_are_plain(capsys):
    text = help_of(capsys, [])
    for cmd in cli.COMMANDS:
        assert cmd.words[0] in text
    for cmd in cli.COMMANDS:
        sub = help_of(capsys, list(cmd.words))
        assert "``" not in sub, (cmd.words, "reST markup in a help text")
        assert sub.startswith(f"usage: euchre {' '.join(cmd.words)}")


def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.build_parser().parse_args(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"euchre-env {cli.version()}"


def options_of(words) -> set[str]:
    parser = cli.build_parser()
    for word in words:  # walk down the tree
        sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
        parser = sub.choices[word]
    return {s for a in parser._actions for s in a.option_strings}


def test_the_same_things_have_the_same_option_names():
    """Where two commands take a rules preset, a seed, a deal count or an output they name it alike."""
    for cmd in cli.COMMANDS:
        opts = options_of(cmd.words)
        if "--out" in opts:
            assert "--overwrite" in opts, (cmd.words, "an --out without --overwrite")
    for words in (("eval",), ("analyse", "phase-split"), ("analyse", "open-cards"), ("analyse", "halves"),
                  ("dataset",), ("partner-bench",)):  # fmt: skip
        assert {"--deals", "--seed"} <= options_of(words), words
    for words in (("eval",), ("play",), ("serve",), ("train", "ppo"), ("train", "sb3"), ("train", "rllib"),
                  ("analyse", "phase-split"), ("analyse", "open-cards")):  # fmt: skip
        assert "--variant" in options_of(words), words


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["train", "sb3", "--backend", "rllib"], "euchre train sb3 cannot take --backend rllib"),
        (["train", "--backend", "rllib", "--algo", "sb3"], "--backend rllib always runs RLlib's PPO"),
        (["train", "--backend", "gpu"], "--backend must be one of ['local', 'ray', 'rllib'], got 'gpu'"),
    ],
)
def test_routes_that_disagree_are_refused(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err


def run(*argv, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "apps.cli", *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=300, check=False)  # fmt: skip


def test_outputs_in_the_way_are_refused_before_any_work(tmp_path):
    """Each exits 2 with one line naming the option, no traceback, and writes nothing."""
    a_file = tmp_path / "file.txt"
    a_file.write_text("keep")
    report = tmp_path / "report"
    report.mkdir()
    (report / "partner_bench.json").write_text("{}")
    cases = [
        (["partner-bench", "--out", str(a_file), "--hands", "2"], "is a file, not a folder"),
        (["partner-bench", "--out", str(report), "--hands", "2"], "pass --overwrite"),
        (["play", "--record", str(tmp_path), "--hands", "1"], "is a folder; it takes a file"),
        (["play", "--record", str(tmp_path / "no" / "x.jsonl")], "does not exist"),
        (["dataset", "--out", str(tmp_path / "ds"), "--hands", "10", "--shards", "9-2"], "is not a range"),
        (["bench", "--out", str(a_file)], "exists: pass --overwrite"),
    ]
    for argv, message in cases:
        before = sorted(p.name for p in tmp_path.rglob("*"))
        proc = run(*argv)
        assert proc.returncode == 2 and message in proc.stderr, (argv, proc.stderr[-1500:])
        assert "Traceback" not in proc.stderr
        assert sorted(p.name for p in tmp_path.rglob("*")) == before, argv
    assert a_file.read_text() == "keep" and json.loads((report / "partner_bench.json").read_text()) == {}


def test_a_run_stopped_before_its_first_checkpoint_says_to_start_again(tmp_path):
    """--resume of a folder with no checkpoint says to start again with --overwrite; --out of that folder
    then says --overwrite only (it must not send the user back to --resume)."""
    from training.batched.ppo import Args
    from training.runs import prepare_run_dir

    out = tmp_path / "run"
    out.mkdir()
    (out / "args.json").write_text("{}")
    with pytest.raises(ValueError, match=r"nothing to continue.*--overwrite") as err:
        prepare_run_dir(Args(resume=str(out)))
    assert "--resume" not in str(err.value).split(":", 1)[1]
    with pytest.raises(ValueError, match="pass --overwrite to replace its files") as err:
        prepare_run_dir(Args(out=str(out)))
    assert "--resume" not in str(err.value)
    assert prepare_run_dir(Args(out=str(out), overwrite=True)) == out


def test_old_module_names_still_import_with_a_warning():
    """CHANGELOG.md: modules that moved out of training import under their old names, with a warning."""
    import importlib

    from training._moved import MOVED

    for old, new in MOVED.items():
        sys.modules.pop(old, None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = importlib.import_module(old)
        assert module is importlib.import_module(new), old
        assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message) for w in caught), old
    assert "training.evaluate" in (ROOT / "CHANGELOG.md").read_text()


LAYERS = ("euchre_env", "agents", "arena", "training", "partner_lab", "apps")


def test_dependencies_point_one_way():
    """A module imports only from its own package and the layers below it (apps imports the commands by
    name, through importlib, and is the top)."""
    for level, package in enumerate(LAYERS):
        above = set(LAYERS[level + 1 :])
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names = [node.module]
                for name in names:
                    assert name.split(".")[0] not in above, f"{path.relative_to(ROOT)} imports {name}"
