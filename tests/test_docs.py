"""The documentation site builds in strict mode, and what it states stays true to the code.

* ``mkdocs build --strict`` succeeds (a broken link, a missing anchor or page, a docstring
  mkdocstrings cannot parse fails it), with the notebooks rendered with their stored figures and
  the API reference generated from the docstrings.
* ``docs/observations.md`` is what ``scripts/gen_docs.py`` writes from the encoder today.
* The Python examples of the pages run.
* Every module of ``euchre_env``, ``agents`` and ``training`` is in the API reference or listed
  below as internal, so a new module is placed on purpose.
"""

from __future__ import annotations

import importlib.util
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
