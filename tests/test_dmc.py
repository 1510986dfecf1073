"""Deep Monte-Carlo on the batched engine (``euchre train dmc``, ``training.batched.dmc``).

The rollout policy takes the best valued legal action or, with probability epsilon, a uniformly random legal
one; the update regresses the taken action's value on the seat's return of the hand; a short run from scratch
beats random at either precision; runs are reproducible and resume exactly; the model file is the PPO
trainer's format and plays as an agent; the two learners' settings are kept apart with clear errors.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import random_positions

torch = pytest.importorskip("torch")

from agents import make_agent
from agents.neural import load_policy
from apps.cli import route_words
from arena.evaluate import evaluate
from euchre_env import engine, make_rules
from euchre_env.encoding import encode
from training.batched import dmc, ppo
from training.batched.args import Args, algo_args, check_args, parse_args

ROOT = Path(__file__).resolve().parents[1]
TINY = ["--num-tables", "32", "--minibatch-size", "256", "--hidden", "32", "--eval-every", "0",
        "--final-eval-deals", "0", "--threads", "1", "--no-progress"]  # fmt: skip


def run_cli(*args, check=True):
    proc = subprocess.run([sys.executable, "-m", "apps.cli", *args], check=False, cwd=ROOT, capture_output=True,
                          text=True, timeout=600)  # fmt: skip
    if check:
        assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def positions(variant: str, tables: int = 20):
    """Observations uint8 (n, D) and masks bool (n, A) of the seat to act at every position of ``tables``
    random hands."""
    rules = make_rules(variant, episode="hand")
    s = random_positions(rules, np.random.default_rng(3), tables)
    return encode(s, s.turn.astype(np.intp), rules, dtype=np.uint8), engine.legal_action_mask(s, rules)


class FixedValues(torch.nn.Module):
    """Action values that do not depend on the input: ``values`` (A,)."""

    def __init__(self, values: np.ndarray) -> None:
        super().__init__()
        self.values = torch.as_tensor(values, dtype=torch.float32)

    def forward(self, x):
        return self.values.expand(x.shape[0], -1).clone()


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_the_rollout_takes_the_best_legal_action_and_explores_only_among_legal_ones(variant):
    obs, masks = positions(variant)
    values = np.random.default_rng(0).normal(size=masks.shape[1]).astype(np.float32)
    values[np.argmax(values)] = 100.0  # the best action overall, legal in some rows only
    gen = torch.Generator().manual_seed(1)
    greedy, _ = dmc.greedy_act(FixedValues(values), gen, "cpu", epsilon=0.0)(obs, masks)
    assert np.array_equal(greedy, np.where(masks, values, -np.inf).argmax(axis=1))
    row = int(np.argmax(masks.sum(axis=1)))  # the position with the most legal actions
    explore, _ = dmc.greedy_act(FixedValues(values), gen, "cpu", epsilon=1.0)(
        np.repeat(obs[row : row + 1], 4000, 0), np.repeat(masks[row : row + 1], 4000, 0)
    )
    legal = np.flatnonzero(masks[row])
    counts = np.bincount(explore, minlength=masks.shape[1])
    assert set(np.flatnonzero(counts)) == set(legal)  # every legal action drawn, no illegal one
    assert counts[legal].min() > 0.5 * 4000 / legal.size  # about uniform
    some, _ = dmc.greedy_act(FixedValues(values), gen, "cpu", epsilon=0.2)(obs, masks)
    departed = np.mean(some != greedy)
    assert 0.05 < departed < 0.2  # epsilon, less the random picks that happen to be the best


def test_the_update_fits_each_taken_actions_value_to_its_return(precision):
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))
    x = torch.eye(4)[torch.tensor([0, 1, 2, 3] * 64)]
    actions = torch.tensor([0, 1, 2, 0] * 64)
    targets = torch.tensor([2.0, -1.0, 0.5, -2.0] * 64)  # one return per (input, action)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    args = Args(algo="dmc", update_epochs=1, minibatch_size=64, max_grad_norm=10.0, precision=precision)
    first = dmc.dmc_update(net, opt, x, actions, targets, args, torch.Generator().manual_seed(0))
    for _ in range(60):
        last = dmc.dmc_update(net, opt, x, actions, targets, args, torch.Generator().manual_seed(0))
    q = net(torch.eye(4)).detach()[[0, 1, 2, 3], [0, 1, 2, 0]]
    assert torch.allclose(q, torch.tensor([2.0, -1.0, 0.5, -2.0]), atol=0.1 if precision == "bf16" else 0.02)
    assert last["value_loss"] < 0.01 * first["value_loss"] and last["explained_variance"] > 0.99


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_with_the_heuristic_prior_the_untrained_model_plays_as_the_heuristic(tmp_path, variant):
    out = tmp_path / "run"
    dmc.main(["--variant", variant, "--out", str(out), "--total-decisions", "1", *TINY, "--prior", "heuristic",
              "--learning-rate", "1e-9"])  # fmt: skip
    rules = make_rules(variant, episode="hand")
    obs, masks = positions(variant, 40)
    model = make_agent(f"model:{out / 'model.safetensors'}", rules)
    heuristic = make_agent("heuristic", rules)
    rng = np.random.default_rng(0)
    assert np.array_equal(model.act(obs.astype(np.float32), masks, rng), heuristic.act(obs, masks, rng))
    values = model.logits(obs.astype(np.float32), masks)  # untried actions start at the lowest return
    assert np.abs(np.median(values, axis=1) - dmc.PESSIMISTIC).max() < 0.2
    _, config = load_policy(out / "model.safetensors")
    assert config.prior == "heuristic" and config.prior_weight == 0.5 and config.provenance["algo"] == "dmc"


def test_the_targets_are_the_seats_returns_less_the_prior_bonus_it_was_played_with():
    args = algo_args("dmc", total_decisions=1, num_tables=16, hidden="16", prior="heuristic", threads=1)
    tr = dmc.DMCTrainer(args)
    seen = {}

    def spy(module, opt, x, actions, targets, args, gen, group):
        seen["targets"] = targets.numpy().copy()
        return {"value_loss": 0.0, "explained_variance": 0.0}

    rng = np.random.default_rng(0)
    controllers = np.full((16, 4), -1)
    ro, choice = tr.play(rng.integers(0, 2**63, 16, dtype=np.uint64), controllers, [], rng, torch.Generator())
    original, dmc.dmc_update = dmc.dmc_update, spy
    try:
        tr.learn(ro, choice, torch.Generator())
    finally:
        dmc.dmc_update = original
    returns = ro.points[ro.table, ro.seat]
    bonus = np.where(choice == ro.actions, tr.config.prior_weights(choice), 0.0)
    assert (choice == ro.actions).mean() > 0.9  # it plays as the heuristic (epsilon aside)
    np.testing.assert_allclose(seen["targets"], returns - bonus, atol=1e-6)


def test_a_short_run_from_scratch_beats_random_outside_its_interval(tmp_path, precision):
    out = tmp_path / "run"
    run_cli("train", "--algo", "dmc", "--out", str(out), "--total-decisions", "150000", "--num-tables", "256",
            "--eval-every", "0", "--final-eval-deals", "0", "--threads", "1", "--no-progress",
            "--precision", precision)  # fmt: skip
    rules = make_rules("four_handed")
    result = evaluate({"model": f"model:{out / 'model.safetensors'}", "random": "random"}, rules, 600, seed=77)
    adv = result.matchups[0].advantage
    assert adv.mean - adv.ci95 > 0, f"model - random = {adv}"
    assert json.loads((out / "args.json").read_text())["algo"] == "dmc"


def weights(path):
    actor, _ = load_policy(path)
    return {k: v.clone() for k, v in actor.state_dict().items()}


def same(a, b):
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_the_same_seed_gives_the_same_model_and_another_seed_another(tmp_path):
    base = ["--total-decisions", "3000", *TINY, "--opponents", "self=1,heuristic=1,snapshots=1",
            "--snapshot-every", "1000"]  # fmt: skip
    for name, seed in (("a", 5), ("b", 5), ("c", 6)):
        ppo.train(parse_args(["--out", str(tmp_path / name), "--seed", str(seed), *base], algo="dmc"))
    a, b, c = (weights(tmp_path / n / "model.safetensors") for n in "abc")
    assert same(a, b) and not same(a, c)


def test_ctrl_c_saves_and_resume_continues_exactly(tmp_path):
    run = ["--total-decisions", "30000", *TINY, "--checkpoint-every", "1", "--snapshot-every", "5000",
           "--opponents", "self=1,heuristic=1,snapshots=1", "--eval-every", "10000", "--eval-deals", "10"]  # fmt: skip
    whole = tmp_path / "whole"
    run_cli("train", "dmc", "--out", str(whole), *run)
    cut = tmp_path / "cut"
    proc = subprocess.Popen([sys.executable, "-m", "apps.cli", "train", "--algo", "dmc", "--out", str(cut), *run],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.time() + 300
    while not (cut / "checkpoint.safetensors").exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0 and "stopped early" in stdout, stderr[-2000:]
    assert not same(weights(cut / "model.safetensors"), weights(whole / "model.safetensors"))
    resumed = run_cli("train", "--resume", str(cut), "--no-progress")  # the run's args.json says it is DMC
    assert "resumed" in resumed.stdout and "trained" in resumed.stdout
    assert same(weights(cut / "model.safetensors"), weights(whole / "model.safetensors"))
    history = lambda d: [{k: v for k, v in e.items() if k not in ("seconds", "train_seconds")}
                         for e in json.loads((d / "eval_history.json").read_text())["history"]]  # fmt: skip
    assert history(cut) == history(whole) and len(history(whole)) == 4


def test_the_model_plays_in_euchre_eval(tmp_path):
    out = tmp_path / "run"
    run_cli("train", "dmc", "--variant", "five_handed", "--out", str(out), "--total-decisions", "3000", *TINY)
    run_cli("eval", "--variant", "five_handed", "--agents", f"model:{out / 'model.safetensors'}", "random",
            "--deals", "4", "--quiet", "--no-plot", "--out", str(tmp_path / "eval"))  # fmt: skip
    report = json.loads((tmp_path / "eval" / "eval.json").read_text())
    assert "model" in json.dumps(report["matchups"]) and report["num_deals"] == 4
    assert load_policy(out / "model.safetensors")[1].provenance["settings"]["epsilon"] == 0.03


def test_algo_dmc_is_the_dmc_route_and_the_learners_settings_stay_apart(tmp_path):
    assert route_words(["train", "--algo", "dmc", "--seed", "3"]) == ["train", "dmc", "--seed", "3"]
    assert parse_args([], algo="dmc") == algo_args("dmc")
    assert algo_args("dmc").prior == "" and Args().prior == "heuristic"
    for argv, message in ((["dmc", "--clip-coef", "0.1"], "unrecognized arguments: --clip-coef"),
                          (["ppo", "--epsilon", "0.1"], "unrecognized arguments: --epsilon"),
                          (["dmc", "--epsilon", "1.5"], "--epsilon must be in [0, 1], got 1.5"),
                          (["--algo", "dqn"], "--algo must be one of")):  # fmt: skip
        proc = run_cli("train", *argv, "--out", str(tmp_path / "x"), check=False)
        assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    with pytest.raises(ValueError, match=r"--clip-coef is not a setting of euchre train dmc, got 0\.5"):
        check_args(algo_args("dmc", clip_coef=0.5))
    with pytest.raises(ValueError, match="--epsilon is not a setting of euchre train ppo"):
        check_args(Args(epsilon=0.1))
    with pytest.raises(ValueError, match="algo must be one of"):
        algo_args("dqn")
