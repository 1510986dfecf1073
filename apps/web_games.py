"""The games and replays ``euchre serve`` keeps: a table played by a person and bots, a record replayed."""

from __future__ import annotations

import copy
import dataclasses
import secrets
from collections.abc import Sequence
from typing import Any

import numpy as np

from apps.web_views import HandStory, action_json, belief_json, view_json
from euchre_env import actions, engine
from euchre_env.encoding import encode
from euchre_env.records import HandRecord, HandRecorder
from euchre_env.render import agent_name
from euchre_env.rules import RulesConfig, make_rules
from euchre_env.state import State
from euchre_env.types import Policy

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
HUMAN = "human"  # the agent name of the person's seat (in the view and the records)
SHIPPED_MODELS = ("model:four_handed", "model:five_handed")


class ApiError(Exception):
    """A refused request: HTTP ``status`` and a message for the person (the game is unchanged)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclasses.dataclass(frozen=True)
class ServeConfig:
    """The server's defaults (the page's new-game form starts from them) and the agents it may seat.

    Attributes:
        variant: a rules preset name (``PRESETS``).
        seat: the human's seat.
        bots: one agent name for every other seat, or one per other seat from the human's left.
        seed: seed of the deals and bots (None: a fresh secret one per game).
        episode: ``"hand"`` (one hand at a time) or ``"game"`` (to ``points_to_win``).
        points_to_win: the game target (None: the preset's).
        belief: show the five-handed partner belief panel.
        extra_agents: agent names the page may choose besides the built-in ones (those given on the
            command line, e.g. ``model:runs/ppo/model.safetensors``).
        hosts: the host names a request may be addressed to (its ``Host`` header); None: any. A page
            of another site cannot then reach the server through a name of its own pointed at this
            machine (DNS rebinding).
    """

    variant: str = "four_handed"
    seat: int = 0
    bots: tuple[str, ...] = ("heuristic",)
    seed: int | None = None
    episode: str = "hand"
    points_to_win: int | None = None
    belief: bool = True
    extra_agents: tuple[str, ...] = ()
    hosts: tuple[str, ...] | None = LOCAL_HOSTS

    def allowed_agents(self) -> list[str]:
        """Agent names a request may seat (any other name is refused: loading a model reads a file)."""
        from agents import agent_names

        known = [n for n in agent_names() if not n.endswith(":...")]
        return list(dict.fromkeys([*known, *SHIPPED_MODELS, *self.bots, *self.extra_agents]))


class Game:
    """One table being played in the browser: the engine state, the bots, the story and the records.

    A refused request never reaches a ``Game`` method that changes it (the
    server checks first), and a request that is carried out works on a clone
    (:meth:`clone`) that replaces the game only when everything succeeded.
    """

    def __init__(
        self,
        game_id: str,
        rules: RulesConfig,
        human: int,
        names: Sequence[str],
        bots: dict[int, Policy],
        seed: int | None,
        belief: bool,
    ) -> None:
        self.id = game_id
        self.rules = rules
        self.human = human
        self.names = list(names)
        self.bots = bots
        self.belief = belief and rules.called_card
        self.chosen_seed = seed
        # The deals' seeds: from the chosen seed (reproducible), else secret.
        self.seed_rng = np.random.default_rng(seed if seed is not None else secrets.randbits(64))
        self.rng = np.random.default_rng(self.seed_rng.integers(0, 2**63))
        self.version = 0
        self.hands_played = 0
        self.totals = [0] * rules.num_players  # hand-by-hand play: points over the hands
        self.story = HandStory(rules, human)
        self.recorder = HandRecorder(rules, agents=self.names)
        self.records: list[HandRecord] = []
        self.pending: list[HandRecord] = []  # game play: the records of a game not yet over
        self.state = self._deal()

    def clone(self) -> Game:
        """A copy to work on (the bots and rules are shared; everything that changes is copied)."""
        new = copy.copy(self)
        for name in ("story", "recorder", "seed_rng", "rng"):
            setattr(new, name, copy.deepcopy(getattr(self, name)))
        new.totals, new.records, new.pending = list(self.totals), list(self.records), list(self.pending)
        new.state = self.state.copy()
        return new

    def _deal(self) -> State:
        s = engine.init_state(self.rules, seeds=[int(self.seed_rng.integers(0, 2**63))])
        self.story.start(s)
        return s

    @property
    def over(self) -> bool:
        """The episode (a hand, or a game) is over."""
        return bool(engine.is_done(self.state)[0])

    def legal(self) -> list[int]:
        """The legal action ids of the seat to act ([] once over)."""
        if self.over:
            return []
        return engine.expand(self.state.mask_base, self.state.mask_bits)[0].nonzero()[0].tolist()

    def _step(self, action: int) -> None:
        before = self.state
        seat = int(before.turn[0])
        self.recorder(before, np.array([action], np.int64))
        after = engine.step(before, np.array([action], np.int64), self.rules)
        self.state = after
        self.version += 1
        self.story.step(before, seat, action, after)
        if bool(after.hand_over[0]):
            self.hands_played += 1
            self.totals = [a + int(b) for a, b in zip(self.totals, after.last_points[0], strict=True)]
            done = self.recorder.finish(after)
            if self.rules.episode == "game" and not self.over:
                self.pending += done
            else:
                self.records += self.pending + done
                self.pending = []

    def run_bots(self) -> None:
        """Let the bots move until it is the human's turn or the episode is over."""
        while not self.over and int(self.state.turn[0]) != self.human:
            seat = int(self.state.turn[0])
            obs = encode(self.state, seat, self.rules, dtype=np.float32)
            mask = engine.legal_action_mask(self.state, self.rules)
            action = int(np.asarray(self.bots[seat].act(obs, mask, self.rng)).reshape(-1)[0])
            if not (0 <= action < mask.shape[1] and mask[0, action]):
                raise RuntimeError(
                    f"bot {self.names[seat]!r} at seat {seat} chose an illegal action {action}"
                )
            self._step(action)

    def move(self, action: int) -> None:
        """The human's (already checked) legal action, then the bots'."""
        self._step(action)
        self.run_bots()

    def next_hand(self) -> None:
        """Hand-by-hand play: deal the next hand (the previous one is over)."""
        self.state = self._deal()
        self.version += 1
        self.run_bots()

    def view(self) -> dict[str, Any]:
        """The page's view from the human's seat."""
        out = view_json(self.state, self.rules, self.human, self.names, self.story)
        out.update(
            game_id=self.id,
            version=self.version,
            human=self.human,
            your_turn=not self.over and int(self.state.turn[0]) == self.human,
            legal=[action_json(a) for a in self.legal()]
            if not self.over and self.state.turn[0] == self.human
            else [],
            hands_played=self.hands_played,
            totals=list(self.totals),
            can_deal=self.over and self.rules.episode == "hand",
            records=len(self.records),
            belief=belief_json(self.state, self.rules, self.human) if self.belief and not self.over else None,
        )
        return out


class Replay:
    """A checked hand record opened for stepping through (under ``episode="hand"``, so its last step is
    the finished hand even for a hand of a game)."""

    def __init__(self, replay_id: str, record: HandRecord) -> None:
        self.id = replay_id
        self.record = record
        self.rules = make_rules(record.rules, episode="hand")
        self.states = dataclasses.replace(record, rules=self.rules).states()
        self._stories: dict[int | None, list[tuple[int, list[dict], list[str]]]] = {}

    @property
    def steps(self) -> int:
        """Decisions in the hand (the views are steps 0..steps)."""
        return len(self.record.decisions)

    def _story(self, viewer: int | None) -> list[tuple[int, list[dict], list[str]]]:
        """Per step: (lines told so far, finished tricks, the lines) as ``viewer`` is told the hand."""
        if viewer not in self._stories:
            story = HandStory(self.rules, viewer)
            story.start(self.states[0])
            snaps = [(len(story.lines), list(story.tricks))]
            for d, before, after in zip(
                self.record.decisions, self.states[:-1], self.states[1:], strict=True
            ):
                story.step(before, d.seat, d.action, after)
                snaps.append((len(story.lines), list(story.tricks)))
            self._stories[viewer] = [(n, t, story.lines) for n, t in snaps]
        return self._stories[viewer]

    def view(self, step: int, seat: int | None) -> dict[str, Any]:
        """The table after ``step`` decisions, from ``seat`` (None: every hand shown)."""
        s = self.states[step]
        n, tricks, lines = self._story(seat)[step]
        story = HandStory(self.rules, seat)
        story.lines, story.tricks = lines[:n], tricks
        names = (
            list(self.record.agents)
            if self.record.agents
            else [agent_name(x) for x in range(self.rules.num_players)]
        )
        out = view_json(s, self.rules, seat, names, story, reveal_all=seat is None)
        nxt = self.record.decisions[step] if step < self.steps else None
        prev = self.record.decisions[step - 1] if step > 0 else None
        # From one seat: the seat's own decisions, and the others' once taken (a discard stays face down).
        hide = lambda d: (
            seat is not None and d.seat != seat and d.action in range(actions.DISCARD_BASE, actions.CALL_BASE)
        )
        decision = lambda d: None if d is None else {
            "seat": d.seat, "action": None if hide(d) else d.action,
            "name": "discard (face down)" if hide(d) else d.name,
        }  # fmt: skip
        out.update(
            replay_id=self.id, step=step, steps=self.steps,
            next_decision=decision(nxt) if nxt is not None and seat in (None, nxt.seat) else None,
            previous_decision=decision(prev), record_points=list(self.record.points),
            record_scores=list(self.record.scores), rules=self.record.to_dict()["rules"],
        )  # fmt: skip
        return out
