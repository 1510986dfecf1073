"""``euchre train`` and ``euchre play`` run as a user runs them, on tiny budgets; training learns."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from agents.neural import NeuralAgent
from agents.sb3_policy import SB3Policy, convert_to_safetensors, rules_metadata
from apps.play import main as play_main
from apps.play import parse_choice
from euchre_env import engine, make_rules
from euchre_env.encoding import encode
from training.sb3.train import parse_args, train

torch.set_num_threads(1)  # small networks: extra threads only contend on a shared machine
_SCRIPT = Path(sys.executable).with_name("euchre")
EUCHRE = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "apps.cli"]
TINY = ["--total-timesteps", "2048", "--num-envs", "32", "--num-steps", "16", "--batch-size", "256",
        "--eval-every", "1024", "--eval-deals", "20", "--final-eval-deals", "20", "--checkpoint-every", "1024",
        "--net-arch", "32", "--no-progress"]  # fmt: skip


def run(
    args: list[str], stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``euchre <args>`` in a subprocess with one torch thread; fails the test on a non-zero exit."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.run(
        EUCHRE + args, check=False, input=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=300
    )
    assert proc.returncode == 0, f"euchre {' '.join(args)} exited {proc.returncode}:\n{proc.stderr[-3000:]}"
    return proc


def tensorboard_tags(folder: Path) -> set[str]:
    """Scalar tags written to the TensorBoard event files under ``folder``."""
    acc = EventAccumulator(str(folder))
    acc.Reload()
    return set(acc.Tags()["scalars"])


def check_run_folder(run_dir: Path) -> None:
    """A finished run folder holds the model (zip and safetensors, acting alike), checkpoints, logs,
    evaluation and learning curve."""
    names = ("model.zip", "model.safetensors", "eval.json", "eval.md", "learning_curve.png", "eval_history.json",
             "args.json")  # fmt: skip
    for name in names:
        assert (run_dir / name).is_file(), f"{name} missing from {sorted(p.name for p in run_dir.iterdir())}"
    if (run_dir / "best_model.zip").is_file():
        assert (run_dir / "best_model.safetensors").is_file(), "best_model.zip without best_model.safetensors"
    assert_same_actor(run_dir / "model.zip", run_dir / "model.safetensors")
    assert list((run_dir / "checkpoints").glob("model_*_steps.zip")), "no checkpoint written"
    report = json.loads((run_dir / "eval.json").read_text())
    assert set(report["agents"]) == {"model", "heuristic", "random"}, f"evaluated agents {report['agents']}"
    tags = tensorboard_tags(run_dir / "tb")
    for tag in (
        "eval/points_vs_heuristic",
        "eval/points_vs_random",
        "charts/ep_rew_mean",
        "losses/value_loss",
    ):
        assert tag in tags, f"TensorBoard tag {tag} missing; tags: {sorted(tags)}"


def assert_same_actor(zip_path: Path, safetensors_path: Path) -> None:
    """The safetensors file's agent gives the zip's logits on encoded observations of random deals."""
    zipped, data = SB3Policy(zip_path), NeuralAgent(safetensors_path)
    rules = zipped.rules
    s = engine.init_state(rules, 64, rng=np.random.default_rng(0))
    obs = encode(s, s.turn, rules, np.float32)
    np.testing.assert_array_equal(data.logits(obs), zipped.logits(obs), err_msg=f"{safetensors_path} != zip")


def test_train_four_handed_writes_model_logs_and_evaluation(tmp_path: Path) -> None:
    """``euchre train --out DIR`` writes exactly DIR with model.zip, TensorBoard logs and eval files."""
    out = tmp_path / "demo"
    proc = run(["train", "--algo", "sb3", "--variant", "four_handed", "--out", str(out), *TINY])
    check_run_folder(out)
    assert "points per hand" in proc.stdout, f"no evaluation table printed:\n{proc.stdout[-2000:]}"
    rerun = run(["eval", "--variant", "four_handed", "--agents", f"model:{out / 'model.safetensors'}",
                 f"model:{out / 'model.zip'}", "random",
                 "--deals", "10", "--games", "0", "--quiet", "--out", str(tmp_path / "eval")])  # fmt: skip
    assert rerun.returncode == 0 and (tmp_path / "eval" / "eval.json").is_file(), (
        "euchre eval of the saved model failed"
    )


def test_train_on_the_single_agent_gymnasium_env(tmp_path: Path) -> None:
    """``euchre train --env single`` (a DummyVecEnv of EuchreEnv, opponents redrawn per rollout)
    writes the same run folder as the batched env."""
    out = tmp_path / "single"
    tiny = [*TINY]
    tiny[tiny.index("--num-envs") + 1] = "4"
    tiny[tiny.index("--total-timesteps") + 1] = "512"
    tiny[tiny.index("--batch-size") + 1] = "32"
    tiny[tiny.index("--eval-every") + 1] = "256"
    tiny[tiny.index("--checkpoint-every") + 1] = "256"
    run(["train", "--algo", "sb3", "--variant", "five_handed", "--env", "single", "--out", str(out), *tiny])
    check_run_folder(out)
    assert json.loads((out / "args.json").read_text())["env"] == "single", "args.json misses --env"


def test_train_five_handed_self_play_with_imitation_names_its_run(tmp_path: Path) -> None:
    """Without --out the run folder is runs-dir/variant__exp__seed__time; self-play and imitation run."""
    run(["train", "--algo", "sb3", "--variant", "five_handed", "--self-play", "--imitate", "heuristic", "--imitate-hands", "40",
         "--imitate-epochs", "1", "--runs-dir", str(tmp_path), "--exp-name", "smoke", "--seed", "3", *TINY])  # fmt: skip
    folders = list(tmp_path.iterdir())
    assert len(folders) == 1 and re.fullmatch(r"five_handed__smoke__3__\d+", folders[0].name), f"{folders}"
    check_run_folder(folders[0])
    assert "imitation/bc_loss" in tensorboard_tags(folders[0] / "tb"), "the cloning loss was not logged"


def test_ctrl_c_stops_the_sb3_trainer_cleanly_with_its_model_saved(tmp_path: Path) -> None:
    """SIGINT mid-run: exit status 0, no traceback, the model (zip and safetensors) and history written whole."""
    out = tmp_path / "cut"
    tiny = [*TINY]
    tiny[tiny.index("--total-timesteps") + 1] = "10000000"  # far more than the test waits for
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([*EUCHRE, "train", "--algo", "sb3", "--out", str(out), *tiny], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.time() + 300
    while (
        time.time() < deadline and proc.poll() is None and not list(out.glob("checkpoints/model_*_steps.zip"))
    ):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr[-2000:]
    assert "Traceback" not in stderr, stderr[-2000:]
    assert "stopped early" in stdout, stdout[-2000:]
    assert_same_actor(out / "model.zip", out / "model.safetensors")
    history = json.loads((out / "eval_history.json").read_text())["history"]
    assert history and history[-1]["timesteps"] < 10_000_000
    assert (out / "learning_curve.png").is_file() and not list(out.glob("*.tmp*"))


def test_bad_options_are_rejected(capsys: pytest.CaptureFixture[str]) -> None:
    """Unknown pool entries and non-positive budgets exit with a message naming the option."""
    for argv, message in ((["--total-timesteps", "0"], "--total-timesteps must be at least 1 (0 only with --imitate"),
                          (["--opponents", "champion=1"], "unknown pool entry 'champion'"),
                          (["--opponents", "snapshots=1"], "needs a positive weight"),
                          (["--net-arch", "64,x"], "--net-arch must be positive layer sizes")):  # fmt: skip
        with pytest.raises(SystemExit):
            parse_args(argv)
        err = capsys.readouterr().err
        assert message in err, f"{argv}: stderr was {err!r}"


def test_short_training_beats_random(tmp_path: Path) -> None:
    """A short pure-RL run (no imitation) beats the random agent outside the 95% interval."""
    args = parse_args(["--variant", "four_handed", "--total-timesteps", "20000", "--num-envs", "64", "--num-steps",
                       "32", "--eval-every", "0", "--final-eval-deals", "400", "--checkpoint-every", "0",
                       "--opponents", "random=1,self=1", "--out", str(tmp_path / "run"), "--no-progress",
                       "--seed", "0"])  # fmt: skip
    report = json.loads((train(args) / "eval.json").read_text())
    adv = report["head_to_head"]["model"]["random"]
    assert adv["low"] > 0.0, f"model vs random: {adv['mean']:+.3f} ± {adv['ci95']:.3f} points per hand"


def test_play_finishes_a_hand_from_piped_input() -> None:
    """``euchre play`` reads numbered answers from stdin, plays the hand out and prints the result."""
    proc = run(
        ["play", "--variant", "four_handed", "--seat", "0", "--bots", "trained", "--seed", "3"],
        stdin="1\n" * 60,
    )
    assert "--- hand over: " in proc.stdout and "total rewards" in proc.stdout, proc.stdout[-2000:]
    assert "trick 5 won by player_" in proc.stdout, "every trick's winner is told"
    assert "your move: 1)" in proc.stdout, "the human was never asked"


def test_play_accepts_words_and_reprompts_on_bad_input() -> None:
    """Words such as 'pass' are understood; nonsense and out-of-range numbers are re-asked; EOF exits 1."""
    legal = [84, 85]  # pass, order up
    assert parse_choice("pass", legal) == 84 and parse_choice(" Order  Up ", legal) == 85, "words not parsed"
    assert parse_choice("2", legal) == 85, "numbers count from 1 in the printed list"
    for bad, why in (("3", "not on the list"), ("play AS", "not legal now"), ("fold", "unknown action")):
        with pytest.raises(ValueError, match=why):
            parse_choice(bad, legal)
    out = io.StringIO()
    code = play_main(["--seed", "3", "--bots", "random"], inp=io.StringIO("fold\n9\n"), out=out)
    text = out.getvalue()
    assert code == 1 and "end of input" in text, f"exit {code}: {text[-500:]}"
    assert "unknown action 'fold" in text and "9 is not on the list" in text, text[-800:]


def test_play_five_handed_bots_only() -> None:
    """``--seat -1`` lets the bots play a five-handed game to the end without input."""
    out = io.StringIO()
    code = play_main(["--variant", "five_handed", "--seat", "-1", "--game", "--points-to-win", "5",
                      "--bots", "heuristic", "--seed", "1"], inp=io.StringIO(""), out=out)  # fmt: skip
    totals = re.search(r"total rewards: (.*)", out.getvalue())
    assert code == 0 and totals, out.getvalue()[-800:]
    points = np.array([float(x.split()[1]) for x in totals.group(1).split(", ")])
    assert points.max() >= 5, f"a game to 5 ended with totals {points}"


def test_opponent_pool_seats_and_snapshots() -> None:
    """Four-handed: the partner is always the learner's policy; five-handed: 1-4 seats get the draw."""
    from agents.random_agent import RandomAgent
    from training.pool import OpponentPool, parse_pool

    for variant in ("four_handed", "five_handed"):
        rules = make_rules(variant)
        live = RandomAgent(rules)
        pool = OpponentPool(parse_pool("random=1,snapshots=5"), rules, live, 2, np.random.default_rng(0))
        for _ in range(50):
            kind, seats = pool.draw()
            assert kind == "random", f"snapshots drawn before any was added: {kind}"
            others = {r for r, p in seats.items() if p is not live}
            assert sorted(seats) == list(range(1, rules.num_players)), f"relative seats {sorted(seats)}"
            if variant == "four_handed":
                assert others == {1, 3}, f"four-handed opponents at relative seats {others}"
            else:
                assert 1 <= len(others) <= 4, f"five-handed draw took seats {others}"
        everywhere = OpponentPool(parse_pool("random"), rules, live, 2, np.random.default_rng(0), seats="all")
        _, seats = everywhere.draw()
        assert all(p is not live for p in seats.values()), "seats='all' must fill every other seat"
    with pytest.raises(ValueError, match="seats must be 'mixed' or 'all'"):
        OpponentPool(parse_pool("random"), rules, live, 2, np.random.default_rng(0), seats="some")
    venv_policy = SB3Policy(_tiny_model("four_handed"), make_rules("four_handed"))
    pool = OpponentPool(
        parse_pool("snapshots=1,self=0.001"), venv_policy.rules, venv_policy, 2, np.random.default_rng(1)
    )
    for _ in range(3):
        pool.add_snapshot(venv_policy.policy)
    assert len(pool.snapshots) == 2, f"max_snapshots=2 kept {len(pool.snapshots)}"
    assert pool.snapshots[0].policy is not venv_policy.policy, "a snapshot must be a frozen copy"
    kinds = {pool.draw()[0] for _ in range(20)}
    assert "snapshots" in kinds, f"snapshots never drawn: {kinds}"


