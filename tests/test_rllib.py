"""The Ray RLlib backend (training/rllib/, the ``rllib`` extra): the MultiAgentEnv adapter, policy mapping,
and a tiny run on a local two-CPU Ray that trains, checkpoints, resumes, exports and beats random."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from euchre_env.envs.aec_env import raw_env
from training.rllib.env import EuchreMultiAgentEnv, agent_position, agent_table
from training.rllib.train import Args, PolicyMapping, check_args, snapshot_name

VARIANTS = ("four_handed", "five_handed")


def legal_choice(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("variant", VARIANTS)
def test_adapter_plays_the_same_hands_as_the_pettingzoo_env(variant: str) -> None:
    """Table i of reset(seed=s) is the AEC env's reset(seed=s + i): same observations, masks, seats, rewards."""
    tables, seed = 6, 40
    env = EuchreMultiAgentEnv({"variant": variant, "tables": tables, "zero_sum": False})
    refs = [raw_env(variant) for _ in range(tables)]
    rng = np.random.default_rng(1)
    for game in range(3):
        obs, _ = env.reset(seed=seed + 100 * game)
        for i, ref in enumerate(refs):
            ref.reset(seed=seed + 100 * game + i)
        paid: dict[str, float] = {}
        while True:
            to_act = {a: o for a, o in obs.items() if o["action_mask"].any()}
            # exactly one seat to act at each table still playing, the same seat and view as the reference
            assert sorted(agent_table(a) for a in to_act) == sorted({agent_table(a) for a in to_act})
            actions = {}
            for agent, o in to_act.items():
                ref = refs[agent_table(agent)]
                seat = env.seat_of(agent)
                assert ref.agent_selection == ref.possible_agents[seat]
                ref_obs = ref.observe(ref.agent_selection)
                np.testing.assert_array_equal(o["observations"], ref_obs["observation"].astype(np.float32))
                np.testing.assert_array_equal(o["action_mask"], ref_obs["action_mask"].astype(np.float32))
                actions[agent] = legal_choice(o["action_mask"], rng)
                ref.step(actions[agent])
            obs, rewards, terms, truncs, _ = env.step(actions)
            assert truncs == {"__all__": False}
            for agent, r in rewards.items():
                if terms.get(agent):
                    paid[agent] = r
                else:
                    assert r == 0.0  # rewards come only when the hand ends
            if terms["__all__"]:
                break
        for agent, r in paid.items():
            ref = refs[agent_table(agent)]
            assert all(ref.terminations.values())
            assert r == pytest.approx(ref._cumulative_rewards[ref.possible_agents[env.seat_of(agent)]])
        assert {agent_table(a) for a in paid} == set(range(tables))


def test_only_seats_that_acted_are_paid_and_every_observation_has_a_reward() -> None:
    env = EuchreMultiAgentEnv({"variant": "four_handed", "tables": 64, "seed": 3})
    rng = np.random.default_rng(0)
    acted: set[str] = set()
    obs, _ = env.reset()
    while True:
        actions = {a: legal_choice(o["action_mask"], rng) for a, o in obs.items() if o["action_mask"].any()}
        acted |= set(actions)
        obs, rewards, terms, _, _ = env.step(actions)
        assert set(obs) == set(rewards)  # RLlib refuses an observation without a reward
        finished = {a for a in terms if a != "__all__"}
        assert finished <= acted
        assert all(not o["action_mask"].any() for a, o in obs.items() if a in finished)
        if terms["__all__"]:
            break


def test_illegal_actions_end_the_table_with_a_penalty_or_raise() -> None:
    env = EuchreMultiAgentEnv({"variant": "four_handed", "tables": 2, "zero_sum": False})
    obs, _ = env.reset(seed=7)
    actions = {a: int(np.flatnonzero(o["action_mask"] == 0)[0]) for a, o in obs.items()}
    bad = min(actions)
    good = {a: legal_choice(o["action_mask"], np.random.default_rng(0)) for a, o in obs.items()}
    obs, rewards, terms, _, _ = env.step({**good, bad: actions[bad]})
    assert rewards[bad] == -1.0 and terms[bad]
    assert all(agent_table(a) != agent_table(bad) for a in obs if not terms.get(a))
    strict = EuchreMultiAgentEnv({"variant": "four_handed", "tables": 2, "illegal_action": "raise"})
    obs, _ = strict.reset(seed=7)
    with pytest.raises(ValueError, match="is not legal"):
        strict.step({a: int(np.flatnonzero(o["action_mask"] == 0)[0]) for a, o in obs.items()})
    obs, _ = strict.reset(seed=7)
    with pytest.raises(ValueError, match="missing"):
        strict.step({})


