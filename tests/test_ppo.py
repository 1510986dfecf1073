"""The batched self-play trainer (``euchre train``, ``training.batched.ppo``) and its rollouts.

Rollouts: every learner decision is recorded once, each seat's decisions are
chained in order, the hand's reward sits on the seat's last decision, and the
advantages follow from those chains. Runs: the command writes its files, a
short run beats random, the same seed gives the same model, Ctrl-C saves and
``--resume`` continues exactly, bad options exit with status 2 and a message.
"""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents import make_agent
from agents.neural import load_policy
from arena.evaluate import evaluate
from euchre_env import engine, make_rules
from euchre_env.encoding import obs_layout
from training.batched import ppo
from training.batched.rollout import collect, gae

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ("four_handed", "five_handed")
# A run of a few seconds: small tables, no periodic evaluation unless asked.
TINY = ["--num-tables", "32", "--minibatch-size", "256", "--hidden", "32", "--critic-hidden", "32",
        "--eval-every", "0", "--final-eval-deals", "0", "--threads", "1", "--no-progress"]  # fmt: skip


def random_learner(rng: np.random.Generator):
    def act(obs, masks):
        u = rng.random(masks.shape) * masks
        return u.argmax(axis=1), np.log(1.0 / masks.sum(axis=1)).astype(np.float32)

    return act


def first_legal(obs, masks):
    """A deterministic learner: the lowest legal action id."""
    return masks.argmax(axis=1), np.zeros(len(masks), np.float32)


def chains(ro):
    """Each seat's decisions as lists of rows, following ``next_idx`` from the rows nothing points to."""
    nxt = ro.next_idx
    heads = np.setdiff1d(np.arange(len(ro)), nxt[nxt >= 0])
    out = []
    for h in heads:
        rows = [int(h)]
        while nxt[rows[-1]] >= 0:
            rows.append(int(nxt[rows[-1]]))
        out.append(rows)
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_rollout_chains_each_learner_seats_decisions_and_rewards_its_last(variant):
    rules = make_rules(variant)
    rng = np.random.default_rng(3)
    b, p = 300, rules.num_players
    controllers = np.where(rng.random((b, p)) < 0.5, -1, 0)  # learner at about half the seats
    ro = collect(rules, rng.integers(0, 2**63, b, dtype=np.uint64), controllers, random_learner(rng),
                 [make_agent("heuristic", rules)], rng)  # fmt: skip
    n = len(ro)
    assert ro.obs.shape == (n, obs_layout(rules).size) and ro.masks.shape == (n, 93)
    assert ro.masks[np.arange(n), ro.actions].all(), "a recorded action is not legal under its mask"
    assert (controllers[ro.table, ro.seat] == -1).all(), "only learner seats are recorded"
    found = chains(ro)
    assert sorted(r for c in found for r in c) == list(range(n)), "every row in exactly one chain"
    pairs = set()
    for c in found:
        assert c == sorted(c)
        (table,), (seat,) = np.unique(ro.table[c]), np.unique(ro.seat[c])  # one seat of one table
        pairs.add((table, seat))
        assert ro.reward[c[-1]] == ro.points[table, seat] and not ro.reward[c[:-1]].any()
    # one chain per (table, seat) that decided
    assert len(pairs) == len(found) == len(set(zip(ro.table.tolist(), ro.seat.tolist(), strict=True)))
    # the observation is the acting seat's: its hand piece holds the card it played
    layout = obs_layout(rules)
    plays = ro.actions < 28
    hand = ro.obs[:, layout.slice("hand")]
    assert hand[np.flatnonzero(plays), ro.actions[plays]].all()


@pytest.mark.parametrize("variant", VARIANTS)
def test_rollout_without_forced_decisions_keeps_exactly_the_real_choices(variant):
    """``record_forced=False``: the same hands (a deterministic learner) give the rows with a choice, chained
    per seat, each seat's hand reward on its last recorded decision."""
    rules = make_rules(variant)
    b, p = 300, rules.num_players

    seeds = np.random.default_rng(4).integers(0, 2**63, b, dtype=np.uint64)
    controllers = np.where(np.random.default_rng(5).random((b, p)) < 0.6, -1, 0)
    opp = [make_agent("heuristic", rules)]
    every = collect(rules, seeds, controllers, first_legal, opp, np.random.default_rng(6))
    real = collect(rules, seeds, controllers, first_legal, opp, np.random.default_rng(6), record_forced=False)
    choice = every.masks.sum(axis=1) > 1
    assert 0 < len(real) == int(choice.sum()) < len(every), "forced rows must go, and only them"
    assert real.forced == len(every) - len(real) and every.forced == 0
    assert (real.masks.sum(axis=1) > 1).all()
    np.testing.assert_array_equal(real.obs, every.obs[choice])
    np.testing.assert_array_equal(real.points, every.points)
    for c in chains(real):
        (table,), (seat,) = np.unique(real.table[c]), np.unique(real.seat[c])
        assert real.reward[c[-1]] == real.points[table, seat] and not real.reward[c[:-1]].any()


def test_rollout_with_the_learner_everywhere_records_every_decision_and_the_hand_points():
    rules = make_rules("four_handed")
    rng = np.random.default_rng(5)
    b = 500
    seeds = rng.integers(0, 2**63, b, dtype=np.uint64)
    ro = collect(rules, seeds, np.full((b, 4), -1), random_learner(rng), [], rng, zero_sum=False)
    assert len(ro) == ro.decisions, "with the learner at every seat, every decision is data"
    # the same hands replayed with the recorded actions end with the same points
    s = engine.init_state(rules, seeds=seeds)
    for t in range(ro.steps.size - 1):
        rows = np.arange(ro.steps[t], ro.steps[t + 1])
        acts = np.full(b, -1)
        acts[ro.table[rows]] = ro.actions[rows]
        assert (s.turn[ro.table[rows]] == ro.seat[rows]).all()
        s = engine.step(s, acts, rules)
    assert engine.is_done(s).all()
    assert np.array_equal(s.last_points.astype(np.float32), ro.points)


class FirstLegal:
    """A deterministic opponent: the lowest legal action id."""

    def act(self, obs, masks, rng=None):
        return np.asarray(masks).argmax(axis=1)


