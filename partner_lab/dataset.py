"""Labelled datasets for hidden-partner inference (``euchre dataset``, five-handed).

Hands of five-handed called-card Euchre are played by a mix of agents (each
seat of each table draws its agent from ``--agents``, e.g.
``heuristic=3,random=1,model:runs/x/model.safetensors=1``). Every decision
taken once the maker has declared (a called card, or alone) is recorded once
per *viewer*, i.e. per seat, with that seat's observation and the label: where
the maker's partner sits relative to the viewer.

Files (``--out DIR``):

* ``shard-00000.parquet``, ... : ``--shard-hands`` hands each (Apache Parquet,
  zstd). Shard ``k`` is a pure function of ``(--seed, k)`` and the agents, so
  shards can be made separately (``--shards``) and are remade identically.
* ``manifest.json``: the format, rules, agents, seed, hands, shards, the schema
  below and what made the data (command and commit).

Schema, one row per decision and viewer (:data:`COLUMNS`):

| column | type | meaning |
|---|---|---|
| ``hand`` | int64 | hand index in the dataset (shard * shard_hands + i) |
| ``seed`` | uint64 | the table seed that dealt the hand |
| ``decision`` | int16 | index of the decision in the hand (0 = first bid) |
| ``phase`` | int8 | ``actions.Phase`` of the decision |
| ``trick`` | int8 | trick 0..4 of the decision |
| ``actor`` | int8 | absolute seat that acts |
| ``action`` | int16 | the action it took (``actions`` ids) |
| ``viewer`` | int8 | absolute seat whose view the row is |
| ``maker`` | int8 | maker, relative to the viewer (0 = the viewer) |
| ``label`` | int8 | maker's partner relative to the viewer (0 = the viewer itself), -1 if the maker has none (alone, or the called card lies in the kitty) |
| ``public`` | bool | the partnership is public at this decision (the called card was played, or the maker went alone) |
| ``obs`` | fixed_size_binary | the viewer's observation (``encoding.encode``), bits packed little-endian (``np.packbits``) |
| ``agents`` | string | the agents at seats 0..P-1, comma separated |

Load with :func:`load_dataset` (a ``pyarrow.Table``) and :func:`to_arrays`
(numpy arrays, ``obs`` unpacked to ``(N, D)`` uint8). Example::

    euchre dataset --hands 20000 --agents heuristic=3,random=1 --out data/partner
    table = load_dataset("data/partner"); arrays = to_arrays(table)
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from euchre_env.encoding import encode, obs_layout
from euchre_env.rules import RulesConfig, make_rules
from euchre_env.state import State
from euchre_env.types import Policy

FORMAT = "euchre_env.partner_dataset/1"
COLUMNS = ("hand", "seed", "decision", "phase", "trick", "actor", "action", "viewer", "maker", "label",
           "public", "obs", "agents")  # fmt: skip
NO_PARTNER = -1  # label of a hand whose maker has no partner (alone)


def parse_mix(spec: str) -> dict[str, float]:
    """``"heuristic=3,random=1"`` -> ``{"heuristic": 3.0, "random": 1.0}`` (a bare name weighs 1).

    Agent names may contain ``:`` (``model:path``); the weight follows the last ``=``.

    Raises:
        ValueError: an empty spec, a bad or negative weight, or no positive weight.
    """
    mix: dict[str, float] = {}
    for part in (p.strip() for p in str(spec).split(",")):
        if not part:
            continue
        name, sep, value = part.rpartition("=") if "=" in part else (part, "", "")
        name = name.strip()
        try:
            weight = float(value) if sep else 1.0
        except ValueError:
            raise ValueError(f"--agents: weight of {name!r} must be a number, got {value!r}") from None
        if not np.isfinite(weight) or weight < 0:
            raise ValueError(f"--agents: weight of {name!r} must be a finite number >= 0, got {value!r}")
        mix[name] = mix.get(name, 0.0) + weight
    if not mix or sum(mix.values()) <= 0:
        raise ValueError(f"--agents needs at least one agent with a positive weight, got {spec!r}")
    return mix


def shard_seeds(seed: int, shard: int, hands: int) -> tuple[np.ndarray, np.random.Generator]:
    """Table seeds (uint64 (hands,)) and the agents' random generator of shard ``shard``."""
    seq = np.random.SeedSequence([int(seed), int(shard)])
    deal, agents = seq.spawn(2)
    return deal.generate_state(hands, np.uint64), np.random.default_rng(agents)


