"""Model files are data, never code: loading a model never unpickles anything from it.

Crafted SB3 zips (a pickle payload in the ``data`` JSON or in ``policy.pth``)
are refused or loaded safely and their payload never runs; broken
``.safetensors`` files are refused with a ``ValueError`` naming the problem;
the converter keeps every action; SB3's full loader needs ``trust=True``.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import os
import pathlib
import pickle
import re
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import save_file
from sb3_contrib import MaskablePPO
from stable_baselines3.common import save_util

from agents import make_agent
from agents.neural import META_KEY, NeuralAgent, PolicyConfig, actor_for, build_mlp, load_policy, save_policy
from agents.sb3_policy import (
    MODELS_DIR,
    SB3Policy,
    convert_to_safetensors,
    load_actor_into,
    pickle_globals,
    read_sb3_zip,
    resolve_model_path,
    rules_metadata,
)
from euchre_env import engine, make_rules
from euchre_env.encoding import encode, obs_layout
from euchre_env.envs.sb3_vec_env import EuchreSB3VecEnv

torch.set_num_threads(1)  # small networks: extra threads only contend on a shared machine


class Payload:
    """Unpickling this creates ``marker`` (``pathlib.Path.touch``): proof that code from a file ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return pathlib.Path.touch, (pathlib.Path(self.marker),)


def save_sb3(path: Path, variant: str = "four_handed", **policy_kwargs: object) -> Path:
    """A small untrained MaskablePPO saved as ``training.sb3.train`` saves it (rules in ``euchre_rules``)."""
    kwargs = {"net_arch": [16], **policy_kwargs}
    model = MaskablePPO(
        "MlpPolicy",
        EuchreSB3VecEnv(2, variant, seed=0),
        n_steps=8,
        batch_size=16,
        policy_kwargs=kwargs,
        seed=0,
    )
    model.euchre_rules = rules_metadata(make_rules(variant))
    model.save(path)
    return path


@pytest.fixture(scope="module")
def sb3_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved four-handed SB3 zip, the base of the crafted files."""
    return save_sb3(tmp_path_factory.mktemp("sb3") / "model.zip")


def rewrite_zip(src: Path, dst: Path, **entries: bytes) -> Path:
    """A copy of the zip ``src`` with some entries replaced (``data=...``, ``policy_pth=...``)."""
    replace = {k.replace("_pth", ".pth"): v for k, v in entries.items()}
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for name in zin.namelist():
            zout.writestr(name, replace.get(name, zin.read(name)))
    return dst


def random_inputs(size: int, rows: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, size) float32 0/1 observations and (rows, 93) masks with at least one legal action per row."""
    rng = np.random.default_rng(seed)
    obs = (rng.random((rows, size)) < 0.25).astype(np.float32)
    masks = rng.random((rows, 93)) < 0.15
    masks[np.arange(rows), rng.integers(0, 93, rows)] = True
    return obs, masks


