"""The notebooks are stored with their outputs, and every one still runs top to bottom.

* Stored: every code cell was executed, in order, in one run (``scripts/execute_notebooks.py``);
  every cell that prints, displays, plots or ends in a value has outputs; each notebook has at
  least one figure; no error is stored; the files stay small.
* Run: each notebook executes in a fresh kernel on a tiny training budget without an error, and
  draws its figures.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
TINY = {"EUCHRE_NB_TIMESTEPS": "4096", "EUCHRE_NB_DEALS": "40", "OMP_NUM_THREADS": "1"}
DOCUMENTED = {  # the README and the documentation site's tutorials link to these
    "01_rules_and_environment.ipynb",
    "02_train_and_evaluate.ipynb",
    "03_gymnasium_sb3_pettingzoo.ipynb",
}
MAX_BYTES = 1_000_000  # keep stored outputs (figures above all) small
SHOWS = ("print(", "display(", "plt.show(")


def images(nb: nbformat.NotebookNode) -> int:
    """Number of PNG outputs."""
    return sum("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))


def should_output(source: str) -> bool:
    """The cell prints, displays or plots, or its last statement is a value (not a call returning None)."""
    if any(show in source for show in SHOWS):
        return True
    body = ast.parse(source).body
    return bool(body) and isinstance(body[-1], ast.Expr) and not isinstance(body[-1].value, ast.Call)


def test_should_output() -> None:
    assert should_output("x = 1\nx") and should_output("print(1)") and should_output("plt.show()")
    assert not should_output("x = 1") and not should_output("import os") and not should_output("env.close()")


def test_notebooks_are_found() -> None:
    """The documented notebooks exist (others, such as newer tutorials, may join them)."""
    names = {p.name for p in NOTEBOOKS}
    assert names >= DOCUMENTED, f"notebooks: {sorted(names)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_stored_with_outputs(path: Path) -> None:
    """The committed notebook holds the outputs of one complete run, with a figure."""
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    counts = [c.get("execution_count") for c in code]
    assert counts == list(range(1, len(code) + 1)), (
        f"{path.name}: cells not executed top to bottom in one run (execution counts {counts}); "
        "run python scripts/execute_notebooks.py"
    )
    silent = [
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and should_output(c.source) and not c.outputs
    ]
    assert not silent, f"{path.name}: cells {silent} should have outputs but have none"
    errors = [o for c in code for o in c.outputs if o.get("output_type") == "error"]
    assert not errors, f"{path.name}: stored errors {errors}"
    assert images(nb) >= 1, f"{path.name}: no figure (image/png output)"
    assert path.stat().st_size <= MAX_BYTES, f"{path.name}: {path.stat().st_size:,} bytes; keep outputs small"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Execute the notebook in a fresh kernel (working directory: a temporary folder)."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:  # run from a clean slate: no stored output can stand in for a new one
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    for key, value in TINY.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(path.parent.parent), os.environ.get("PYTHONPATH", "")])
    )
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError naming the failing cell
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, f"{path.name}: {errors}"
    assert images(nb) >= 1, f"{path.name}: drew no figure when run"