def draw_seats(
    mix: Mapping[str, float], hands: int, num_players: int, rng: np.random.Generator
) -> np.ndarray:
    """Int (hands, num_players): each seat's agent, an index into ``list(mix)``, drawn by the weights."""
    probs = np.array(list(mix.values()), dtype=float)
    return rng.choice(len(probs), size=(hands, num_players), p=probs / probs.sum())


class _Recorder:
    """``play_tables`` observer: the rows of every decision after the declaration, for every viewer."""

    def __init__(
        self, rules: RulesConfig, first_hand: int, seeds: np.ndarray, seat_agents: list[str]
    ) -> None:
        self.rules, self.first_hand, self.seeds, self.seat_agents = rules, first_hand, seeds, seat_agents
        self.decision = np.zeros(seeds.size, dtype=np.int16)
        self.parts: list[dict[str, np.ndarray]] = []

    def __call__(self, s: State, acts: np.ndarray) -> None:
        live = acts >= 0
        declared = live & ((s.called >= 0) | s.alone)
        rows = np.flatnonzero(declared)
        if rows.size:
            sub = s.take(rows)
            p = self.rules.num_players
            partner = sub.partner.astype(np.int64)
            public = (sub.revealed >= 0) | sub.alone
            for viewer in range(p):
                obs = encode(sub, viewer, self.rules, np.uint8)
                self.parts.append({
                    "hand": self.first_hand + rows.astype(np.int64),
                    "seed": self.seeds[rows],
                    "decision": self.decision[rows].copy(),
                    "phase": sub.phase.astype(np.int8),
                    "trick": np.minimum(sub.trick_no, 4).astype(np.int8),
                    "actor": sub.turn.astype(np.int8),
                    "action": acts[rows].astype(np.int16),
                    "viewer": np.full(rows.size, viewer, dtype=np.int8),
                    "maker": ((sub.maker.astype(np.int64) - viewer) % p).astype(np.int8),
                    "label": np.where(partner >= 0, (partner - viewer) % p, NO_PARTNER).astype(np.int8),
                    "public": public.astype(bool),
                    "obs": np.packbits(obs, axis=1, bitorder="little"),
                    "agents_idx": rows,
                })  # fmt: skip
        self.decision[live] += 1


def play_shard(
    rules: RulesConfig, mix: Mapping[str, float], policies: Mapping[str, Policy], seed: int, shard: int,
    hands: int, first_hand: int,
) -> Any:  # fmt: skip
    """Play one shard's hands and return its rows as a ``pyarrow.Table`` (schema: module docstring)."""
    import pyarrow as pa

    from arena.evaluate import play_tables

    names = list(mix)
    seeds, rng = shard_seeds(seed, shard, hands)
    slots = draw_seats(mix, hands, rules.num_players, rng)
    seat_agents = [",".join(names[k] for k in row) for row in slots]
    rec = _Recorder(rules, first_hand, seeds, seat_agents)
    play_tables(rules, seeds, slots, [policies[n] for n in names], rng, names=names, observer=rec)
    cols = {k: np.concatenate([part[k] for part in rec.parts]) for k in rec.parts[0]} if rec.parts else None
    if cols is None:
        return pa.table({c: [] for c in COLUMNS})
    order = np.lexsort((cols["viewer"], cols["decision"], cols["hand"]))  # hand, then decision, then viewer
    cols = {k: v[order] for k, v in cols.items()}
    width = cols["obs"].shape[1]
    arrays = {k: pa.array(cols[k]) for k in COLUMNS if k not in ("obs", "agents")}
    arrays["obs"] = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(width), len(cols["obs"]), [None, pa.py_buffer(np.ascontiguousarray(cols["obs"]).tobytes())]
    )
    agent_col = pa.array([seat_agents[i] for i in cols["agents_idx"]]).dictionary_encode()
    arrays["agents"] = agent_col
    return pa.table({c: arrays[c] for c in COLUMNS})