def game_inputs(rules: object, tables: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and legal masks of the acting seats over whole random hands."""
    rng = np.random.default_rng(seed)
    s = engine.init_state(rules, tables, rng=rng)
    obs, masks = [], []
    while not engine.is_done(s).all():
        live = np.flatnonzero(~engine.is_done(s))
        obs.append(encode(s.take(live), s.turn[live], rules, np.float32))
        masks.append(engine.legal_action_mask(s, rules)[live])
        s = engine.step(s, engine.sample_legal(s, rules, rng), rules)
    return np.concatenate(obs), np.concatenate(masks)


# ---------------------------------------------------------------------------------------------- (a)


@pytest.mark.parametrize(
    "key", ["policy_kwargs", "policy_class", "observation_space", "learning_rate", "extra"]
)
def test_pickle_in_the_data_json_never_runs(sb3_zip: Path, tmp_path: Path, key: str) -> None:
    """A ``":serialized:"`` payload anywhere in ``data`` is refused or ignored; the marker never appears."""
    marker = tmp_path / "ran"
    blob = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    data = json.loads(zipfile.ZipFile(sb3_zip).read("data"))
    data[key] = {":type:": "<class 'dict'>", ":serialized:": blob}
    evil = rewrite_zip(sb3_zip, tmp_path / "evil.zip", data=json.dumps(data).encode())
    pickle.loads(base64.b64decode(blob))  # the payload is live: unpickled, it creates the marker
    assert marker.is_file(), "the test payload does not work"
    marker.unlink()
    try:
        agent = make_agent(f"model:{evil}", make_rules("four_handed"))
    except ValueError as err:
        assert key in ("policy_kwargs", "policy_class"), f"refused a harmless-to-us entry {key}: {err}"
        assert "trust=True" in str(err) and "pathlib" in str(err), f"unclear refusal: {err}"
    else:
        assert key not in ("policy_kwargs", "policy_class"), f"loaded a policy whose {key} imports pathlib"
        assert isinstance(agent, SB3Policy)
    assert not marker.exists(), f"loading the model ran the pickle in data[{key!r}]"


@pytest.mark.parametrize("kind", ["raw_pickle", "torch_save"])
def test_pickle_in_policy_pth_is_refused(sb3_zip: Path, tmp_path: Path, kind: str) -> None:
    """``policy.pth`` holding an object with a payload: torch's weights_only load refuses it, nothing runs."""
    marker = tmp_path / "ran"
    if kind == "raw_pickle":
        payload = pickle.dumps({"action_net.weight": Payload(marker)}, protocol=2)
    else:
        buffer = io.BytesIO()
        torch.save({"action_net.weight": Payload(marker)}, buffer)
        payload = buffer.getvalue()
    evil = rewrite_zip(sb3_zip, tmp_path / "evil.zip", policy_pth=payload)
    with pytest.raises(ValueError, match=r"policy\.pth is not plain tensor data"):
        make_agent(f"model:{evil}", make_rules("four_handed"))
    with pytest.raises(ValueError, match=r"policy\.pth is not plain tensor data"):
        convert_to_safetensors(evil, tmp_path / "out.safetensors")
    assert not marker.exists(), "loading the model ran the pickle in policy.pth"


def test_sb3_zip_that_does_not_fit_is_refused(sb3_zip: Path, tmp_path: Path) -> None:
    """Unknown tensors, wrong shapes, other policy classes, missing entries: clear ValueErrors."""
    rules = make_rules("four_handed")
    parts = read_sb3_zip(sb3_zip)
    assert (parts.policy_class, parts.activation, parts.obs_size, parts.pi, parts.vf) == (
        "maskable",
        "tanh",
        636,
        [16],
        [16],
    ), "the base zip is not read as expected"
    state = torch.load(io.BytesIO(zipfile.ZipFile(sb3_zip).read("policy.pth")), weights_only=True)
    data = json.loads(zipfile.ZipFile(sb3_zip).read("data"))

    def pth(weights: dict[str, torch.Tensor]) -> bytes:
        buffer = io.BytesIO()
        torch.save(weights, buffer)
        return buffer.getvalue()

    extra = rewrite_zip(
        sb3_zip, tmp_path / "extra.zip", policy_pth=pth({**state, "log_std": torch.zeros(93)})
    )
    with pytest.raises(ValueError, match=r"unknown tensors \['log_std'\]"):
        SB3Policy(extra, rules)
    wide = {**state, "action_net.weight": torch.zeros(94, 16), "action_net.bias": torch.zeros(94)}
    with pytest.raises(ValueError, match="tensor shapes do not fit"):
        SB3Policy(rewrite_zip(sb3_zip, tmp_path / "wide.zip", policy_pth=pth(wide)), rules)
    ints = {**state, "value_net.bias": torch.zeros(1, dtype=torch.int64)}
    with pytest.raises(ValueError, match="not floating point"):
        SB3Policy(rewrite_zip(sb3_zip, tmp_path / "ints.zip", policy_pth=pth(ints)), rules)
    other = {**data, "policy_class": {":serialized:": base64.b64encode(pickle.dumps(dict)).decode()}}
    with pytest.raises(ValueError, match=r"policy class \['builtins.dict'\] is not one of"):
        SB3Policy(rewrite_zip(sb3_zip, tmp_path / "cls.zip", data=json.dumps(other).encode()), rules)
    with pytest.raises(ValueError, match="'data' entry is not JSON"):
        SB3Policy(rewrite_zip(sb3_zip, tmp_path / "json.zip", data=b"\x80\x04K\x01."), rules)
    with zipfile.ZipFile(tmp_path / "empty.zip", "w") as z:
        z.writestr("data", "{}")
    with pytest.raises(ValueError, match=r"not a stable-baselines3 model zip \(no \['policy.pth'\]"):
        SB3Policy(tmp_path / "empty.zip", rules)
    (tmp_path / "junk.zip").write_bytes(b"PK not really")
    with pytest.raises(ValueError, match="is not a stable-baselines3 model zip"):
        make_agent(f"model:{tmp_path / 'junk.zip'}", rules)


def test_pickle_globals_reads_the_real_stack() -> None:
    """``pickle_globals`` names what ``STACK_GLOBAL`` really imports, even behind decoy strings."""
    assert pickle_globals(pickle.dumps({"activation_fn": torch.nn.ReLU})) == [
        ("torch.nn.modules.activation", "ReLU")
    ]
    # 'posix' 'system' 'torch.nn...' 'ReLU' POP POP STACK_GLOBAL imports posix.system, not ReLU
    decoy = b"\x80\x04\x8c\x05posix\x8c\x06system\x8c\x1btorch.nn.modules.activation\x8c\x04ReLU00\x93."
    assert pickle_globals(decoy) == [("posix", "system")]
    assert pickle_globals(b"\x80\x04\x82\x01.") == [("?", "EXT1")], "extension codes cannot be named"
    with pytest.raises(ValueError, match="not a well-formed pickle"):
        pickle_globals(b"\x80\x04\x93.")


# ---------------------------------------------------------------------------------------------- (b)


def _config(**changes: object) -> str:
    base = PolicyConfig(rules=rules_metadata(make_rules("four_handed")), obs_size=636, hidden=[8])
    return json.dumps({**json.loads(base.to_json()), **changes})


def _tensors(hidden: int = 8, obs: int = 636) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in build_mlp([obs, hidden, 93]).state_dict().items()}


