"""Re-execute the notebooks in place and store them with their outputs.

The notebooks in ``notebooks/`` are committed with their outputs (tables, masks, figures), so a
reader on the web or on the documentation site sees them without running anything. Run this after
changing a notebook or anything its output depends on:

    python scripts/execute_notebooks.py                      # every notebook, at its own budget
    python scripts/execute_notebooks.py notebooks/03_gymnasium_sb3_pettingzoo.ipynb
    python scripts/execute_notebooks.py --timesteps 4096 --deals 40   # quick (CI's tiny budget)

Each notebook runs top to bottom in a fresh kernel, in a temporary working directory (training
runs land there, not in the repository), with one torch thread (``OMP_NUM_THREADS=1``) unless the
environment sets it. The training budget is the notebook's own default (``EUCHRE_NB_TIMESTEPS``,
``EUCHRE_NB_DEALS``) unless ``--timesteps`` / ``--deals`` or those variables say otherwise. A cell
that fails stops the run and the notebook is not rewritten. ``tests/test_notebooks.py`` checks that
the stored notebooks have outputs and a figure each, and runs them again on a tiny budget.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"
MAX_BYTES = 1_000_000  # a stored notebook larger than this is reported: keep outputs and figures small


def execute(path: Path, timeout: int) -> nbformat.NotebookNode:
    """Run the notebook at ``path`` in a fresh kernel and return it with its outputs (not saved)."""
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix=f"nb-{path.stem}-") as work:
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            record_timing=False,  # no timestamps in the stored cells
            resources={"metadata": {"path": work}},
        )
        client.execute()  # raises CellExecutionError naming the failing cell
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Re-execute notebooks and store their outputs.")
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebooks/*.ipynb")
    parser.add_argument("--timesteps", type=int, help="EUCHRE_NB_TIMESTEPS (default: each notebook's own)")
    parser.add_argument("--deals", type=int, help="EUCHRE_NB_DEALS (default: each notebook's own)")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per cell (default 1800)")
    args = parser.parse_args(argv)

    paths = args.notebooks or sorted(NOTEBOOK_DIR.glob("*.ipynb"))
    for path in paths:
        if path.suffix != ".ipynb" or not path.is_file():
            parser.error(f"not a notebook file: {path}")
    for flag, value in (("--timesteps", args.timesteps), ("--deals", args.deals)):
        if value is not None and value < 1:
            parser.error(f"{flag} must be a positive integer, got {value}")

    # The kernel inherits this process's environment.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    if args.timesteps is not None:
        os.environ["EUCHRE_NB_TIMESTEPS"] = str(args.timesteps)
    if args.deals is not None:
        os.environ["EUCHRE_NB_DEALS"] = str(args.deals)

    for path in paths:
        start = time.time()
        print(f"{path.name}: running ...", flush=True)
        nb = execute(path, args.timeout)
        nbformat.write(nb, path)
        size = path.stat().st_size
        note = f"  (over {MAX_BYTES:,} bytes: make its outputs smaller)" if size > MAX_BYTES else ""
        print(f"{path.name}: stored with outputs in {time.time() - start:.0f} s, {size:,} bytes{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