def write_dataset(
    out: Path | str, mix: Mapping[str, float], hands: int, shard_hands: int = 5000, seed: int = 0,
    shards: Sequence[int] | None = None, overwrite: bool = False, command: str = "",
    rules: RulesConfig | None = None, progress: bool = False,
) -> Path:  # fmt: skip
    """Write the dataset (module docstring) and return its folder.

    Raises:
        ValueError: a bad argument (named), an unknown agent, or an ``out`` that
            already holds a dataset while ``overwrite`` is false.
    """
    import pyarrow.parquet as pq

    from agents import make_agent
    from training.runs import provenance, write_json

    rules = rules or make_rules("five_handed")
    if rules.variant != "five_handed":
        raise ValueError(
            f"partner datasets are five-handed (the four-handed partner is not hidden), got {rules.variant!r}"
        )
    if rules.episode != "hand":
        rules = make_rules(rules, episode="hand")
    for name, value in (("hands", hands), ("shard_hands", shard_hands)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    n_shards = -(-int(hands) // int(shard_hands))
    todo = list(range(n_shards)) if shards is None else sorted({int(k) for k in shards})
    if not todo:
        raise ValueError("shards must name at least one shard (None: all of them), got none")
    bad = [k for k in todo if not 0 <= k < n_shards]
    if bad:
        raise ValueError(
            f"shards must be in 0..{n_shards - 1} ({hands} hands, {shard_hands} per shard), got {bad}"
        )
    policies = {name: make_agent(name, rules) for name in mix}
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"out {str(folder)!r} is a file, not a folder")
    manifest_path = folder / "manifest.json"
    if manifest_path.is_file() and not overwrite:
        old = json.loads(manifest_path.read_text())
        same = {k: old.get(k) for k in ("seed", "hands", "shard_hands", "agents")} == {
            "seed": seed, "hands": hands, "shard_hands": shard_hands, "agents": dict(mix)}  # fmt: skip
        if not same or any((folder / _shard_name(k)).exists() for k in todo):
            raise ValueError(
                f"out {str(folder)!r} already holds a dataset: pass --overwrite to replace it "
                "(or add missing --shards of the same dataset)"
            )
    folder.mkdir(parents=True, exist_ok=True)
    args = argparse.Namespace(seed=seed, variant=rules.variant)
    manifest = {
        "format": FORMAT, "variant": rules.variant, "rules": _rules_dict(rules), "agents": dict(mix),
        "seed": int(seed), "hands": int(hands), "shard_hands": int(shard_hands), "shards": n_shards,
        "obs_size": obs_layout(rules).size, "columns": list(COLUMNS), "no_partner_label": NO_PARTNER,
        "provenance": provenance(args, command or "partner_lab.dataset.write_dataset"),
    }  # fmt: skip
    manifest["provenance"]["algo"] = "dataset"
    write_json(manifest_path, manifest)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(todo), unit="shard", desc="dataset")
    for k in todo:
        first = k * int(shard_hands)
        n = min(int(shard_hands), int(hands) - first)
        table = play_shard(rules, mix, policies, seed, k, n, first)
        path = folder / _shard_name(k)
        tmp = path.with_name(path.name + ".tmp")
        pq.write_table(table, tmp, compression="zstd")
        tmp.replace(path)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return folder


def _shard_name(k: int) -> str:
    return f"shard-{k:05d}.parquet"


def _rules_dict(rules: RulesConfig) -> dict[str, Any]:
    import dataclasses

    return dataclasses.asdict(rules)