@pytest.mark.parametrize(
    ("metadata", "tensors", "message"),
    [
        (None, _tensors(), "has no 'euchre_env' config in its metadata"),
        ({"other": "x"}, _tensors(), "has no 'euchre_env' config in its metadata"),
        ({META_KEY: "{not json"}, _tensors(), "its config is not JSON"),
        ({META_KEY: _config(format="pytorch")}, _tensors(), "not a euchre-env policy"),
        ({META_KEY: _config(version=2)}, _tensors(), "version 2 is not 1"),
        ({META_KEY: _config(hidden=[])}, _tensors(), "'hidden' must be a non-empty list"),
        ({META_KEY: _config(activation="gelu")}, _tensors(), "'activation' must be one of"),
        ({META_KEY: _config(num_actions=94)}, _tensors(), "'num_actions' 93"),
        ({META_KEY: _config(rules={"variant": "six_handed"})}, _tensors(), "six_handed"),
        ({META_KEY: _config(suit_symmetry="yes")}, _tensors(), "'suit_symmetry' must be true or false"),
        ({META_KEY: _config(sort_other_colour=True)}, _tensors(), "true only with 'suit_symmetry'"),
        ({META_KEY: _config(sort_other_colour=1, suit_symmetry=True)}, _tensors(), "got 1 with"),
        ({META_KEY: _config(features="voids")}, _tensors(), "'features' must be one of"),
        ({META_KEY: _config(features="derived")}, _tensors(), "do not match the network of its config"),
        ({META_KEY: _config()}, _tensors(hidden=9), "do not match the network of its config"),
        ({META_KEY: _config()}, {**_tensors(), "extra": torch.zeros(1)}, "do not match the network"),
        (
            {META_KEY: _config()},
            {k: v.double() for k, v in _tensors().items()},
            "every tensor must be float32",
        ),
    ],
)
def test_bad_safetensors_files_are_clear_errors(
    tmp_path: Path, metadata: dict[str, str] | None, tensors: dict[str, torch.Tensor], message: str
) -> None:
    """A model file with a bad or missing config or tensors that do not fit it: ValueError saying which."""
    path = tmp_path / "bad.safetensors"
    save_file(tensors, str(path), metadata=metadata)
    with pytest.raises(ValueError, match=message):
        make_agent(f"model:{path}", make_rules("four_handed"))