def _tiny_model(variant: str) -> object:
    """An untrained MaskablePPO with a one-layer network."""
    from sb3_contrib import MaskablePPO

    from euchre_env.envs.sb3_vec_env import EuchreSB3VecEnv

    return MaskablePPO(
        "MlpPolicy", EuchreSB3VecEnv(2, variant), n_steps=8, batch_size=16, policy_kwargs={"net_arch": [8]}
    )


def test_rollout_action_values_match_the_teachers_own_returns() -> None:
    """--imitate-rollouts data: values exactly on the legal actions of the chosen phases; the teacher's
    own action is worth what the teacher's hand returned (it is deterministic: the rollout replays it)."""
    from agents import make_agent
    from euchre_env.actions import Phase
    from training.imitation import imitation_data, keep_q_phases, parse_phases, pretrain, q_targets

    rules = make_rules("five_handed")
    phases = parse_phases("bid_upcard, call")
    assert phases == (int(Phase.BID_UPCARD), int(Phase.CALL))
    with pytest.raises(ValueError, match="unknown phase 'bidding'"):
        parse_phases("bidding")
    data = imitation_data(rules, make_agent("heuristic", rules), 60, 5, True, phases, chunk=25)
    rows, q = data["q_rows"], data["q"]
    assert rows.size > 60 and q.shape == (rows.size, 93)
    masks = data["masks"][rows]
    assert np.array_equal(np.isfinite(q), masks), "values must be given exactly for the legal actions"
    assert (masks.sum(1) > 1).all(), "a forced move needs no values"
    upcard_or_call = masks[:, 85] | masks[:, 56:84].any(1)
    assert upcard_or_call.all() and not masks[:, :56].any() and not masks[:, 86:90].any(), (
        "other phases got values"
    )
    assert np.array_equal(np.isfinite(data["q_total"]), masks)
    zero_sum = q_targets(data, np.arange(rows.size), "zero_sum", 5)
    own = zero_sum[np.arange(rows.size), data["actions"][rows]]
    np.testing.assert_allclose(own, data["returns"][rows], err_msg="the teacher's action value is its return")
    relative = q_targets(data, np.arange(rows.size), "relative", 5)
    np.testing.assert_allclose(relative, 2 * q - data["q_total"])
    calls = keep_q_phases(data, (int(Phase.CALL),), rules)
    assert 0 < calls["q_rows"].size < rows.size and calls["q"].shape == (calls["q_rows"].size, 93)
    assert calls["masks"][calls["q_rows"]][:, 56:84].any(1).all(), "keep_q_phases kept other phases"
    policy = _tiny_model("five_handed").policy
    stats = pretrain(policy, data, 1, 64, 1e-3, 0, anneal=True, q_reward="relative", q_margin=0.1)
    assert {"bc_loss", "value_loss", "accuracy", "q_loss", "q_agreement"} <= set(stats)
    assert all(np.isfinite(v) for v in stats.values()), stats