def load_dataset(
    path: Path | str, columns: Sequence[str] | None = None, shards: Sequence[int] | None = None
) -> Any:
    """The rows of a dataset folder (all shards present, or ``shards``) as one ``pyarrow.Table``.

    Raises:
        ValueError: not a dataset folder, an unknown column, or a missing shard.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = Path(path)
    manifest_path = folder / "manifest.json"
    if not manifest_path.is_file():
        raise ValueError(f"{str(folder)!r} is not a dataset folder (no manifest.json)")
    manifest = json.loads(manifest_path.read_text())
    if manifest.get("format") != FORMAT:
        raise ValueError(f"{manifest_path}: format must be {FORMAT!r}, got {manifest.get('format')!r}")
    unknown = sorted(set(columns or ()) - set(COLUMNS))
    if unknown:
        raise ValueError(f"unknown column(s) {unknown}; the columns are {list(COLUMNS)}")
    wanted = range(manifest["shards"]) if shards is None else shards
    files = [folder / _shard_name(int(k)) for k in wanted]
    missing = [f.name for f in files if not f.is_file()]
    if shards is not None and missing:
        raise ValueError(f"{str(folder)!r} lacks shard file(s) {missing}")
    files = [f for f in files if f.is_file()]
    if not files:
        raise ValueError(f"{str(folder)!r} holds no shard files yet")
    tables = [pq.read_table(f, columns=list(columns) if columns else None) for f in files]
    return pa.concat_tables(tables, promote_options="permissive")


def to_arrays(table: Any, obs_size: int | None = None) -> dict[str, np.ndarray]:
    """Numpy columns of a loaded table; ``obs`` unpacked to ``(N, obs_size)`` uint8 (0/1).

    ``obs_size`` defaults to the five-handed observation size.
    """
    out: dict[str, np.ndarray] = {}
    for name in table.column_names:
        col = table.column(name).combine_chunks()
        if name == "obs":
            width = col.type.byte_width
            raw = np.frombuffer(
                col.buffers()[1], dtype=np.uint8, count=len(col) * width, offset=col.offset * width
            )
            size = obs_size or obs_layout(make_rules("five_handed")).size
            out[name] = np.unpackbits(raw.reshape(len(col), width), axis=1, count=size, bitorder="little")
        elif name == "agents":
            out[name] = np.asarray(col.to_pylist(), dtype=object)
        else:
            out[name] = col.to_numpy(zero_copy_only=False)
    return out


def _parse_shards(spec: str) -> list[int] | None:
    """``"0-3,7"`` -> ``[0, 1, 2, 3, 7]``; ``""`` -> None (all)."""
    if not spec:
        return None
    out: list[int] = []
    for part in spec.split(","):
        lo, sep, hi = part.strip().partition("-")
        try:
            low, high = int(lo), int(hi if sep else lo)
        except ValueError:
            raise ValueError(f"--shards must look like '0-3,7', got {spec!r}") from None
        if low < 0 or high < low:
            raise ValueError(f"--shards: {part.strip()!r} in {spec!r} is not a range low-high of shards >= 0")
        out.extend(range(low, high + 1))
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``euchre dataset``."""
    parser.add_argument("--out", required=True, help="dataset folder")
    parser.add_argument("--hands", "--deals", dest="hands", type=int, default=10000, help="hands to play (default 10000)")
    parser.add_argument("--agents", default="heuristic", help="agent mix with weights, each seat drawn from it "
                        "per table (default 'heuristic'), e.g. 'heuristic=3,random=1'")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents (default 0)")
    parser.add_argument("--shard-hands", type=int, default=5000, help="hands per shard file (default 5000)")
    parser.add_argument("--shards", default="", help="only these shards, e.g. '0-3,7' (default all)")
    parser.add_argument("--overwrite", action="store_true", help="replace a dataset already in --out")
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point (``euchre dataset``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="euchre dataset", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        mix = parse_mix(args.agents)
        shards = _parse_shards(args.shards)
        folder = write_dataset(args.out, mix, args.hands, args.shard_hands, args.seed, shards,
                               args.overwrite, command="euchre dataset " + shlex.join(argv),
                               progress=args.progress)  # fmt: skip
    except ValueError as err:
        parser.error(str(err))
    table = load_dataset(folder, columns=["hand"])
    print(
        f"wrote {table.num_rows} rows ({len(np.unique(table.column('hand').to_numpy()))} hands) to {folder}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