def test_garbage_and_missing_safetensors_files(tmp_path: Path) -> None:
    """Bytes that are no safetensors file, an empty file and a missing file are refused by name."""
    rules = make_rules("four_handed")
    for name, payload in (("garbage", b"\x00\xff" * 100), ("empty", b""), ("pickle", pickle.dumps([1, 2]))):
        path = tmp_path / f"{name}.safetensors"
        path.write_bytes(payload)
        with pytest.raises(ValueError, match=f"{name}.safetensors' is not a safetensors model file"):
            make_agent(f"model:{path}", rules)
    with pytest.raises(ValueError, match="no model file"):
        make_agent(f"model:{tmp_path / 'missing.safetensors'}", rules)


def test_model_of_other_rules_is_refused(tmp_path: Path) -> None:
    """A four-handed model file for five-handed rules or other points: ValueError naming the mismatch."""
    path = save_policy(tmp_path / "m.safetensors", build_mlp([636, 8, 93]), PolicyConfig(
        rules=rules_metadata(make_rules("four_handed")), obs_size=636, hidden=[8]))  # fmt: skip
    with pytest.raises(ValueError, match="trained for 'four_handed'"):
        make_agent(f"model:{path}", make_rules("five_handed"))
    with pytest.raises(ValueError, match="observations of size 636"):
        make_agent(f"model:{path}", make_rules("four_handed", points_to_win=15))


# ---------------------------------------------------------------------------------------------- (c)


@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_save_then_load_gives_the_same_weights_and_actions(tmp_path: Path, activation: str) -> None:
    """``save_policy`` then ``load_policy``: identical tensors and config; the agent acts identically."""
    rules = make_rules("five_handed")
    size = obs_layout(rules).size
    torch.manual_seed(3)
    actor = build_mlp([size, 24, 12, 93], activation)
    config = PolicyConfig(rules=rules_metadata(rules), obs_size=size, hidden=[24, 12], activation=activation,
                          provenance={"test": "round trip"})  # fmt: skip
    path = save_policy(tmp_path / "p.safetensors", actor, config)
    assert not list(tmp_path.glob("*.tmp")), "the temporary file was left behind"
    loaded, got = load_policy(path)
    assert got == config, f"config changed: {got} != {config}"
    for key, value in actor.state_dict().items():
        assert torch.equal(loaded.state_dict()[key], value), f"tensor {key} changed"
    obs, masks = random_inputs(size, 2000, seed=4)
    a = NeuralAgent((actor, config), rules).act(obs, masks, np.random.default_rng(0))
    b = make_agent(f"model:{path}", rules).act(obs, masks, np.random.default_rng(0))
    assert np.array_equal(a, b), "the loaded model acts differently"
    assert masks[np.arange(len(a)), a].all(), "illegal actions"


# ---------------------------------------------------------------------------------------------- (d)


@pytest.mark.parametrize(
    ("variant", "policy_kwargs"),
    [
        ("four_handed", {"net_arch": [32, 16], "activation_fn": torch.nn.ReLU}),
        ("five_handed", {"net_arch": {"pi": [24, 24], "vf": [8]}, "activation_fn": torch.nn.ReLU}),
        ("four_handed", {"net_arch": [16]}),  # SB3's default activation: Tanh
    ],
)
def test_converted_model_acts_exactly_like_its_zip(tmp_path: Path, variant: str, policy_kwargs: dict) -> None:
    """``convert_to_safetensors``: the NeuralAgent takes the SB3 zip's action on every observation."""
    rules = make_rules(variant)
    src = save_sb3(tmp_path / "model.zip", variant, **policy_kwargs)
    dst = convert_to_safetensors(src, tmp_path / "model.safetensors", provenance={"from": "test"})
    zipped, converted = make_agent(f"model:{src}", rules), make_agent(f"model:{dst}", rules)
    assert isinstance(zipped, SB3Policy) and isinstance(converted, NeuralAgent)
    expected = "tanh" if "activation_fn" not in policy_kwargs else "relu"
    assert converted.config.activation == expected and converted.config.provenance == {"from": "test"}
    for obs, masks in (random_inputs(obs_layout(rules).size, 3000, 5), game_inputs(rules, 64, 6)):
        np.testing.assert_array_equal(converted.logits(obs), zipped.logits(obs))
        rng = np.random.default_rng(0)
        assert np.array_equal(converted.act(obs, masks, rng), zipped.act(obs, masks, rng))