@pytest.mark.parametrize(
    ("config", "match"),
    [({"variant": "six_handed"}, "variant"), ({"tables": 0}, "tables"), ({"colour": 1}, "unknown keys"),
     ({"illegal_action": "ignore"}, "illegal_action"), ({"rules": {"episode": "game"}}, "single hands")],
)  # fmt: skip
def test_bad_env_config_is_refused(config: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        EuchreMultiAgentEnv(config)


def test_rllib_env_checker_passes_at_defaults() -> None:
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    for variant in VARIANTS:
        check_multiagent_environments(EuchreMultiAgentEnv({"variant": variant, "tables": 4}))


class Episode:
    def __init__(self, id_: str) -> None:
        self.id_ = id_


@pytest.mark.parametrize(("players", "variant"), [(4, "four_handed"), (5, "five_handed")])
def test_snapshot_mapping_is_per_table_and_never_takes_every_seat(players: int, variant: str) -> None:
    mapping = PolicyMapping(["main"], players, snapshots=3, prob=0.5, seed=1)
    snapshot_tables = 0
    for e in range(200):
        episode = Episode(f"episode{e}")
        for table in range(4):
            modules = [mapping(f"t{table}_p{q}", episode) for q in range(players)]
            assert modules == [mapping(f"t{table}_p{q}", episode) for q in range(players)]  # stable
            snaps = {m for m in modules if m != "main"}
            assert len(snaps) <= 1 and "main" in modules
            if snaps:
                snapshot_tables += 1
                assert snaps <= {snapshot_name("main", k) for k in range(3)}
                if players == 4:  # one whole side
                    sides = {q % 2 for q in range(4) if modules[q] != "main"}
                    assert len(sides) == 1 and sum(m != "main" for m in modules) == 2
    assert 0.4 < snapshot_tables / 800 < 0.6
    by_position = PolicyMapping([f"pos{q}" for q in range(players)], players, snapshots=0, prob=0.5, seed=1)
    assert [by_position(f"t0_p{q}", Episode("x")) for q in range(players)] == [
        f"pos{q}" for q in range(players)
    ]
    assert agent_position("t12_p3") == 3 and agent_table("t12_p3") == 12


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [("tables", 0, "--tables"), ("snapshot_prob", 1.5, "--snapshot-prob"), ("hidden", "a,b", "--hidden"),
     ("minibatch_size", 10**6, "--minibatch-size"), ("device", "tpu", "--device")],
)  # fmt: skip
def test_bad_options_name_the_option(field: str, value: object, match: str) -> None:
    args = Args(**{field: value})
    with pytest.raises(ValueError, match=match):
        check_args(args)


@pytest.mark.parametrize(("variant", "prior"), [("four_handed", ""), ("four_handed", "heuristic"),
                                              ("five_handed", "heuristic")])  # fmt: skip
def test_exported_model_file_plays_exactly_as_the_module(tmp_path, variant: str, prior: str) -> None:
    """The model file (weights plus JSON, prior recorded) gives the module's logits on every legal action."""
    import torch
    from ray.rllib.core.columns import Columns

    from agents.neural import NeuralAgent
    from euchre_env.rules import make_rules
    from training.rllib.module import MaskedMLPModule, export_policy

    env = EuchreMultiAgentEnv({"variant": variant, "tables": 256, "seed": 2})
    rng = np.random.default_rng(3)
    obs, _ = env.reset()
    rows = []
    for _ in range(12):  # observations from bidding to card play
        rows += [o for o in obs.values() if o["action_mask"].any()]
        obs, *_ = env.step(
            {a: legal_choice(o["action_mask"], rng) for a, o in obs.items() if o["action_mask"].any()}
        )
    x = np.stack([o["observations"] for o in rows])
    masks = np.stack([o["action_mask"] for o in rows])
    module = MaskedMLPModule(
        observation_space=env.observation_spaces["t0_p0"], action_space=env.action_spaces["t0_p0"],
        model_config={"hidden": [32, 16], "prior": prior, "prior_weight": 2.5, "variant": variant},
    )  # fmt: skip
    with torch.no_grad():
        out = module._forward({Columns.OBS: {"observations": torch.as_tensor(x),
                                             "action_mask": torch.as_tensor(masks)}})  # fmt: skip
    logits = out[Columns.ACTION_DIST_INPUTS].numpy()
    rules = make_rules(variant)
    path = export_policy(
        module.state_dict(), rules, [32, 16], "relu", tmp_path / "m.safetensors", {}, prior, 2.5
    )
    agent = NeuralAgent(path, rules)
    legal = masks > 0.5
    np.testing.assert_allclose(agent.logits(x, legal)[legal], logits[legal], rtol=1e-5, atol=1e-5)
    assert (logits[~legal] <= -1e8).all()
    if prior:  # the untrained module's choice is mostly the heuristic's
        from agents.heuristic import HeuristicAgent

        same = agent.act(x, legal, rng) == HeuristicAgent(rules).act(x, legal, rng)
        assert same.mean() > 0.9


