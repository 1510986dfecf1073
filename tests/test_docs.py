"""The documentation site builds in strict mode, and what it states stays true to the code.

* ``mkdocs build --strict`` succeeds (a broken link, a missing anchor or page, a docstring
  mkdocstrings cannot parse fails it), with the notebooks rendered with their stored figures and
  the API reference generated from the docstrings.
* ``docs/observations.md`` is what ``scripts/gen_docs.py`` writes from the encoder today.
* The Python examples of the pages run.
* Every module of ``euchre_env``, ``agents`` and ``training`` is in the API reference or listed
  below as internal, so a new module is placed on purpose.
* The results tables of README.md and the user pages are what ``scripts/gen_results.py`` writes from
  the results files under ``docs/results/``, and each results file records the command that wrote it.
* The README opens with the install and test commands of ``.ci/run``, stays under 200 lines, and its
  links resolve; every notebook is in the site's navigation; the training page gives the command that
  remakes each shipped model.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

from euchre_env import make_rules
from euchre_env.encoding import obs_layout

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
DIRECTIVE = re.compile(r"^::: ([\w.]+)", re.MULTILINE)

# Modules left out of the API reference: implementation details behind a documented module.
INTERNAL = {
    "euchre_env.envs.aec_wrappers",  # PettingZoo's classic wrappers, sped up (aec_env.env documents them)
    "euchre_env.bench",  # `euchre bench`
    "euchre_env.envs.learner_table",  # the core of EuchreEnv
    "euchre_env.envs.learner_tables",  # the core of EuchreVectorEnv / EuchreSB3VecEnv
    "agents.endgame",  # the search agent's exact endgame
    "agents.heuristic_bidding",  # the heuristic's rules, one function each
    "agents.heuristic_play",
    "training._moved",  # old module names, importable with a warning (CHANGELOG.md)
    "apps.cli",  # the `euchre` command (its --help is the reference)
    "training.imitation",  # the SB3 route's warm start (training.sb3.train documents --imitate)
    "training.pool",  # --opponents (both trainers document it)
    "training.sb3.files",  # the SB3 route's run files
    "training.sb3.envs",
    "training.options",
    "apps.play",
    "training.batched.rollout",
    "training.runs",
}
PACKAGES = ("euchre_env", "agents", "arena", "training", "partner_lab", "apps")
# Packages documented through their ``__all__``: their submodules are covered.
WHOLE_PACKAGES = {"euchre_env.engine", "euchre_env.validation", "euchre_env.beliefs"}


def load_script(name: str):
    """A module of ``scripts/`` (not a package), imported from its file."""
    spec = importlib.util.spec_from_file_location(f"scripts_{name}", ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    """The site builds with ``--strict``; notebooks keep their figures, the API has the envs."""
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stderr[-4000:]}"
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks
    for nb in notebooks:
        page = site / "notebooks" / nb.stem / "index.html"
        assert page.is_file(), f"{nb.name} is not on the site"
        if '"image/png"' in nb.read_text(encoding="utf-8"):  # its stored figures show on its page
            html = page.read_text(encoding="utf-8")
            assert "data:image/png;base64" in html, f"{nb.name}: no figure on its page"
    api = (site / "api" / "euchre_env" / "index.html").read_text(encoding="utf-8")
    for name in (
        "euchre_env.envs.aec_env.raw_env",
        "euchre_env.envs.gym_env.EuchreEnv",
        "euchre_env.envs.vector_env.EuchreVectorEnv",
    ):
        assert f'id="{name}"' in api, f"{name} missing from the API reference"
    observations = (site / "observations" / "index.html").read_text(encoding="utf-8")
    assert "<table>" in observations and "i_hold_called" in observations


def test_observations_page_is_up_to_date() -> None:
    """docs/observations.md is generated from the encoder (python scripts/gen_docs.py)."""
    gen = load_script("gen_docs")
    assert (DOCS / "observations.md").read_text(encoding="utf-8") == gen.observations_page(), (
        "docs/observations.md is out of date: run python scripts/gen_docs.py"
    )
    assert obs_layout(make_rules("four_handed")).table() in gen.observations_page()


@pytest.mark.parametrize(
    ("page", "variant"),
    [("environments/euchre_v0.md", "four_handed"), ("environments/euchre_five_handed_v0.md", "five_handed")],
)
def test_environment_page_observation_shape(page: str, variant: str) -> None:
    """The PettingZoo-style header of each AEC page states the encoder's observation size."""
    text = (DOCS / page).read_text(encoding="utf-8")
    shapes = re.findall(r"^\| Observation Shape \| \((\d+),\) \|$", text, re.MULTILINE)
    assert shapes == [str(obs_layout(make_rules(variant)).size)], f"{page}: Observation Shape rows {shapes}"