def test_only_data_files_are_shipped() -> None:
    """agents/models holds the two shipped models as safetensors files (weights and JSON), nothing that runs."""
    assert sorted(p.name for p in MODELS_DIR.iterdir()) == [
        "five_handed.safetensors",
        "four_handed.safetensors",
    ]
    for variant in ("five_handed", "four_handed"):
        assert resolve_model_path(variant).suffix == ".safetensors"


def test_converter_refuses_what_it_cannot_express(tmp_path: Path) -> None:
    """An actor without hidden layers, or a zip without rules (unless rules are given)."""
    flat = save_sb3(tmp_path / "flat.zip", net_arch=[])
    with pytest.raises(ValueError, match="no hidden layer"):
        convert_to_safetensors(flat, tmp_path / "flat.safetensors")
    plain = MaskablePPO("MlpPolicy", EuchreSB3VecEnv(2, "four_handed"), n_steps=8, batch_size=16,
                        policy_kwargs={"net_arch": [8]})  # fmt: skip
    plain.save(tmp_path / "plain.zip")
    with pytest.raises(ValueError, match="records no rules"):
        convert_to_safetensors(tmp_path / "plain.zip", tmp_path / "plain.safetensors")
    out = convert_to_safetensors(
        tmp_path / "plain.zip", tmp_path / "p.safetensors", rules=make_rules("four_handed")
    )
    assert load_policy(out)[1].rules["variant"] == "four_handed"


def test_safetensors_actor_loads_into_an_sb3_policy(tmp_path: Path) -> None:
    """``load_actor_into`` (``--init-model x.safetensors``) copies the actor; other shapes are refused."""
    rules = make_rules("four_handed")
    src = save_sb3(tmp_path / "a.zip", net_arch=[16], activation_fn=torch.nn.ReLU, ortho_init=False)
    dst = convert_to_safetensors(src, tmp_path / "a.safetensors")
    fresh = MaskablePPO("MlpPolicy", EuchreSB3VecEnv(2, "four_handed"), n_steps=8, batch_size=16,
                        policy_kwargs={"net_arch": [16], "activation_fn": torch.nn.ReLU}, seed=9)  # fmt: skip
    load_actor_into(fresh.policy, dst, rules)
    obs, _ = random_inputs(obs_layout(rules).size, 500, 7)
    source = SB3Policy(src, rules).policy  # both as bare modules: neither hides the running scores
    np.testing.assert_array_equal(
        SB3Policy(fresh.policy, rules).logits(obs), SB3Policy(source, rules).logits(obs)
    )
    other = MaskablePPO("MlpPolicy", EuchreSB3VecEnv(2, "four_handed"), n_steps=8, batch_size=16,
                        policy_kwargs={"net_arch": [32]})  # fmt: skip
    with pytest.raises(ValueError, match=r"636-16-93 \(relu\) does not fit the policy's 636-32-93 \(tanh\)"):
        load_actor_into(other.policy, dst, rules)
    with pytest.raises(ValueError, match="trained for 'four_handed'"):
        load_actor_into(other.policy, dst, make_rules("five_handed"))
    sym = tmp_path / "sym.safetensors"
    actor, config = load_policy(dst)
    save_policy(sym, actor, dataclasses.replace(config, suit_symmetry=True))
    with pytest.raises(ValueError, match=r"suit-symmetric .* --no-suit-symmetry"):
        load_actor_into(fresh.policy, sym, rules)
    derived = dataclasses.replace(config, features="derived")
    save_policy(tmp_path / "derived.safetensors", actor_for(derived), derived)
    with pytest.raises(ValueError, match=r"sees 'derived' features .* without --features"):
        load_actor_into(fresh.policy, tmp_path / "derived.safetensors", rules)


# ---------------------------------------------------------------------------------------------- (e)