def euchre(*argv: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "apps.cli", *argv], capture_output=True, text=True,
                          timeout=timeout, check=False)  # fmt: skip


def test_cli_refuses_algo_with_rllib_and_unknown_backends() -> None:
    r = euchre("train", "--backend", "rllib", "--algo", "sb3")
    assert r.returncode == 2 and "--algo" in r.stderr
    r = euchre("train", "--backend", "spark")
    assert r.returncode == 2 and "--backend must be one of" in r.stderr


def test_tiny_rllib_run_trains_checkpoints_resumes_and_beats_random(tmp_path) -> None:
    """Two-CPU local Ray, one env runner: 3 iterations, then --resume to 6; the model beats random in euchre eval."""
    out = tmp_path / "run"
    small = ["--prior", "", "--tables", "64", "--train-batch", "8000", "--minibatch-size", "1000", "--learning-rate", "1e-3",
             "--num-cpus", "2", "--num-env-runners", "1", "--snapshot-every", "2", "--final-eval-deals", "0"]  # fmt: skip
    first = euchre("train", "--backend", "rllib", "--out", str(out), "--iterations", "3", "--eval-every", "3",
                   "--eval-deals", "50", *small)  # fmt: skip
    assert first.returncode == 0, first.stderr[-3000:]
    assert (out / "checkpoint").is_dir() and (out / "model.safetensors").is_file()
    assert (out / "learning_curve.png").is_file() and list((out / "tb").iterdir())
    history = json.loads((out / "eval_history.json").read_text())["history"]
    assert [h["iteration"] for h in history] == [3] and "heuristic" in history[0]["eval"]
    assert json.loads((out / "progress.json").read_text())["iteration"] == 3
    args = json.loads((out / "args.json").read_text())
    args["iterations"] = 6
    (out / "args.json").write_text(json.dumps(args))
    resumed = euchre("train", "--backend", "rllib", "--resume", str(out), "--num-cpus", "2")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "resumed" in resumed.stdout and "at iteration 3" in resumed.stdout
    progress = json.loads((out / "progress.json").read_text())
    assert progress["iteration"] == 6, resumed.stdout[-2000:]
    # 8000 agent steps an iteration: the decisions played, plus an observation per seat and hand
    assert 6 * 8000 * 0.8 <= progress["decisions"] < 6 * 8000 * 1.1, resumed.stdout[-2000:]
    # the snapshots play a side at 30% of the tables (--snapshot-prob): about 15% of the decisions are theirs
    assert 0.75 * progress["decisions"] < progress["learner_decisions"] < 0.95 * progress["decisions"]
    assert [c[0] for c in progress["curve"]] == sorted(
        c[0] for c in progress["curve"]
    )  # one history, continued
    assert len(progress["curve"]) == 6
    from agents.neural import load_policy

    _, config = load_policy(out / "model.safetensors")  # data only: weights plus JSON
    assert config.provenance["algo"] == "rllib-ppo" and config.provenance["iteration"] == 6
    r = euchre("eval", "--variant", "four_handed", "--agents", f"model:{out / 'model.safetensors'}", "random",
               "--deals", "400", "--games", "0", "--out", str(tmp_path / "eval"))  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    result = json.loads((tmp_path / "eval" / "eval.json").read_text())
    adv = result["matchups"][0]["advantage"]
    assert adv["mean"] - adv["ci95"] > 0, (
        adv,
        resumed.stdout[-2000:],
    )  # ahead of random outside the 95% interval


RAY_NOTICES = (
    "Token authentication",  # ray.init, with a token on the machine
    "new API stack",  # RLlib's PPOConfig
    "DeprecationWarning",  # RLlib: `RLModule(config=[RLModuleConfig object])` has been deprecated
    "gputil",  # Tune's utilisation monitor
    "Started a local Ray instance",
    "pid=",  # an actor's output forwarded to the driver: "(EuchreEnvRunner pid=123) ..."
)
RAY_LOG_LINE = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\s+(WARNING|INFO|DEBUG)"  # Ray's and RLlib's log format