def test_train_with_rollout_values_separate_critic_and_cache(tmp_path: Path) -> None:
    """--imitate-rollouts, --vf-arch and --imitate-cache: the cache is written, then reused."""
    cache = tmp_path / "data.npz"
    argv = ["train", "--algo", "sb3", "--variant", "five_handed", "--imitate", "heuristic", "--imitate-hands", "30",
            "--imitate-epochs", "1", "--imitate-rollouts", "bid_upcard,discard,bid_suit,call",
            "--imitate-anneal", "--imitate-q-reward", "relative", "--imitate-cache", str(cache), "--total-timesteps", "0", "--eval-every", "0",
            "--final-eval-deals", "4", "--net-arch", "16", "--vf-arch", "8", "--no-progress"]  # fmt: skip
    run([*argv, "--out", str(tmp_path / "a")])
    assert cache.is_file(), "the cloning data was not cached"
    proc = run([*argv, "--out", str(tmp_path / "b")])
    assert "loaded the cloning data" in proc.stdout
    policy = SB3Policy(tmp_path / "b" / "model.zip").policy
    assert policy.mlp_extractor.value_net[0].out_features == 8, "--vf-arch not applied to the critic"
    assert policy.mlp_extractor.policy_net[0].out_features == 16


def test_init_model_takes_a_zip_or_a_safetensors_actor(tmp_path: Path) -> None:
    """``--init-model`` loads a zip's policy or a ``.safetensors`` actor; a network that does not fit
    (other --net-arch or --activation) is a ValueError saying so."""
    from sb3_contrib import MaskablePPO

    from euchre_env.envs.sb3_vec_env import EuchreSB3VecEnv

    rules = make_rules("four_handed")
    source = MaskablePPO("MlpPolicy", EuchreSB3VecEnv(2, "four_handed"), n_steps=8, batch_size=16, seed=5,
                         policy_kwargs={"net_arch": [16], "activation_fn": torch.nn.ReLU})  # fmt: skip
    source.euchre_rules = rules_metadata(rules)
    source.save(tmp_path / "src.zip")
    convert_to_safetensors(tmp_path / "src.zip", tmp_path / "src.safetensors")
    base = ["--variant", "four_handed", "--total-timesteps", "0", "--num-envs", "4", "--eval-every", "0",
            "--final-eval-deals", "2", "--checkpoint-every", "0", "--no-progress"]  # fmt: skip
    for name in ("src.zip", "src.safetensors"):
        out = tmp_path / name.replace(".", "_")
        train(
            parse_args([*base, "--net-arch", "16", "--init-model", str(tmp_path / name), "--out", str(out)])
        )
        assert_same_actor(tmp_path / "src.zip", out / "model.safetensors")
    with pytest.raises(ValueError, match=r"636-16-93 \(relu\) does not fit the policy's 636-32-93 \(relu\)"):
        train(parse_args([*base, "--net-arch", "32", "--init-model", str(tmp_path / "src.safetensors"),
                          "--out", str(tmp_path / "bad")]))  # fmt: skip
    with pytest.raises(ValueError, match=r"does not fit --net-arch/--vf-arch"):
        train(parse_args([*base, "--net-arch", "32", "--init-model", str(tmp_path / "src.zip"),
                          "--out", str(tmp_path / "bad2")]))  # fmt: skip
