"""Every notebook in notebooks/ runs top to bottom without an error (on a tiny training budget)."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
TINY = {"EUCHRE_NB_TIMESTEPS": "4096", "EUCHRE_NB_DEALS": "40", "OMP_NUM_THREADS": "1"}


def test_notebooks_are_found() -> None:
    """The three documented notebooks exist."""
    names = [p.name for p in NOTEBOOKS]
    assert names == [
        "01_rules_and_environment.ipynb",
        "02_train_and_evaluate.ipynb",
        "03_gymnasium_sb3_pettingzoo.ipynb",
    ], f"notebooks: {names}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Execute the notebook in a fresh kernel (working directory: a temporary folder)."""
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), f"{path.name}: strip outputs"
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