@pytest.mark.parametrize("value_play", [False, True], ids=["bidding", "all"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_action_values_are_the_hands_played_out_after_each_legal_action(variant, value_play):
    """``collect(..., counterfactual=...)`` values each legal action of the learner's decisions outside trick play
    (``value_play``: in it too) with a choice, and nothing else; with deterministic players the taken action's value is the hand's own
    reward, and any other action's value is what replaying the hand with that action instead gives."""
    from euchre_env.actions import Phase

    rules = make_rules(variant)
    b, p = 120, rules.num_players

    seeds = np.random.default_rng(8).integers(0, 2**63, b, dtype=np.uint64)
    controllers = np.where(np.arange(b)[:, None] < b // 2, -1, np.where(np.arange(p) % 2 == 0, -1, 0))
    ro = collect(rules, seeds, controllers, first_legal, [FirstLegal()], np.random.default_rng(9),
                 counterfactual=first_legal, value_play=value_play)  # fmt: skip
    valued = ~np.isnan(ro.q).all(axis=1)
    # which rows: the learner's decisions outside trick play with a choice, exactly
    play = np.zeros(len(ro), bool)
    s = engine.init_state(rules, seeds=seeds)
    history = [[] for _ in range(b)]  # every action of every table, in order (for the replays below)
    row_at = {}  # rollout row -> (table, position in its history)
    while not engine.is_done(s).all():
        live = np.flatnonzero(~engine.is_done(s))
        base, bits = engine.legal_bits(s.take(live), rules)
        masks = engine.expand(base, bits)
        acts = masks.argmax(axis=1)
        for i, t in enumerate(live):
            mine = np.flatnonzero((ro.table == t) & (ro.seat == s.turn[t]))
            r = [x for x in mine if x not in row_at]
            if controllers[t, s.turn[t]] < 0:
                row_at[r[0]] = (t, len(history[t]))
                play[r[0]] = s.phase[t] == Phase.PLAY
            history[t].append(int(acts[i]))
        engine.step_rows(s, live, acts, rules)
    expect = (~play | value_play) & (ro.masks.sum(axis=1) > 1)
    assert expect.any() and np.array_equal(valued, expect)
    assert np.array_equal(~np.isnan(ro.q[valued]), ro.masks[valued]), "a value at each legal action, only there"
    rows = np.flatnonzero(valued)
    np.testing.assert_array_equal(ro.q[rows, ro.actions[rows]], ro.points[ro.table[rows], ro.seat[rows]])
    # other actions: replay the table's hand with that action instead, then first legal actions to the end
    checked = 0
    for r in rows[:: max(1, rows.size // 40)]:
        t, k = row_at[r]
        for a in np.flatnonzero(ro.masks[r]):
            s1 = engine.init_state(rules, seeds=seeds[t : t + 1])
            for x in [*history[t][:k], int(a)]:
                engine.step_rows(s1, np.array([0]), np.array([x]), rules)
            while not engine.is_done(s1)[0]:
                base, bits = engine.legal_bits(s1, rules)
                engine.step_rows(s1, np.array([0]), engine.expand(base, bits).argmax(axis=1), rules)
            reward = engine.points_to_rewards(s1.last_points, rules, True)[0, ro.seat[r]]
            assert ro.q[r, a] == reward, (r, a)
            checked += a != ro.actions[r]
    assert checked > 20


@pytest.mark.parametrize("variant", VARIANTS)
def test_action_values_to_the_next_choice_are_the_critics_value_there(variant):
    """With a ``critic`` each copy stops where its seat next has a choice and takes the critic's value of that
    position (the seat's observation and the other hands), or the reward where the hand ends first: replays with
    deterministic players and a deterministic critic give the same values."""
    from euchre_env.encoding import encode
    from training.batched.rollout import others_hands

    rules = make_rules(variant)
    b, p = 60, rules.num_players
    w = np.random.default_rng(10).normal(size=obs_layout(rules).size).astype(np.float32)

    def critic(obs, hidden):  # a different value for every position and every deal of the other hands
        return (obs.astype(np.float32) @ w + 0.01 * hidden.astype(np.float64).sum(axis=1) % 1).astype(np.float32)

    seeds = np.random.default_rng(8).integers(0, 2**63, b, dtype=np.uint64)
    controllers = np.where(np.arange(b)[:, None] < b // 2, -1, np.where(np.arange(p) % 2 == 0, -1, 0))
    ro = collect(rules, seeds, controllers, first_legal, [FirstLegal()], np.random.default_rng(9),
                 counterfactual=first_legal, value_play=True, critic=critic)  # fmt: skip
    hand = collect(rules, seeds, controllers, first_legal, [FirstLegal()], np.random.default_rng(9),
                   counterfactual=first_legal, value_play=True)  # fmt: skip
    np.testing.assert_array_equal(np.isnan(ro.q), np.isnan(hand.q))  # the same entries valued
    np.testing.assert_array_equal(ro.actions, hand.actions)  # and the real hands untouched
    # the tables' actions in order, to replay from (first legal actions everywhere), and each row's place in them
    s = engine.init_state(rules, seeds=seeds)
    history, seen = [[] for _ in range(b)], {}
    while not engine.is_done(s).all():
        live = np.flatnonzero(~engine.is_done(s))
        base, bits = engine.legal_bits(s.take(live), rules)
        acts = engine.expand(base, bits).argmax(axis=1)
        for i, t in enumerate(live):
            if controllers[t, s.turn[t]] < 0:
                r = min(set(np.flatnonzero((ro.table == t) & (ro.seat == s.turn[t]))) - set(seen))
                seen[r] = len(history[t])
            history[t].append(int(acts[i]))
        engine.step_rows(s, live, acts, rules)
    kinds = {"critic": 0, "reward": 0}
    for r in np.flatnonzero(~np.isnan(ro.q).all(axis=1))[::3]:
        t, seat = ro.table[r], ro.seat[r]
        for a in np.flatnonzero(ro.masks[r]):
            s1 = engine.init_state(rules, seeds=seeds[t : t + 1])
            for x in [*history[t][: seen[r]], int(a)]:
                engine.step_rows(s1, np.array([0]), np.array([x]), rules)
            while True:
                if engine.is_done(s1)[0]:
                    expect, kind = engine.points_to_rewards(s1.last_points, rules, True)[0, seat], "reward"
                    break
                base, bits = engine.legal_bits(s1, rules)
                if s1.turn[0] == seat and np.bitwise_count(bits[0]) > 1:
                    at = np.array([seat])
                    expect, kind = critic(encode(s1, at, rules, dtype=np.uint8), others_hands(s1, at))[0], "critic"
                    break
                engine.step_rows(s1, np.array([0]), engine.expand(base, bits).argmax(axis=1), rules)
            assert ro.q[r, a] == pytest.approx(expect, rel=1e-5, abs=1e-5), (r, a, kind)  # batched float sums
            kinds[kind] += 1
    assert kinds["critic"] > 20 and kinds["reward"] > 20, kinds


def test_all_action_update_moves_probability_to_the_best_valued_action_even_unsampled(precision):
    """At the valued rows, the update follows every legal action's value, not just the sampled one's: give
    each valued row's least likely legal action the only positive value and its probability must rise, though
    the rollout (almost) never took it; the same update without the values leaves it about where it was."""
    import copy

    args = ppo.Args(num_tables=64, hidden="32", critic_hidden="32", eval_every=0, progress=False, threads=1,
                    action_values="bidding", update_epochs=10, minibatch_size=128, learning_rate=3e-3,
                    precision=precision)  # fmt: skip
    tr = ppo.Trainer(args)
    ro, data = learner_rollout(tr, np.random.default_rng(0))
    valued = torch.from_numpy(np.flatnonzero(ro.masks.sum(axis=1) > 1)[:300])
    logp = lambda net: torch.log_softmax(ppo.policy_logits(net.actor, data, valued, precision), dim=1).detach()
    before = logp(tr.net).masked_fill(~data["masks"][valued], np.inf)
    target = before.argmin(dim=1)  # each row's least likely legal action
    assert (ro.actions[valued] != target.numpy()).mean() > 0.9
    adv, ret = gae(ro, ppo.values_of(tr.net, data, precision), 1.0, 0.9)
    data["advantages"], data["returns"] = torch.from_numpy(adv), torch.from_numpy(ret)
    plain = copy.deepcopy(tr.net)
    ppo.ppo_update(plain, torch.optim.Adam(plain.parameters(), lr=3e-3, eps=1e-5), data, args,
                   torch.Generator().manual_seed(0))  # fmt: skip
    ro.q = np.full((len(ro), 93), np.nan, np.float32)
    ro.q[valued] = np.where(ro.masks[valued], 0.0, np.nan)
    ro.q[valued, target] = 1.0
    data.update({k: v for k, v in ppo.to_tensors(ro, args, tr.device, tr.rules).items() if k.startswith("q")})
    data.update(ppo.action_advantages(tr.net, data, args))
    ppo.ppo_update(tr.net, tr.opt, data, args, torch.Generator().manual_seed(0))
    idx = torch.arange(valued.numel())
    gain = (logp(tr.net)[idx, target] - before[idx, target]).numpy()
    gain_plain = (logp(plain)[idx, target] - before[idx, target]).numpy()
    assert gain.mean() > 0.1 + gain_plain.mean() and (gain > 0).mean() > 0.7, (gain.mean(), gain_plain.mean())


def test_gae_with_lambda_one_gives_the_hands_reward_as_every_return():
    rules = make_rules("five_handed")
    rng = np.random.default_rng(7)
    b = 200
    ro = collect(rules, rng.integers(0, 2**63, b, dtype=np.uint64), np.full((b, 5), -1), random_learner(rng),
                 [], rng)  # fmt: skip
    values = rng.normal(size=len(ro)).astype(np.float32)
    adv, ret = gae(ro, values, gamma=1.0, lam=1.0)
    # follow each chain to its end: the return of every decision is the reward at the end
    final = np.empty(len(ro), np.float32)
    for i in range(len(ro) - 1, -1, -1):
        final[i] = ro.reward[i] if ro.next_idx[i] < 0 else final[ro.next_idx[i]]
    assert np.allclose(ret, final, atol=1e-5)
    assert np.allclose(adv, final - values, atol=1e-5)
    adv0, _ = gae(ro, values, gamma=1.0, lam=0.0)  # one-step TD errors
    nxt = ro.next_idx
    td = ro.reward + np.where(nxt >= 0, values[np.maximum(nxt, 0)], 0) - values
    assert np.allclose(adv0, td, atol=1e-5)


def run_cli(*args, check=True, **kw):
    proc = subprocess.run([sys.executable, "-m", "apps.cli", *args], check=False, cwd=ROOT, capture_output=True, text=True,
                          timeout=600, **kw)  # fmt: skip
    if check:
        assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


@pytest.mark.parametrize("variant", VARIANTS)
def test_train_command_writes_a_model_that_is_an_agent_and_its_reports(tmp_path, variant):
    out = tmp_path / "run"
    argv = ["train", "--variant", variant, "--out", str(out), "--total-decisions", "6000", *TINY,
            "--eval-every", "3000", "--eval-deals", "10", "--final-eval-deals", "10", "--imitate", "heuristic",
            "--imitate-decisions", "2000"]  # fmt: skip
    proc = run_cli(*argv)
    assert "learner decisions" in proc.stdout and "imitated heuristic" in proc.stdout
    for name in ("model.safetensors", "best_model.safetensors", "checkpoint.safetensors", "args.json", "eval.json",
                 "eval.md", "eval_history.json", "learning_curve.png"):  # fmt: skip
        assert (out / name).is_file(), name
    assert list((out / "tb").glob("events.out.tfevents.*")), "TensorBoard logs"
    history = __import__("json").loads((out / "eval_history.json").read_text())["history"]
    assert len(history) >= 3 and all("heuristic" in h["eval"] for h in history)  # at 0, 3000, 6000+
    _, config = load_policy(out / "model.safetensors")
    assert config.provenance["seed"] == 1 and config.provenance["command"].startswith("euchre train")
    assert config.rules["variant"] == variant
    auto = ppo.resolve_precision("auto", "cpu")  # fp32 in the tests (conftest) unless EUCHRE_CPU_BF16=1
    assert json.loads((out / "args.json").read_text())["precision"] == auto  # 'auto', resolved
    settings = config.provenance["settings"]  # every setting as used, so later default changes do not matter
    assert settings["total_decisions"] == 6000 and settings["imitate"] == "heuristic"
    assert settings["update_epochs"] == 4 and settings["precision"] == auto and "out" not in settings
    rules = make_rules(variant)
    result = evaluate({"model": make_agent(f"model:{out / 'model.safetensors'}", rules), "random": "random"},
                      rules, 4)  # fmt: skip
    assert result.num_deals == 4


def test_a_short_run_from_scratch_beats_random_outside_its_interval(tmp_path):
    out = tmp_path / "run"
    run_cli("train", "--out", str(out), "--total-decisions", "150000", "--num-tables", "256", "--eval-every", "0",
            "--final-eval-deals", "0", "--threads", "1", "--no-progress", "--prior", "")  # fmt: skip
    rules = make_rules("four_handed")
    result = evaluate(
        {"model": f"model:{out / 'model.safetensors'}", "random": "random"}, rules, 600, seed=77
    )
    adv = result.matchups[0].advantage
    assert adv.mean - adv.ci95 > 0, f"model - random = {adv}"


def weights(path):
    actor, _ = load_policy(path)
    return {k: v.clone() for k, v in actor.state_dict().items()}


def same(a, b):
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("extra", [["--precision", "fp32"], ["--precision", "bf16"],
                                   ["--precision", "fp32", "--action-values", "all"],
                                   ["--precision", "fp32", "--action-values", "all", "--action-value-horizon", "next"]],
                         ids=["fp32", "bf16", "action-values", "action-values-next"])
def test_the_same_seed_gives_the_same_model_and_another_seed_another(tmp_path, extra):
    base = ["--total-decisions", "3000", *TINY, "--opponents", "self=1,heuristic=1,snapshots=1",
            "--snapshot-every", "1000", *extra]  # fmt: skip
    for name, seed in (("a", 5), ("b", 5), ("c", 6)):
        ppo.train(ppo.parse_args(["--out", str(tmp_path / name), "--seed", str(seed), *base]))
    a, b, c = (weights(tmp_path / n / "model.safetensors") for n in "abc")
    assert same(a, b)
    assert not same(a, c)


# A run with snapshots, periodic evaluations and imitation, checkpointed every iteration (about 40 of them).
RESUMABLE = ["--total-decisions", "40000", *TINY, "--checkpoint-every", "1", "--snapshot-every", "5000",
             "--eval-every", "10000", "--eval-deals", "10", "--imitate", "heuristic",
             "--imitate-decisions", "1000"]  # fmt: skip


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory) -> Path:
    """The uninterrupted run that cut, killed and resumed runs must reproduce."""
    out = tmp_path_factory.mktemp("whole") / "run"
    ppo.train(ppo.parse_args(["--out", str(out), *RESUMABLE]))
    return out


def start_run(argv: list[str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "apps.cli", "train", *argv], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


def same_history(a: Path, b: Path) -> bool:
    strip = lambda h: [{k: v for k, v in e.items() if k not in ("seconds", "train_seconds")} for e in h["history"]]
    return strip(json.loads((a / "eval_history.json").read_text())) == strip(
        json.loads((b / "eval_history.json").read_text())
    )


def test_ctrl_c_saves_and_resume_continues_exactly(tmp_path, whole_run):
    out = tmp_path / "cut"
    proc = start_run(["--out", str(out), *RESUMABLE])
    deadline = time.time() + 300
    while not (out / "checkpoint.safetensors").exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr[-2000:]
    assert "Traceback" not in stderr
    assert "stopped early" in stdout, "the run should have been cut before its end"
    assert (out / "model.safetensors").is_file() and not list(out.glob("*.tmp"))
    assert not same(weights(out / "model.safetensors"), weights(whole_run / "model.safetensors"))
    proc = run_cli("train", "--resume", str(out), "--no-progress")
    assert "resumed" in proc.stdout and "trained" in proc.stdout
    assert same(weights(out / "model.safetensors"), weights(whole_run / "model.safetensors"))
    assert same_history(whole_run, out)
    # The model records the command that began the run, then the resumption and where it took over.
    prov = load_policy(out / "model.safetensors")[1].provenance
    assert prov["command"] == "euchre train " + shlex.join(["--out", str(out), *RESUMABLE])
    (resumed,) = prov["resumed"]
    assert resumed["command"] == f"euchre train --resume {shlex.quote(str(out))} --no-progress"
    assert 0 < resumed["learner_decisions"] < prov["learner_decisions"] and resumed["commit"] == prov["commit"]


def assert_no_corrupt_file(run_dir: Path) -> None:
    """Every file under a final name is whole: safetensors open, JSON parses, PNGs decode.

    Temporary files (``*.tmp``, ``*.tmp.png``) may be left behind; TensorBoard's
    event files are append-only logs and are not final files.
    """
    from PIL import Image
    from safetensors import safe_open

    for path in run_dir.iterdir():
        if not path.is_file() or ".tmp" in path.name:
            continue
        if path.suffix == ".safetensors":
            with safe_open(str(path), framework="pt") as f:
                for key in f.keys():  # noqa: SIM118
                    f.get_tensor(key)
        elif path.suffix == ".json":
            json.loads(path.read_text())
        elif path.suffix == ".png":
            with Image.open(path) as im:
                im.load()
        elif path.suffix == ".md":
            assert path.read_text().strip(), f"{path.name} is empty"


def test_kill_9_at_random_points_leaves_whole_files_and_resume_reaches_the_same_model(tmp_path, whole_run):
    """SIGKILL (no chance to clean up) three times at random moments, resuming each time, then finish."""
    rng = np.random.default_rng(2026)
    out = tmp_path / "killed"
    killed = 0
    for attempt in range(3):
        argv = ["--out", str(out), *RESUMABLE] if attempt == 0 else ["--resume", str(out), "--no-progress"]
        proc = start_run(argv)
        deadline = time.time() + 300
        while (
            not (out / "checkpoint.safetensors").exists() and time.time() < deadline and proc.poll() is None
        ):
            time.sleep(0.01)
        time.sleep(float(rng.uniform(0.0, 1.5)))
        if proc.poll() is None:
            proc.kill()
            killed += 1
        proc.communicate(timeout=300)
        assert_no_corrupt_file(out)
    assert killed >= 1, "every run finished before it could be killed: the test killed nothing"
    proc = run_cli("train", "--resume", str(out), "--no-progress")
    assert "trained" in proc.stdout
    assert_no_corrupt_file(out)
    assert same(weights(out / "model.safetensors"), weights(whole_run / "model.safetensors"))
    assert same_history(whole_run, out)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--gamma", "2"], "--gamma must be in (0, 1]"),
        (["--gae-lambda", "5"], "--gae-lambda must be in (0, 1]"),
        (["--clip-coef", "-1"], "--clip-coef must be in (0, 10]"),
        (["--num-tables", "0"], "--num-tables must be at least 1"),
        (["--eval-every", "-5"], "--eval-every must be at least 0"),
        (["--total-decisions", "-1"], "--total-decisions must be at least 0"),
        (["--hidden", "abc"], "--hidden must be positive layer sizes"),
        (["--opponents", "nosuch=1"], "unknown pool entry 'nosuch'"),
        (["--imitate", "nosuch"], "--imitate must be an agent name"),
        (["--device", "tpu"], "--device must be cpu or cuda"),
        (["--precision", "fp16"], "invalid choice"),
        (["--prior-weight-bidding", "-2"], "--prior-weight-bidding must be -1"),
        (["--sort-other-colour", "--no-suit-symmetry"], "--sort-other-colour needs --suit-symmetry"),
        (["--action-value-horizon", "next"], "--action-value-horizon next needs --action-values bidding or all"),
        (["--action-values", "all", "--action-value-horizon", "turn"], "invalid choice"),
        (["--variant", "six_handed"], "invalid choice"),
        (["--resume", "/nonexistent/run"], "no such run folder"),
        (["--algo", "dqn"], "--algo must be one of"),
    ],
)
def test_bad_options_exit_2_with_one_line(argv, message, tmp_path):
    proc = run_cli("train", "--out", str(tmp_path / "x"), *argv, check=False)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("variant", ["four_handed", "four_handed_no_stick", "five_handed"])
def test_the_default_length_is_the_variants_and_an_explicit_one_is_kept(variant):
    players = make_rules(variant).num_players
    assert ppo.parse_args(["--variant", variant]).total_decisions == 0  # resolved when the run starts
    resolved = ppo.resolve_args(ppo.Args(variant=variant, precision="fp32"))
    assert resolved.total_decisions == ppo.DEFAULT_DECISIONS[players] > 0 and resolved.precision == "fp32"
    assert ppo.resolve_args(ppo.Args(variant=variant, total_decisions=1234)).total_decisions == 1234
    assert ppo.resolve_args(ppo.Args(precision="auto")).precision == ppo.resolve_precision("auto", "cpu")


def test_an_existing_run_folder_is_refused_unless_overwrite_or_resume(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    proc = run_cli("train", "--out", str(out), "--total-decisions", "500", *TINY, check=False)
    assert proc.returncode == 2 and "is not empty" in proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    run_cli("train", "--out", str(out), "--total-decisions", "500", *TINY, "--overwrite")
    assert (out / "model.safetensors").is_file()


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_policy_with_the_heuristic_prior_starts_as_the_heuristic_and_saves_it(tmp_path, variant):
    from agents.neural import NeuralAgent, save_policy

    args = ppo.parse_args(["--variant", variant, "--prior", "heuristic", "--hidden", "32"])
    rules = make_rules(variant)
    net = ppo.build_net(args, rules)
    config = ppo.policy_config(args, rules, {"seed": 1})
    path = save_policy(tmp_path / "m.safetensors", net.actor, config)
    agent = make_agent(f"model:{path}", rules)
    assert isinstance(agent, NeuralAgent) and agent.config.prior == "heuristic"
    assert agent.config.prior_weight == 3.0
    heuristic = make_agent("heuristic", rules)
    s = engine.init_state(rules, 400, rng=np.random.default_rng(1))
    obs_all, masks_all = [], []
    rng = np.random.default_rng(2)
    while not engine.is_done(s).all():  # random play, observing every decision
        live = np.flatnonzero(~engine.is_done(s))
        sub = s.take(live)
        obs_all.append(ppo_encode(sub, rules))
        masks_all.append(engine.legal_action_mask(sub))
        acts = np.full(s.batch_size, -1)
        acts[live] = engine.sample_legal(sub, rules, rng)
        s = engine.step(s, acts, rules)
    obs, masks = np.concatenate(obs_all), np.concatenate(masks_all)
    assert np.array_equal(agent.act(obs, masks, rng), heuristic.act(obs, masks, rng))
    # a network that prefers another legal action by more than the prior weight departs from it
    with torch.no_grad():
        net.actor[-1].bias[:] = 0.0
        net.actor[-1].weight[:] = 0.0
        net.actor[-1].bias[84] = 3.5  # PASS
    moved = NeuralAgent((net.actor, config), rules)
    acts = moved.act(obs, masks, rng)
    assert (acts[masks[:, 84]] == 84).all()
    assert np.array_equal(acts[~masks[:, 84]], heuristic.act(obs[~masks[:, 84]], masks[~masks[:, 84]], rng))
    with pytest.raises(ValueError, match="needs action_masks"):
        agent.logits(obs[:3])
    # --prior-weight-bidding 10: the same preference no longer moves a bid; one for a card still moves the play
    args = ppo.parse_args(["--variant", variant, "--hidden", "32", "--prior-weight-bidding", "10"])
    path = save_policy(tmp_path / "b.safetensors", net.actor, ppo.policy_config(args, rules, {"seed": 1}))
    bidding_held = make_agent(f"model:{path}", rules)
    assert bidding_held.config.prior_weight_bidding == 10.0
    assert np.array_equal(bidding_held.act(obs, masks, rng), heuristic.act(obs, masks, rng))
    plain = ppo.build_net(ppo.parse_args(["--variant", variant, "--hidden", "32", "--no-suit-symmetry"]), rules)
    with torch.no_grad():  # (printed card ids: a suit-symmetric actor would rank its own relabelled ids)
        plain.actor[-1].weight[:] = 0.0
        plain.actor[-1].bias[:] = 0.0
        plain.actor[-1].bias[:28] = torch.arange(28, dtype=torch.float32) * 4.0  # the highest card id, by > 3
    card = np.asarray(heuristic.act(obs, masks, rng)) < 28
    acts = NeuralAgent((plain.actor, bidding_held.config), rules).act(obs, masks, rng)
    highest = 27 - np.argmax(masks[:, 27::-1], axis=1)
    assert np.array_equal(acts[card], highest[card])
    assert np.array_equal(acts[~card], heuristic.act(obs[~card], masks[~card], rng))


def ppo_encode(sub, rules):
    from euchre_env.encoding import encode

    return encode(sub, sub.turn.astype(np.intp), rules)


def learner_rollout(tr, rng, tables=64):
    """A hand at each of ``tables`` tables, the trainer's actor (with its prior) at every seat, and the
    update's tensors of it (printed suits, the prior's choices included)."""
    chosen = []
    act = ppo.learner_act(tr.net.actor, torch.Generator().manual_seed(0), tr.device, tr.prior,
                          tr.config.prior_weights, chosen)  # fmt: skip
    seeds = rng.integers(0, 2**63, size=tables, dtype=np.uint64)
    controllers = np.full((tables, tr.rules.num_players), -1, np.int64)
    ro = collect(tr.rules, seeds, controllers, act, [], rng, True, record_forced=False)
    data = ppo.to_tensors(ro, tr.args, tr.device, tr.rules)
    data["prior"] = torch.from_numpy(np.concatenate(chosen))
    data["prior_w"] = torch.from_numpy(tr.config.prior_weights(data["prior"].numpy()))
    return ro, data


@pytest.mark.parametrize(("variant", "critic"), [("four_handed", "full"), ("five_handed", "full"), ("four_handed", "obs")])
def test_the_critic_the_copies_ask_is_the_critic_the_update_trains(variant, critic, precision):
    """``seat_value`` (``--action-value-horizon next``) reads observations and other hands in printed suits;
    its values must be the update's own (``values_of`` on the canonicalised tensors) for the same positions,
    in float32 whatever precision the update's tensors are stored at (bfloat16 at ``--precision bf16``)."""
    from agents.neural import network_input

    args = ppo.Args(variant=variant, num_tables=32, hidden="32", critic_hidden="32", critic=critic, eval_every=0,
                    progress=False, threads=1, precision=precision)  # fmt: skip
    tr = ppo.Trainer(args)
    ro, data = learner_rollout(tr, np.random.default_rng(1), tables=32)
    value = ppo.seat_value(tr.net.critic, tr.device, lambda o: network_input(o, "", tr.rules), critic == "full")
    canonical = ppo.canonicalise(tr.net, data)
    np.testing.assert_allclose(value(ro.obs, ro.hidden), ppo.values_of(tr.net, canonical, "fp32"),
                               rtol=1e-4, atol=1e-5)  # fmt: skip


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_the_update_precision_recomputes_the_behaviour_log_probs_close_to_the_rollouts(precision):
    """The rollout samples in float32; at bf16 the update's ratio denominator is recomputed at bf16, and must
    stay the behaviour policy's (within bfloat16 rounding), so the first epoch's ratios start near 1."""
    args = ppo.Args(num_tables=64, precision=precision, eval_every=0, progress=False, threads=1)
    tr = ppo.Trainer(args)
    ro, data = learner_rollout(tr, np.random.default_rng(0))
    recomputed = ppo.logp_of(tr.net, data, args)
    gap = (recomputed - data["logp"]).abs().max().item()
    assert gap < (1e-5 if precision == "fp32" else 0.05), gap
    values = ppo.values_of(tr.net, data, precision)
    assert values.shape == (len(ro),) and np.isfinite(values).all()
    adv, ret = gae(ro, values, 1.0, 0.9)
    data["logp"], data["advantages"], data["returns"] = recomputed, torch.from_numpy(adv), torch.from_numpy(ret)
    stats = ppo.ppo_update(tr.net, tr.opt, data, args, torch.Generator().manual_seed(0))
    assert all(np.isfinite(v) for v in stats.values()) and stats["approx_kl"] < 0.05, stats


def the_saved_model_sees_what_the_update_saw(tr, ro, data, tmp_path):
    """The update's log-probabilities are the rollout's, the saved model (a NeuralAgent working out its own
    ``features``) gives the update's logits, and a whole iteration runs."""
    from agents.neural import NeuralAgent, save_policy

    assert (ppo.logp_of(tr.net, data, tr.args) - data["logp"]).abs().max().item() < 1e-5
    path = save_policy(tmp_path / "m.safetensors", tr.net.actor, tr.config)
    agent = make_agent(f"model:{path}", tr.rules)
    assert isinstance(agent, NeuralAgent) and agent.config.features == tr.args.features
    with torch.no_grad():
        want = tr.net.actor(data["x"]).numpy()
    np.testing.assert_allclose(agent.logits(ro.obs, ro.masks), want, atol=1e-5)
    assert tr.iterate()["decisions"] > 0


def test_derived_features_reach_the_actor_alike_in_rollout_update_and_saved_model(tmp_path):
    """With --features derived the rollout (per step), the update (all rows at once) and the saved model
    (a NeuralAgent) must give the actor the same input: the same log-probabilities and logits."""
    from agents.neural import network_input
    from euchre_env.derived import num_derived_sets
    from euchre_env.encoding import obs_layout

    args = ppo.Args(num_tables=48, features="derived", hidden="32", critic_hidden="32", eval_every=0, prior="",
                    progress=False, threads=1, precision="fp32")  # fmt: skip
    tr = ppo.Trainer(args)
    settings = tr.config.provenance["settings"]  # the model records the default length as resolved
    assert settings["features"] == "derived" and settings["total_decisions"] == ppo.DEFAULT_DECISIONS[4]
    d, k = obs_layout(tr.rules).size, num_derived_sets(tr.rules)
    first = lambda m: next(x for x in m if isinstance(x, torch.nn.Linear)).in_features
    assert first(tr.net.actor) == d + 32 * k and first(tr.net.critic) == d + 32 * (k + 3)
    rng = np.random.default_rng(3)
    inputs = lambda obs: network_input(obs, "derived", tr.rules)
    act = ppo.learner_act(tr.net.actor, torch.Generator().manual_seed(0), tr.device, inputs=inputs)
    seeds = rng.integers(0, 2**63, size=48, dtype=np.uint64)
    ro = collect(tr.rules, seeds, np.full((48, 4), -1, np.int64), act, [], rng, True, record_forced=False)
    data = ppo.to_tensors(ro, args, tr.device, tr.rules)
    assert data["x"].shape == (len(ro), d + 32 * k)
    the_saved_model_sees_what_the_update_saw(tr, ro, data, tmp_path)


def test_partner_features_are_counted_once_and_reach_the_actor_alike_in_rollout_update_and_saved_model(tmp_path):
    """With --features derived+partner (five-handed) the actor sees the observation, the counted partner belief
    (P + 1 columns, 0 before the call) and the derived card sets; the trainer keeps the rollout's belief for the
    update, which must be the belief of the recorded observations, and the update and the saved model
    (a NeuralAgent, which counts it itself) must give the same log-probabilities and logits."""
    from agents.neural import partner_columns
    from euchre_env.beliefs import ExactBelief
    from euchre_env.derived import num_derived_sets

    args = ppo.Args(variant="five_handed", num_tables=48, features="derived+partner", hidden="32",
                    critic_hidden="32", eval_every=0, prior="", progress=False, threads=1, precision="fp32")  # fmt: skip
    tr = ppo.Trainer(args)
    d, k = obs_layout(tr.rules).size, num_derived_sets(tr.rules)
    first = lambda m: next(x for x in m if isinstance(x, torch.nn.Linear)).in_features
    assert first(tr.net.actor) == d + 6 + 32 * k and first(tr.net.critic) == d + 6 + 32 * (k + 4)
    seeds = np.random.default_rng(3).integers(0, 2**63, size=48, dtype=np.uint64)
    controllers = np.full((48, 5), -1, np.int64)
    ro, _ = tr.play(seeds, controllers, [], np.random.default_rng(4), torch.Generator().manual_seed(0))
    assert ro.partner.shape == (len(ro), 6) and ro.partner.dtype == np.float32
    exact = ExactBelief().from_observations(ro.obs, tr.rules, np.zeros(len(ro), bool)).probs
    called = ~np.isnan(exact).any(axis=1)
    assert 0 < called.mean() < 1  # bidding rows and play rows both
    np.testing.assert_allclose(ro.partner[called], exact[called], atol=1e-6)
    assert (ro.partner[~called] == 0).all() and np.allclose(ro.partner[called].sum(1), 1)
    assert np.isin(ro.partner[called, 0], [0, 1]).all()  # a seat knows whether it holds the called card
    np.testing.assert_array_equal(partner_columns(ro.obs, tr.rules), ro.partner)
    data = ppo.to_tensors(ro, args, tr.device, tr.rules)
    assert data["x"].shape == (len(ro), d + 6 + 32 * k)
    np.testing.assert_array_equal(data["x"][:, d : d + 6].numpy(), ro.partner)
    the_saved_model_sees_what_the_update_saw(tr, ro, data, tmp_path)


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_partner_features_train_at_both_precisions(precision):
    """With --features partner an update at either precision keeps the rollout's policy (the ratio's
    denominator within bfloat16 rounding) and a whole iteration gives finite statistics."""
    args = ppo.Args(variant="five_handed", num_tables=32, features="partner", hidden="32", critic_hidden="32",
                    eval_every=0, prior="", progress=False, threads=1, precision=precision)  # fmt: skip
    tr = ppo.Trainer(args)
    seeds = np.random.default_rng(5).integers(0, 2**63, size=32, dtype=np.uint64)
    ro, _ = tr.play(seeds, np.full((32, 5), -1, np.int64), [], np.random.default_rng(6), torch.Generator().manual_seed(0))
    data = ppo.to_tensors(ro, args, tr.device, tr.rules)
    gap = (ppo.logp_of(tr.net, data, args) - data["logp"]).abs().max().item()
    assert gap < (1e-5 if precision == "fp32" else 0.05), gap
    stats = tr.iterate()
    assert stats["decisions"] > 0 and all(np.isfinite(v) for v in stats.values()), stats


def test_partner_features_are_refused_for_the_four_handed_game():
    from agents.neural import network_input

    with pytest.raises(SystemExit):
        ppo.parse_args(["--features", "partner"])
    with pytest.raises(ValueError, match=r"--features partner: 'partner' is the five-handed game's hidden partner, "
                                         r"got --variant four_handed"):  # fmt: skip
        ppo.check_args(ppo.Args(features="partner"))
    rules = make_rules("four_handed")
    with pytest.raises(ValueError, match="five-handed game's hidden partner, got four_handed rules"):
        network_input(np.zeros((1, obs_layout(rules).size), np.uint8), "partner", rules)


def test_told_partner_marks_the_hidden_partner_in_the_learners_observations_only():
    """``--told-partner`` (a yardstick that cheats): the learner's recorded observations, and those it is asked
    on in the action-value copies, mark the hidden partner's relative seat from the call on, as
    ``euchre analyse partner-truth`` tells an agent; nothing else changes, and the other seats see theirs untold."""
    rules = make_rules("five_handed")
    b, p = 200, rules.num_players
    seeds = np.random.default_rng(11).integers(0, 2**63, b, dtype=np.uint64)
    controllers = np.repeat(np.where(np.arange(p) % 2 == 0, -1, 0)[None], b, axis=0)
    at = obs_layout(rules).offsets["revealed_by"]

    class Recording(FirstLegal):
        def __init__(self):
            self.seen = []

        def act(self, obs, masks, rng=None):
            self.seen.append(np.array(obs))
            return super().act(obs, masks, rng)

    def run(told):
        opponent, asked = Recording(), []
        valuer = lambda obs, masks: asked.append(np.array(obs)) or first_legal(obs, masks)
        ro = collect(rules, seeds, controllers, first_legal, [opponent], np.random.default_rng(9),
                     counterfactual=valuer, value_play=True, told=told)  # fmt: skip
        return ro, np.concatenate(opponent.seen), np.concatenate(asked)

    plain, plain_seen, plain_asked = run(False)
    told, told_seen, told_asked = run(True)
    np.testing.assert_array_equal(told_seen, plain_seen)  # the other seats: untold
    np.testing.assert_array_equal(told.actions, plain.actions)  # deterministic players: the same hands
    s = engine.init_state(rules, seeds=seeds)  # the same hands replayed, for each table's partner
    while not engine.is_done(s).all():
        live = np.flatnonzero(~engine.is_done(s))
        base, bits = engine.legal_bits(s.take(live), rules)
        engine.step_rows(s, live, engine.expand(base, bits).argmax(axis=1), rules)
    diff = told.obs != plain.obs
    assert not diff[:, :at].any() and not diff[:, at + p :].any(), "only revealed_by changes"
    changed = diff.any(axis=1)
    partner = s.partner[told.table].astype(np.int64)
    assert changed.sum() > 50 and not (changed & (partner == told.seat)).any(), "the holder is told nothing"
    rel = (partner - told.seat) % p
    assert (told.obs[changed, at + rel[changed]] == 1).all() and (plain.obs[changed, at : at + p] == 0).all()
    assert (told.obs[changed, at : at + p].sum(axis=1) == 1).all()
    asked = told_asked != plain_asked  # the action-value copies ask the learner told too
    assert asked.any() and not asked[:, :at].any() and not asked[:, at + p :].any()
    with pytest.raises(ValueError, match="--told-partner tells the five-handed game's hidden partner, got --variant "
                                         "four_handed"):  # fmt: skip
        ppo.check_args(ppo.Args(told_partner=True))


@pytest.mark.parametrize("algo", ["ppo", "dmc"])
def test_told_partner_reaches_the_rollout_of_either_learner(monkeypatch, algo):
    from training.batched import rollout
    from training.batched.args import algo_args
    from training.batched.dmc import DMCTrainer

    asked, real = [], rollout.collect
    monkeypatch.setattr(rollout, "collect", lambda *a, **k: asked.append(k.get("told")) or real(*a, **k))
    args = algo_args(algo, variant="five_handed", told_partner=True, num_tables=16, hidden="32", eval_every=0,
                     progress=False, threads=1)  # fmt: skip
    tr = (DMCTrainer if algo == "dmc" else ppo.Trainer)(args)
    seeds = np.random.default_rng(5).integers(0, 2**63, size=16, dtype=np.uint64)
    tr.play(seeds, np.full((16, 5), -1, np.int64), [], np.random.default_rng(6), torch.Generator().manual_seed(0))
    assert asked == [True]


@pytest.mark.parametrize("variant,sort", [("four_handed", False), ("five_handed", True)])
def test_canonical_rollout_data_gives_the_same_log_probs_values_and_update_as_printed(variant, sort):
    """The trainer puts a rollout in canonical suits once (``ppo.canonicalise``) and runs the plain layers in the
    update; that must be the suit-symmetric networks' own result on the printed data: the same log-probabilities
    of the taken actions (the prior's bonus included), values, and weights after a PPO update."""
    import copy

    args = ppo.Args(variant=variant, num_tables=64, minibatch_size=128, hidden="32", critic_hidden="32",
                    sort_other_colour=sort, eval_every=0, progress=False, threads=1, precision="fp32")  # fmt: skip
    tr = ppo.Trainer(args)
    ro, printed = learner_rollout(tr, np.random.default_rng(5))
    canonical = ppo.canonicalise(tr.net, printed, chunk=100)  # several chunks
    assert canonical["canonical"] and "canonical" not in printed
    assert canonical["masks"].sum(1).tolist() == printed["masks"].sum(1).tolist()
    assert canonical["masks"].gather(1, canonical["actions"][:, None]).all()  # the taken action stays legal
    assert not torch.equal(canonical["x"], printed["x"])  # some rows were relabelled
    for data in (printed, canonical):
        np.testing.assert_allclose(ppo.logp_of(tr.net, data, args).numpy(), ro.logp, atol=1e-5)
    values = ppo.values_of(tr.net, printed, "fp32")
    np.testing.assert_allclose(ppo.values_of(tr.net, canonical, "fp32"), values, atol=1e-5)
    adv, ret = gae(ro, values, 1.0, 0.9)
    nets = []
    for data in (printed, canonical):
        net = copy.deepcopy(tr.net)
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        data = {**data, "advantages": torch.from_numpy(adv), "returns": torch.from_numpy(ret)}
        ppo.ppo_update(net, opt, data, args, torch.Generator().manual_seed(0))
        nets.append(net)
    moved = 0.0
    for a, b, before in zip(nets[0].parameters(), nets[1].parameters(), tr.net.parameters(), strict=True):
        torch.testing.assert_close(a, b, atol=1e-4, rtol=1e-4)
        moved = max(moved, (a - before).abs().max().item())
    assert moved > 1e-3  # the update did change the weights


# ----------------------------------------------------------------------------- precision


@pytest.mark.parametrize("has_bf16", [True, False])
def test_auto_precision_follows_the_cpu_probe(monkeypatch, has_bf16):
    """``--precision auto`` is bf16 exactly where the CPU probe finds bfloat16 units (probe mocked both ways);
    an explicit precision is kept whatever the probe says."""
    from training.batched import precision

    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: has_bf16)
    assert ppo.resolve_args(ppo.Args(precision="auto")).precision == ("bf16" if has_bf16 else "fp32")
    for explicit in ("fp32", "bf16"):
        assert ppo.resolve_args(ppo.Args(precision=explicit)).precision == explicit


def test_the_probe_reads_cpuinfo_unless_the_environment_says(monkeypatch, tmp_path):
    """``EUCHRE_CPU_BF16`` (1 or 0) decides the probe, so either kind of CPU's ``auto`` can be run anywhere; a
    value other than 0 or 1 is refused by name; unset, the probe reads the CPU's flags."""
    for value, expect in (("1", True), ("0", False)):
        monkeypatch.setenv(ppo.BF16_ENV, value)
        assert ppo.cpu_has_bf16() is expect
        assert ppo.resolve_precision("auto", "cpu") == ("bf16" if expect else "fp32")
    monkeypatch.setenv(ppo.BF16_ENV, "yes")
    with pytest.raises(ValueError, match="EUCHRE_CPU_BF16 must be 0 or 1"):
        ppo.cpu_has_bf16()
    monkeypatch.delenv(ppo.BF16_ENV)
    cpuinfo = Path("/proc/cpuinfo")
    flags = cpuinfo.read_text() if cpuinfo.is_file() else ""
    assert ppo.cpu_has_bf16() is ("amx_bf16" in flags or "avx512_bf16" in flags)


def test_a_pass_runs_at_the_asked_precision_whatever_its_inputs_are_stored_in():
    """The update stores its inputs as bfloat16 at bf16; a float32 pass over them (as the tests and the
    ``--action-value-horizon next`` critic make) must still run, in float32, and a bf16 pass over float32
    inputs in bfloat16. 'auto' must be resolved first."""
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    x = torch.randint(0, 2, (5, 8)).float()
    expect = net(x)
    out = ppo.run_at(net, x.to(torch.bfloat16), "fp32")  # binary inputs are exact in bfloat16
    assert out.dtype == torch.float32
    torch.testing.assert_close(out, expect)
    low = ppo.run_at(net, x, "bf16")
    assert low.dtype == torch.bfloat16
    torch.testing.assert_close(low.float(), expect, atol=0.05, rtol=0.05)
    with pytest.raises(ValueError, match="resolve 'auto' first"):
        ppo.run_at(net, x, "auto")


def test_a_model_trained_at_either_precision_saves_the_same_format_and_plays_alike(tmp_path):
    """fp32 and bf16 runs of the same seed write files of the same tensors (names, shapes, float32) and the
    same config but for the precision setting; both load and play as agents. Their weights differ (bfloat16
    rounding in the update) but only slightly after so short a run."""
    from safetensors import safe_open

    files = {}
    for precision in ("fp32", "bf16"):
        out = tmp_path / precision
        ppo.train(ppo.parse_args(["--out", str(out), "--seed", "3", "--total-decisions", "3000", *TINY,
                                  "--precision", precision]))  # fmt: skip
        files[precision] = out / "model.safetensors"
    tensors = {}
    for precision, path in files.items():
        with safe_open(str(path), "pt") as f:
            tensors[precision] = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118 (not iterable)
            assert set(f.metadata()) == {"euchre_env"}  # the config, JSON
    assert tensors["fp32"].keys() == tensors["bf16"].keys()
    for k, v in tensors["fp32"].items():
        assert v.dtype == tensors["bf16"][k].dtype == torch.float32 and v.shape == tensors["bf16"][k].shape, k
    assert any(not torch.equal(v, tensors["bf16"][k]) for k, v in tensors["fp32"].items())  # it did train at bf16
    configs = {p: load_policy(f)[1].to_json() for p, f in files.items()}
    strip = lambda c: {**json.loads(c), "provenance": None}
    assert strip(configs["fp32"]) == strip(configs["bf16"])
    settings = {p: json.loads(c)["provenance"]["settings"] for p, c in configs.items()}
    assert {k for k in settings["fp32"] if settings["fp32"][k] != settings["bf16"][k]} == {"precision"}
    rules = make_rules("four_handed")
    result = evaluate({p: f"model:{f}" for p, f in files.items()}, rules, 20, seed=4)
    assert result.num_deals == 20


def test_a_checkpoint_whose_snapshot_count_was_edited_is_refused(tmp_path):
    """The metadata's snapshot count must match the snapshots the file holds: a clear error, not a crash."""
    from safetensors import safe_open
    from safetensors.torch import save_file

    from training.runs import load_checkpoint

    args = ppo.Args(variant="four_handed", num_tables=8, hidden="16", critic_hidden="16", threads=1,
                    progress=False, opponents="self=1,snapshots=1")  # fmt: skip
    tr = ppo.Trainer(args)
    tr.add_snapshot()
    tr.save(tmp_path / "checkpoint.safetensors")
    fresh = ppo.Trainer(args)
    fresh.load(tmp_path / "checkpoint.safetensors")
    assert len(fresh.snapshot_actors) == 1
    with safe_open(str(tmp_path / "checkpoint.safetensors"), framework="pt") as f:
        meta, tensors = dict(f.metadata()), {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118
    key = "euchre_env_checkpoint"
    meta[key] = json.dumps({**json.loads(meta[key]), "snapshots": 10**9})
    save_file(tensors, str(tmp_path / "edited.safetensors"), metadata=meta)
    with pytest.raises(ValueError, match="lists 1000000000 snapshots but it holds 1"):
        load_checkpoint(tmp_path / "edited.safetensors", fresh.net, fresh.opt, lambda: None)