def test_a_quiet_run_shows_only_its_progress_and_counts_decisions_played_and_learned(tmp_path) -> None:
    """Without --verbose the terminal shows the run's progress and none of Ray's start-up notices or
    warnings; with --verbose they are shown.

    progress.json's counters mean what the local trainer's mean (training.runs.Progress): ``decisions``
    counts every decision played at the tables, the frozen snapshots' included; ``learner_decisions`` those
    of the modules that learn, which PPO trains on. So ``decisions >= learner_decisions``: strictly more
    when snapshots play some tables (here a side at every table, --snapshot-prob 1, so about half the
    decisions are the snapshot's), equal when none does (--snapshots 0)."""
    tiny = ["--iterations", "1", "--tables", "16", "--train-batch", "2000", "--minibatch-size", "500",
            "--num-cpus", "2", "--num-env-runners", "1", "--final-eval-deals", "0", "--prior", ""]  # fmt: skip
    quiet = euchre("train", "--backend", "rllib", "--out", str(tmp_path / "quiet"), "--snapshots", "1",
                   "--snapshot-prob", "1", *tiny)  # fmt: skip
    assert quiet.returncode == 0, quiet.stderr[-3000:]
    shown = quiet.stdout + quiet.stderr
    assert not [n for n in RAY_NOTICES if n in shown] and not re.search(RAY_LOG_LINE, shown), shown[-3000:]
    assert re.search(r"^iteration 1: \d+ learner decisions \(\d+ played\)", quiet.stdout, re.MULTILINE), (
        quiet.stdout
    )
    progress = json.loads((tmp_path / "quiet" / "progress.json").read_text())
    decisions, learned = progress["decisions"], progress["learner_decisions"]
    assert 2000 * 0.8 <= decisions <= 2000 * 1.1 and 0.4 * decisions < learned < 0.6 * decisions, progress
    verbose = euchre("train", "--backend", "rllib", "--out", str(tmp_path / "verbose"), "--snapshots", "0",
                     "--verbose", *tiny)  # fmt: skip
    assert verbose.returncode == 0, verbose.stderr[-3000:]
    assert "You are running PPO on the new API stack" in verbose.stderr, verbose.stderr[-3000:]
    assert re.search(RAY_LOG_LINE, verbose.stderr), verbose.stderr[-3000:]
    progress = json.loads((tmp_path / "verbose" / "progress.json").read_text())
    assert progress["decisions"] == progress["learner_decisions"] > 0, progress
    args = json.loads((tmp_path / "verbose" / "args.json").read_text())
    assert args["verbose"] is True


def test_the_env_counts_each_agents_actions_for_the_decision_counter() -> None:
    """``take_actions`` gives the actions each agent took since it was last read (CountDecisions splits them
    into the learning modules' and the snapshots'); ``take_decisions`` their total."""
    env = EuchreMultiAgentEnv({"variant": "five_handed", "tables": 8, "seed": 5})
    rng = np.random.default_rng(2)
    obs, _ = env.reset()
    want: Counter[str] = Counter()
    for step in range(30):
        actions = {a: legal_choice(o["action_mask"], rng) for a, o in obs.items() if o["action_mask"].any()}
        if not actions:
            obs, _ = env.reset()
            continue
        want.update(actions.keys())  # one decision per agent that acted
        obs, *_ = env.step(actions)
        if step == 9:
            assert env.take_actions() == want
            want = Counter()
    assert env.take_decisions() == sum(want.values()) > 0
    assert env.take_actions() == Counter() and env.take_decisions() == 0


def test_five_handed_one_policy_per_position_in_the_driver(tmp_path) -> None:
    """--policies position (one module per position), sampled in the driver (--num-env-runners 0)."""
    out = tmp_path / "five"
    r = euchre("train", "--backend", "rllib", "--variant", "five_handed", "--policies", "position", "--out", str(out),
               "--iterations", "1", "--tables", "16", "--train-batch", "2000", "--minibatch-size", "500",
               "--num-cpus", "2", "--num-env-runners", "0", "--final-eval-deals", "50")  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    from agents import make_agent
    from euchre_env.rules import make_rules

    bot = make_agent(f"model:{out / 'model.safetensors'}", make_rules("five_handed"))
    assert bot.config.provenance["module"] == "pos0"
    assert json.loads((out / "eval.json").read_text())["num_deals"] == 50


def test_env_runner_reports_no_nan_steps_for_agents_absent_from_a_short_round() -> None:
    """RLlib's MultiAgentEnvRunner reports NaN for agents that sampled before but not now (ray#62635); ours drops them."""
    import math

    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
    from ray.rllib.utils.metrics import NUM_AGENT_STEPS_SAMPLED

    from training.rllib.runner import EuchreEnvRunner
    from training.rllib.train import build_config

    config = build_config(Args(tables=16, num_env_runners=0, snapshots=0))
    counts = {}
    for cls in (MultiAgentEnvRunner, EuchreEnvRunner):
        runner = cls(config=config)
        runner.sample(num_timesteps=600)
        runner.get_metrics()
        runner.sample(num_timesteps=5)  # a short round: most agents absent
        steps = runner.get_metrics()[NUM_AGENT_STEPS_SAMPLED]
        counts[cls.__name__] = [float(v) for v in steps.values()]
        runner.stop()
    assert any(math.isnan(v) for v in counts["MultiAgentEnvRunner"])  # the bug, as RLlib 2.60 has it
    assert counts["EuchreEnvRunner"] and not any(math.isnan(v) for v in counts["EuchreEnvRunner"])
