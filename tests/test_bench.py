"""``euchre bench`` runs end to end and reports every figure (no timing is asserted)."""

from __future__ import annotations

import json
from pathlib import Path

from euchre_env import bench


def test_bench_reports_every_figure(tmp_path: Path) -> None:
    """Tiny windows: each engine, environment and reference figure is a positive rate, also in the JSON."""
    out_file = tmp_path / "bench.json"
    out = bench.main(
        ["--seconds", "0.05", "--repeats", "1", "--batch-sizes", "1", "64", "--json", str(out_file)]
    )
    assert json.loads(out_file.read_text())["envs"].keys() == out["envs"].keys(), (
        "JSON differs from the return"
    )
    for variant in ("four_handed", "five_handed"):
        rates = out["engine"][variant]["decisions_per_s"]
        assert set(rates) == {1, 64} and all(r > 0 for r in rates.values()), f"{variant} engine: {rates}"
        envs = out["envs"][variant]
        assert set(envs) == {"aec_raw", "aec_wrapped", "gym_env", "vector_env_4096"}, (
            f"{variant}: {set(envs)}"
        )
        assert all(r > 0 for r in envs.values()), f"{variant} envs: {envs}"
    assert all(v is None or v > 0 for v in out["reference"].values()), out["reference"]