def doc_examples() -> list[tuple[str, int, str]]:
    found = []
    for path in sorted(DOCS.rglob("*.md")):
        for k, block in enumerate(PYTHON_BLOCK.findall(path.read_text(encoding="utf-8"))):
            found.append((str(path.relative_to(DOCS)), k, block))
    return found


EXAMPLES = doc_examples()


def test_pages_have_examples() -> None:
    pages = {page for page, _, _ in EXAMPLES}
    assert {"index.md", "environments/euchre_v0.md", "environments/gymnasium.md", "research.md"} <= pages


@pytest.mark.parametrize(("page", "k", "code"), EXAMPLES, ids=[f"{p}-{k}" for p, k, _ in EXAMPLES])
def test_doc_example_runs(
    page: str,
    k: int,
    code: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    """Each ```python block of the pages runs as written (in a temporary working directory)."""
    monkeypatch.chdir(tmp_path)
    compiled = compile(code, f"docs/{page} (python block {k})", "exec")
    exec(compiled, {"__name__": "__doc_example__"})  # noqa: S102 (the repository's own examples)


def test_api_reference_covers_every_module() -> None:
    """Each module is documented in docs/api/ or listed in INTERNAL (and INTERNAL holds no stale names)."""
    documented = set()
    for path in (DOCS / "api").glob("*.md"):
        documented |= set(DIRECTIVE.findall(path.read_text(encoding="utf-8")))
    modules = set(PACKAGES)
    for package in sorted(modules):
        modules |= {info.name for info in pkgutil.walk_packages([str(ROOT / package)], prefix=f"{package}.")}
    assert documented <= modules, f"docs/api/ documents unknown modules: {sorted(documented - modules)}"
    covered = documented | {m for m in modules if m.rpartition(".")[0] in WHOLE_PACKAGES}
    missing = sorted(modules - covered - INTERNAL)
    assert not missing, f"modules neither in docs/api/*.md nor in INTERNAL: {missing}"
    assert INTERNAL <= modules, f"INTERNAL names modules that do not exist: {sorted(INTERNAL - modules)}"


# ------------------------------------------------------------------ results files and generated tables
README = ROOT / "README.md"


def test_results_tables_are_up_to_date() -> None:
    """The tables between ``<!-- results:NAME -->`` markers are what scripts/gen_results.py writes from docs/results/."""
    gen = load_script("gen_results")
    stale = [str(p.relative_to(ROOT)) for p in gen.stale_pages()]
    assert not stale, f"out of date (run python scripts/gen_results.py): {stale}"
    marked = {m.group(2) for p in gen.pages() for m in gen.MARKER.finditer(p.read_text(encoding="utf-8"))}
    assert {"models", "speed"} <= marked, f"README.md lost a results table: {sorted(marked)}"
    assert set(gen.TABLES) == marked, f"tables never placed on a page: {sorted(set(gen.TABLES) - marked)}"


def test_each_results_file_records_the_command_that_wrote_it() -> None:
    """Every results file holds the command that measured it (``euchre ...`` or a script under ``benchmarks/``),
    writing into that file's folder."""
    gen = load_script("gen_results")
    for name, (path, _) in gen.SOURCES.items():
        assert (ROOT / path).is_file(), f"{path} is missing: python scripts/gen_results.py --measure {name}"
        command = gen.command_of(name)
        assert command.startswith(("euchre ", "python benchmarks/")), f"{path}: no command recorded ({command!r})"
        argv = command.split()
        if "--out" in argv:
            out = argv[argv.index("--out") + 1]
            assert (ROOT / path).parent == ROOT / out, f"{path}: its command wrote to {out}"
    for extra in gen.NOT_KEPT:  # partner-bench's training data stays out of the docs (its classifier is kept)
        assert not (ROOT / gen.SOURCES["partner_bench"][0]).parent.joinpath(extra).exists(), extra


def test_markers_are_rendered_from_the_tables(tmp_path: Path) -> None:
    """render() fills a marked block, leaves the rest of the page alone, and refuses an unknown name."""
    gen = load_script("gen_results")
    page = "before\n<!-- results:models -->\nstale\n<!-- /results:models -->\nafter\n"
    out = gen.render(page)
    assert out.startswith("before\n<!-- results:models -->\n| game |") and out.endswith(
        "<!-- /results:models -->\nafter\n"
    )
    assert "model:four_handed" in out and "stale" not in out and gen.render(out) == out
    with pytest.raises(KeyError, match="unknown results table"):
        gen.render("<!-- results:nope -->\n<!-- /results:nope -->\n")


def test_search_pieces_combine_into_their_total(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The search agent's told match, run in pieces: deal-weighted mean, intervals combined as independent;
    a file that is not such a piece is refused by name."""
    gen = load_script("gen_results")
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    for seed, deals, mean, ci in ((1, 1000, 0.03, 0.02), (2, 3000, -0.01, 0.01)):
        folder = tmp_path / gen.SEARCH_PIECES / f"seed_{seed}"
        folder.mkdir(parents=True)
        stat = {"mean": mean, "ci95": ci}
        (folder / "partner_truth.json").write_text(json.dumps({
            "command": f"euchre analyse partner-truth --agent search --deals {deals} --seed {seed} --out x",
            "agent": "search", "deals": deals, "seed": seed, "seconds": 60.0, "relative": stat, "points": stat}))  # fmt: skip
    total = gen.table_partner_truth_search().splitlines()[-1]
    # (1000 * 0.03 + 3000 * -0.01) / 4000 = 0.000; sqrt((1000 * 0.02)^2 + (3000 * 0.01)^2) / 4000 = 0.009
    assert total.startswith("| all | **+0.000 ± 0.009** | +0.000 ± 0.009 | 4,000 |"), total
    (tmp_path / gen.SEARCH_PIECES / "seed_3").mkdir()
    (tmp_path / gen.SEARCH_PIECES / "seed_3" / "partner_truth.json").write_text(json.dumps({
        "command": "euchre analyse partner-truth --agent heuristic", "agent": "heuristic"}))  # fmt: skip
    with pytest.raises(ValueError, match=r"seed_3.*not a piece"):
        gen.table_partner_truth_search()


def test_eval_json_records_its_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """arena.report.command_line: ``euchre ...`` and ``python -m arena.evaluate ...`` are recorded, other callers not."""
    from arena import report

    monkeypatch.setattr(
        sys, "argv", ["/venv/bin/euchre", "eval", "--agents", "heuristic", "random", "--out", "a b"]
    )
    assert report.command_line() == "euchre eval --agents heuristic random --out 'a b'"
    monkeypatch.setattr(sys, "argv", [str(ROOT / "arena" / "evaluate.py"), "--deals", "40"])
    assert report.command_line() == "python -m arena.evaluate --deals 40"
    monkeypatch.setattr(sys, "argv", [str(ROOT / "apps" / "cli.py"), "leaderboard", "--agents", "random", "heuristic"])
    assert report.command_line() == "euchre leaderboard --agents random heuristic"
    monkeypatch.setattr(sys, "argv", ["/venv/bin/pytest", "-q"])
    assert report.command_line() is None


def test_readme_first_lines_are_the_ci_commands() -> None:
    """The README opens with the install and test commands that .ci/run runs, literally; it stays short."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines (at most 200)"
    head = "\n".join(lines[:15])
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    install = re.search(r"^(pip install torch==\S+ && pip install -e \"\.\[\w+\]\")$", ci, re.MULTILINE)
    assert install, ".ci/run: no install line"
    for command in (install.group(1), "python -m pytest -q -n 2"):
        assert command in ci, f".ci/run does not run {command!r}"
        assert command in head, f"README.md's first lines lack {command!r}"


def test_readme_links_resolve() -> None:
    """Every relative link of the README names a file or folder of the repository (and a docs anchor exists)."""
    text = README.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+://", target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0]
        assert (ROOT / path).exists(), f"README.md links to {target}, which does not exist"


def test_every_notebook_is_in_the_nav() -> None:
    """Each notebook of notebooks/ is a page of the site's navigation."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert f"notebooks/{nb.name}" in nav, f"{nb.name} is missing from mkdocs.yml's nav"


def test_training_page_remakes_each_shipped_model() -> None:
    """docs/training.md gives, per shipped model, the command its file records (plus the critic it had then)."""
    pytest.importorskip("safetensors")
    from agents.neural import load_policy

    page = (DOCS / "training.md").read_text(encoding="utf-8")
    for variant in ("four_handed", "five_handed"):
        recorded = load_policy(str(ROOT / "agents" / "models" / f"{variant}.safetensors"))[1].provenance[
            "command"
        ]
        remake = recorded.replace(" --no-progress", " --critic-hidden 256,256 --no-progress")
        assert f"`{remake}`" in page, (
            f"docs/training.md lacks the remake command of model:{variant}: {remake}"
        )