def test_full_loader_needs_trust(sb3_zip: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only ``trust=True`` reaches SB3's unpickling loader: a custom activation is refused without it,
    and a payload in ``data`` runs with it (which is why it is opt-in)."""
    rules = make_rules("four_handed")
    leaky = save_sb3(tmp_path / "leaky.zip", activation_fn=torch.nn.LeakyReLU)
    with pytest.raises(ValueError, match=r"LeakyReLU'\], which this loader does not know; .*trust=True"):
        make_agent(f"model:{leaky}", rules)
    trusted = make_agent(f"model:{leaky}", rules, trust=True)
    assert isinstance(trusted.policy.mlp_extractor.policy_net[1], torch.nn.LeakyReLU)

    marker = tmp_path / "ran"
    data = json.loads(zipfile.ZipFile(sb3_zip).read("data"))
    data["extra"] = {":serialized:": base64.b64encode(pickle.dumps(Payload(marker))).decode()}
    evil = rewrite_zip(sb3_zip, tmp_path / "evil.zip", data=json.dumps(data).encode())
    calls = []
    real = save_util.load_from_zip_file
    monkeypatch.setattr(save_util, "load_from_zip_file", lambda *a, **k: calls.append(a) or real(*a, **k))
    SB3Policy(evil, rules)
    assert not calls and not marker.exists(), "the safe path used SB3's loader"
    SB3Policy(evil, rules, trust=True)
    assert calls and marker.is_file(), "trust=True should use SB3's loader (and so run the file's pickle)"


def test_model_names_resolve_to_both_kinds(tmp_path: Path) -> None:
    """Bare names prefer ``.safetensors``; the error lists the shipped models of both kinds."""
    rules = make_rules("four_handed")
    assert resolve_model_path("four_handed") == MODELS_DIR / "four_handed.safetensors"
    assert isinstance(make_agent("trained", rules), NeuralAgent)
    assert make_agent("trained", rules).name == "trained"
    src = save_sb3(tmp_path / "both.zip")
    convert_to_safetensors(src, tmp_path / "both.safetensors")
    assert resolve_model_path(tmp_path / "both") == tmp_path / "both.safetensors"
    assert isinstance(make_agent(f"model:{tmp_path / 'both.zip'}", rules), SB3Policy)
    with pytest.raises(
        ValueError, match=r"shipped models: \['five_handed.safetensors', 'four_handed.safetensors'\]"
    ):
        resolve_model_path("nowhere")


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_each_shipped_model_records_the_command_seed_and_commit_that_made_it(variant: str) -> None:
    """Each shipped model came from one ``euchre train`` command, which its file records (README: how to remake)."""
    agent = make_agent(f"model:{variant}", make_rules(variant))
    assert isinstance(agent, NeuralAgent) and agent.config.prior == "heuristic"
    prov = agent.config.provenance
    assert prov["command"].startswith(f"euchre train --variant {variant}") and prov["seed"] == 1
    assert len(prov["commit"].split()[0]) == 40 and prov["learner_decisions"] > 0
    assert prov["evaluation"].startswith(f"euchre eval --variant {variant}")


def test_the_shipped_four_handed_model_beats_the_heuristic_outside_its_interval() -> None:
    """What the README promises of ``model:four_handed``, on deals used for neither training nor selection."""
    from arena.evaluate import evaluate

    result = evaluate({"model": "model:four_handed", "heuristic": "heuristic"}, make_rules("four_handed"), 2000,
                      seed=777)  # fmt: skip
    adv = result.matchups[0].advantage
    assert adv.mean - adv.ci95 > 0.05, f"model - heuristic = {adv}"


def test_the_shipped_five_handed_model_beats_the_heuristic_outside_its_interval() -> None:
    """What the README promises of ``model:five_handed``: ahead in relative points (a seat's points minus its
    table's mean, what five individual scores make count) and in games won, on fresh deals and games."""
    from arena.evaluate import evaluate

    result = evaluate({"model": "model:five_handed", "heuristic": "heuristic"}, make_rules("five_handed"), 2000,
                      seed=777, num_games=300)  # fmt: skip
    m = result.matchups[0]
    assert m.relative.low > 0.03, f"model - heuristic relative points = {m.relative}"
    assert m.won.low > 0.05, f"games won, model - heuristic = {m.won}"


# ---------------------------------------------------------------------------------------------- (f)


def _tried(message: str) -> list[str]:
    """The paths a missing-model error says it tried."""
    found = re.search(r"\(tried (.*?)\)\. ", message)
    assert found, f"the message does not list the paths tried: {message}"
    return found.group(1).split(", ")


@pytest.mark.parametrize(
    ("name", "tried"),
    [
        ("nope.safetensors", ["nope.safetensors", str(MODELS_DIR / "nope.safetensors")]),
        ("nope.zip", ["nope.zip", str(MODELS_DIR / "nope.zip")]),
        ("nope", ["nope", "nope.safetensors", "nope.zip",
                  *(str(MODELS_DIR / f"nope{s}") for s in ("", ".safetensors", ".zip"))]),
        ("runs/nope.safetensors", ["runs/nope.safetensors"]),
        ("runs/nope", ["runs/nope", "runs/nope.safetensors", "runs/nope.zip"]),
    ],
)  # fmt: skip
def test_missing_model_error_lists_each_candidate_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, tried: list[str]
) -> None:
    """``model:nope.safetensors``: one error listing each distinct path tried once (no suffix added to a
    name that has one), the accepted forms, and the shipped models."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError) as err:
        make_agent(f"model:{name}", make_rules("four_handed"))
    message = str(err.value)
    assert message.startswith(f"no model file {name!r}"), message
    assert _tried(message) == tried, message
    assert ".safetensors.safetensors" not in message and ".safetensors.zip" not in message
    assert ".zip.zip" not in message and ".zip.safetensors" not in message
    assert "path to a .safetensors file or a stable-baselines3 .zip" in message
    assert "without its suffix" in message and "shipped model (five_handed, four_handed)" in message
    assert "shipped models: ['five_handed.safetensors', 'four_handed.safetensors']" in message


def test_absolute_missing_model_path_is_tried_once(tmp_path: Path) -> None:
    """An absolute path is looked for where it points, once, not also in the shipped models' folder."""
    missing = tmp_path / "runs" / "model.safetensors"
    with pytest.raises(ValueError) as err:
        resolve_model_path(missing)
    assert _tried(str(err.value)) == [str(missing)]
    with pytest.raises(ValueError) as err:
        resolve_model_path(tmp_path / "model")
    assert _tried(str(err.value)) == [str(tmp_path / f"model{s}") for s in ("", ".safetensors", ".zip")]


# ---------------------------------------------------------------------------------------------- (g)


def _crafted(path: Path, tensors: dict[str, torch.Tensor] | None = None, **changes: object) -> Path:
    """A small model file (the tensors of a 636-8-93 MLP unless given) whose config has ``changes``."""
    save_file(_tensors() if tensors is None else tensors, str(path), metadata={META_KEY: _config(**changes)})
    return path


@pytest.mark.parametrize(
    ("changes", "tensors", "message"),
    [
        ({"hidden": [10**6, 10**6]}, None, r"'hidden'\[0\] must be from 1 to 65536, got 1000000\b"),
        ({"hidden": [8, 10**30]}, None, r"'hidden'\[1\] must be from 1 to 65536, got 1000000000000000000000000000000"),
        ({"hidden": [-8]}, None, r"'hidden'\[0\] must be from 1 to 65536, got -8"),
        ({"hidden": [0]}, None, r"'hidden'\[0\] must be from 1 to 65536, got 0"),
        ({"hidden": ["8"]}, None, r"'hidden'\[0\] must be an integer, got '8' \(str\)"),
        ({"hidden": [8.0]}, None, r"'hidden'\[0\] must be an integer, got 8\.0 \(float\)"),
        ({"hidden": [True]}, None, r"'hidden'\[0\] must be an integer, got True \(bool\)"),
        ({"hidden": [8] * 65}, None, r"'hidden' must be a non-empty list of at most 64 layer sizes, got 65 entries"),
        ({"hidden": "8"}, None, r"'hidden' must be a non-empty list .* got '8'"),
        ({"obs_size": 10**12}, None, r"'obs_size' must be from 1 to 65536, got 1000000000000"),
        ({"obs_size": -636}, None, r"'obs_size' must be from 1 to 65536, got -636"),
        ({"obs_size": "636"}, None, r"'obs_size' must be an integer, got '636' \(str\)"),
        ({"num_actions": 93.0}, None, r"expected 'num_actions' 93 .*got 93\.0"),
        # sizes in range that disagree with the tensors: a 636-40000-40000-93 network would take 6.5 GB
        ({"hidden": [40000, 40000]}, None, (r"tensors do not match the network of its config \('obs_size' 636, "
         r"'hidden' \[40000, 40000\].*'0\.weight' is \(8, 636\) in the file, \(40000, 636\) by the config")),
        ({"hidden": [9]}, None, r"'hidden' \[9\].*'0\.weight' is \(8, 636\) in the file, \(9, 636\) by the config"),
        ({"obs_size": 600}, None, r"'obs_size' 600.*'0\.weight' is \(8, 636\) in the file, \(8, 600\) by the config"),
        ({"hidden": [8, 8]}, None, r"tensors \['4\.weight', '4\.bias'\] are missing"),
        ({}, {**_tensors(), "4.weight": torch.zeros(2, 2)}, r"tensors \['4\.weight'\] are not part of it"),
        ({"features": "derived"}, None, r"'features' 'derived'.*'0\.weight' is \(8, 636\) in the file"),
        ({"features": "partner"}, None, (r"'features' 'partner' needs five_handed rules \(the hidden partner\), "
         r"got 'four_handed'")),
        # a suit-symmetric network relabels observations of its rules' size: another size is refused
        ({"obs_size": 600, "suit_symmetry": True}, _tensors(obs=600), (r"'obs_size' 600 is not the observation "
         r"size 636 of its rules \(four_handed, points_to_win=10\)")),
    ],
)  # fmt: skip
def test_config_sizes_are_checked_before_any_network_is_built(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    changes: dict[str, object],
    tensors: dict[str, torch.Tensor] | None,
    message: str,
) -> None:
    """A crafted config (huge, negative, non-integer sizes; sizes the tensors disagree with) is a quick
    ValueError naming the file, the field and the value, raised before any torch module is built."""
    from agents import neural

    path = _crafted(tmp_path / "crafted.safetensors", tensors, **changes)

    def no_build(*args: object, **kwargs: object) -> None:
        raise AssertionError("a network was built from an unchecked config")

    monkeypatch.setattr(neural, "build_mlp", no_build)
    monkeypatch.setattr(torch.nn, "Linear", no_build)
    for load in (load_policy, lambda p: make_agent(f"model:{p}", make_rules("four_handed"))):
        start = time.perf_counter()
        with pytest.raises(ValueError, match=message) as err:
            load(path)
        assert time.perf_counter() - start < 2.0, "refusing a crafted file took too long"
        assert str(err.value).startswith(repr(str(path))), f"the message does not name the file: {err.value}"


def test_crafted_config_allocates_no_memory(tmp_path: Path) -> None:
    """Loading a 27 KB file whose config declares a 636-10**6-10**6-93 network (or one of 40000-wide
    layers) raises ValueError with the process's peak memory grown by less than 200 MB."""
    files = [
        _crafted(tmp_path / "huge.safetensors", hidden=[10**6, 10**6]),
        _crafted(tmp_path / "wide.safetensors", hidden=[40000, 40000]),
    ]
    assert all(f.stat().st_size < 40_000 for f in files)
    script = textwrap.dedent(
        """
        import resource, sys
        from agents import make_agent
        from agents.neural import import_torch, load_policy
        from euchre_env import make_rules
        import_torch()
        make_agent("model:four_handed", make_rules("four_handed"))  # every import a load makes, done
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        for path in sys.argv[1:]:
            try:
                load_policy(path)
            except ValueError as err:
                print("ValueError:", err)
            else:
                print("loaded", path)
        print("grew_kb", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
        """
    )
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(root)}
    proc = subprocess.run([sys.executable, "-c", script, *map(str, files)], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert [line.startswith("ValueError:") for line in lines[:-1]] == [True, True], proc.stdout
    grew_mb = int(lines[-1].split()[1]) / 1024
    assert grew_mb < 200, f"peak memory grew by {grew_mb:.0f} MB refusing crafted files"
