"""The learned partner belief: counting plus what the network learns; a classifier file is data, the
rules' certainties hold, it beats counting on held-out hands, and its features say what the table showed.

Also the scoring functions of ``partner_lab.classifier`` (log-loss, Brier, calibration).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("pyarrow")

from agents.partner_features import (
    GROUPS,
    belief_features,
    group_slices,
    num_features,
    to_maker_frame,
    to_viewer_frame,
)
from agents.partner_model import PartnerClassifier, build_classifier, new_config
from euchre_env import cards, engine, make_rules
from euchre_env.beliefs import PUBLIC, ExactBelief, UniformBelief, check_observations, settled_beliefs
from euchre_env.encoding import encode, obs_layout
from partner_lab.classifier import calibration, class_index, scores, train_classifier
from partner_lab.dataset import load_dataset, parse_mix, to_arrays, write_dataset

torch.set_num_threads(1)
RULES = make_rules("five_handed")
P = RULES.num_players


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("partner")
    train = to_arrays(load_dataset(write_dataset(root / "train", parse_mix("heuristic"), 4000, 4000, seed=5)))
    test = to_arrays(load_dataset(write_dataset(root / "test", parse_mix("heuristic"), 1000, 1000, seed=6)))
    return train, test


@pytest.fixture(scope="module")
def trained(data):
    clf, stats = train_classifier(data[0], hidden=(128,), epochs=3, seed=0)
    return clf, stats


def test_a_trained_classifier_beats_counting_on_held_out_hands_and_is_calibrated(data, trained):
    """Seat views of hands it never saw: lower log-loss than the counted belief (and far lower than uniform),
    and calibrated (expected calibration error under 0.03)."""
    from partner_lab.classifier import expected_calibration_error

    clf, stats = trained
    test = data[1]
    y = class_index(test["label"], P)
    no = np.zeros(len(y), bool)
    probs = clf.from_observations(test["obs"], RULES, no).probs
    checked, public = check_observations(test["obs"], RULES, no)
    _, unc = settled_beliefs(checked, RULES, public)
    learned = scores(probs[unc], y[unc])
    exact = scores(ExactBelief().from_observations(test["obs"][unc], RULES, no[unc]).probs, y[unc])
    uniform = scores(UniformBelief().from_observations(test["obs"][unc], RULES, no[unc]).probs, y[unc])
    assert learned["log_loss"] < exact["log_loss"] - 0.03, (learned, exact)
    assert learned["log_loss"] < uniform["log_loss"] - 0.2 and learned["accuracy"] > exact["accuracy"]
    assert stats["val_log_loss"] < stats["val_exact_log_loss"]
    assert expected_calibration_error(calibration(probs[unc], y[unc], groups=test["hand"][unc])) < 0.03


def test_a_network_that_outputs_zeros_is_exactly_the_counted_belief(data):
    """The network corrects counting: with its (zero-initialised) last layer untouched, the belief is
    ``ExactBelief``'s, for seat views and public views alike."""
    clf = PartnerClassifier((build_classifier(new_config(RULES, [16])), new_config(RULES, [16])))
    obs = data[1]["obs"][:3000]
    for public in (np.zeros(len(obs), bool), np.ones(len(obs), bool)):
        np.testing.assert_allclose(clf.from_observations(obs, RULES, public).probs,
                                   ExactBelief().from_observations(obs, RULES, public).probs, atol=1e-12)  # fmt: skip


def test_features_say_who_played_led_won_and_failed_to_follow_in_the_makers_frame(data):
    """Every trick's flags, read from the view's observation, against the table's own record (full state)."""
    s = engine.init_state(RULES, 256, rng=np.random.default_rng(2))
    rng = np.random.default_rng(3)
    for _ in range(24):
        masks = engine.legal_action_mask(s, RULES)
        s = engine.step(s, (rng.random(masks.shape) * masks).argmax(axis=1), RULES)
    live = np.flatnonzero((s.called >= 0) & ~s.alone & ~engine.is_done(s))
    s = s.take(live)
    assert s.batch_size > 50
    sl = group_slices(P)
    assert [sl[g].start for g in GROUPS] == [0, *[sl[g].stop for g in GROUPS[:-1]]] and sl["hand"].stop == num_features(P)
    for viewer in (0, 3):
        obs, public = check_observations(encode(s, viewer, RULES, np.uint8), RULES, np.zeros(s.batch_size, bool))
        exact = ExactBelief().from_observations(obs, RULES, public).probs
        x = belief_features(obs, public, RULES, exact)
        plays = x[:, sl["plays"]].reshape(s.batch_size, 5, P, -1)  # trick, maker-frame seat, flag
        seat = (s.maker[:, None] + np.arange(P)) % P  # absolute seat of maker-frame seat j
        tc = np.take_along_axis(s.trick_cards, np.broadcast_to(seat[:, None, :], (s.batch_size, 5, P)), axis=2)
        np.testing.assert_array_equal(plays[..., 0], tc >= 0)  # played
        won = s.trick_winner[:, :, None] == seat[:, None, :]
        np.testing.assert_array_equal(plays[..., 5], won & (tc >= 0))  # won the trick
        eff = np.where(tc >= 0, cards.EFFECTIVE_SUIT[s.trump[:, None, None], np.maximum(tc, 0)], -1)
        for t in range(5):
            led_seat = np.argmax(plays[:, t, :, 1], axis=1)  # the trick's leader (maker frame)
            has = plays[:, t, :, 1].any(axis=1)
            led = eff[np.arange(s.batch_size), t, led_seat]
            fail = has[:, None] & (tc[:, t] >= 0) & (eff[:, t] != led[:, None])
            np.testing.assert_array_equal(plays[:, t, :, 3], fail)  # failed to follow
        np.testing.assert_allclose(to_viewer_frame(to_maker_frame(exact, s.maker * 0 + 2), s.maker * 0 + 2), exact)
        np.testing.assert_allclose(x[:, sl["exact"]][:, : P + 1], np.nan_to_num(to_maker_frame(
            exact, (s.maker.astype(np.int64) - viewer) % P)))  # fmt: skip



def _power(trump: int, card: int, led: int) -> int:
    """A card's power in a trick led in suit ``led`` (0: it cannot win), from the rules: trump, then suit."""
    if cards.TRUMP_ORDER[trump, card] > 0:
        return 100 + int(cards.TRUMP_ORDER[trump, card])
    return 1 + int(cards.CARD_RANK[card]) if cards.EFFECTIVE_SUIT[trump, card] == led else 0


def _worth(trump: int, card: int) -> int:
    order = int(cards.TRUMP_ORDER[trump, card])
    return 100 + order if order > 0 else int(cards.CARD_RANK[card])


def _against(trump: int, led: int, card: int, best: int, maker_winning: bool, alts: list[int]) -> list[bool]:
    """A follower that played ``card`` onto ``best`` while holding ``alts``: [an alt was legal, could have
    won, the same while the maker was winning, lost with more than a losing alt, won with more than needed]."""
    fails = cards.EFFECTIVE_SUIT[trump, card] != led
    legal = [a for a in alts if fails or cards.EFFECTIVE_SUIT[trump, a] == led]
    mine = _power(trump, card, led)
    took = mine > best
    win = not took and any(_power(trump, a, led) > best for a in legal)
    loser = not took and any(_power(trump, a, led) <= best and _worth(trump, a) < _worth(trump, card) for a in legal)
    dearer = took and any(best < _power(trump, a, led) < mine for a in legal)
    return [bool(legal), win, win and maker_winning, loser, dearer]


def _choices_by_hand(s, row: int) -> np.ndarray:
    """The ``choices`` flags of one table by plain loops over its full record: (T, P, 9), maker frame."""
    trump, maker, called = int(s.trump[row]), int(s.maker[row]), int(s.called[row])
    out = np.zeros((5, P, 9))
    leader = (int(s.dealer[row]) + 1) % P
    for t in range(5):
        if s.trick_cards[row, t, leader] < 0:
            break
        led = cards.EFFECTIVE_SUIT[trump, s.trick_cards[row, t, leader]]
        best, best_seat = -1, -1
        for seat in [(leader + i) % P for i in range(P)]:
            card = int(s.trick_cards[row, t, seat])
            if card < 0:
                break
            if seat != leader:
                j, args = (seat - maker) % P, (trump, led, card, best, best_seat == maker)
                out[t, j, :4] = _against(*args, [c for c in s.trick_cards[row, t + 1 :, seat] if c >= 0])[1:]
                out[t, j, 4:] = _against(*args, [called])
            if _power(trump, card, led) > best:
                best, best_seat = _power(trump, card, led), seat
        leader = int(s.trick_winner[row, t])
    return out


def test_choices_say_what_a_follower_did_against_cards_it_held(data):
    """The ``choices`` group against plain loops over the full record: a card a seat plays later was in its
    hand (could it have won, lost cheaper, won cheaper?), and so was the called card if it is the partner."""
    s = engine.init_state(RULES, 256, rng=np.random.default_rng(7))
    rng = np.random.default_rng(8)
    for _ in range(28):
        masks = engine.legal_action_mask(s, RULES)
        s = engine.step(s, (rng.random(masks.shape) * masks).argmax(axis=1), RULES)
    s = s.take(np.flatnonzero((s.called >= 0) & ~s.alone & ~engine.is_done(s)))
    assert s.batch_size > 50
    sl = group_slices(P)
    obs, public = check_observations(encode(s, 1, RULES, np.uint8), RULES, np.zeros(s.batch_size, bool))
    x = belief_features(obs, public, RULES, ExactBelief().from_observations(obs, RULES, public).probs)
    per_trick = x[:, sl["choices"]][:, : 5 * P * 9].reshape(s.batch_size, 5, P, 9)
    for row in range(s.batch_size):
        np.testing.assert_array_equal(per_trick[row], _choices_by_hand(s, row), err_msg=f"table {row}")
    np.testing.assert_allclose(x[:, sl["choices"]][:, 5 * P * 9 :], per_trick.sum(axis=1).reshape(s.batch_size, -1) / 2)
    assert per_trick[..., [0, 2, 5, 7]].any(axis=(1, 2)).mean() > 0.3  # random players make such choices often


def test_the_rules_certainties_are_imposed_whatever_the_network_says(data):
    """A random network still gives: maker 0, holder certain, revealer certain, lone maker certain."""
    clf = PartnerClassifier((build_classifier(new_config(RULES, [16])), new_config(RULES, [16])))
    obs = data[1]["obs"]
    label = class_index(data[1]["label"], P)
    probs = clf.relative(obs)
    assert not np.isnan(probs).any(), "every dataset row comes after the declaration"
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    lay = obs_layout(RULES)
    assert np.all(probs[:, :P][obs[:, lay.slice("maker")] == 1] == 0.0)
    hold = obs[:, lay.slice("i_hold_called")][:, 0] == 1
    assert np.all(probs[hold, 0] == 1.0)
    known = obs[:, lay.slice("revealed_by")].any(axis=1) | (obs[:, lay.slice("alone")][:, 0] == 1)
    assert np.all(probs[known, label[known]] == 1.0), "a public partnership must be certain"
    assert np.all(probs[~hold & ~obs[:, lay.slice("revealed_by")][:, 0].astype(bool), 0] == 0.0)


def test_beliefs_from_states_move_each_relative_seat_to_its_table_seat_for_seats_and_the_public():
    clf = PartnerClassifier((build_classifier(new_config(RULES, [8])), new_config(RULES, [8])))
    s = engine.init_state(RULES, 64, rng=np.random.default_rng(0))
    rng = np.random.default_rng(1)
    while not np.all((s.called >= 0) | s.alone | engine.is_done(s)):  # play on until declared
        base, bits = engine.legal_bits(s, RULES)
        masks = engine.expand(base, bits)
        s = engine.step(s, (rng.random(masks.shape) * masks).argmax(axis=1), RULES)
    declared = (s.called >= 0) | s.alone
    assert declared.sum() > 10
    for viewer in range(P):
        obs = encode(s, viewer, RULES, np.float32)
        rel, absolute = clf.relative(obs), clf.belief(s, viewer)
        for k in range(P):
            np.testing.assert_array_equal(absolute[:, (viewer + k) % P], rel[:, k])
        np.testing.assert_array_equal(absolute[:, P], rel[:, P])
        assert np.isnan(absolute[~declared]).all() and not np.isnan(absolute[declared]).any()
    public = clf.belief(s, PUBLIC)
    np.testing.assert_array_equal(public, clf.relative(encode(s, 0, RULES, np.float32), public=True))
    assert np.all(public[declared, s.maker[declared]] == 0.0)


def test_a_classifier_file_round_trips_and_is_checked_as_data(tmp_path, data, trained):
    clf, _ = trained
    path = clf.save(tmp_path / "partner.safetensors")
    again = PartnerClassifier(path)
    obs = data[1]["obs"][:500]
    np.testing.assert_array_equal(again.relative(obs), clf.relative(obs))
    assert again.config == clf.config
    from safetensors.torch import save_file

    tensors = {k: v.contiguous() for k, v in clf.net.state_dict().items()}
    for change, message in (
        ({"format": "euchre-env-policy"}, "not a partner classifier"),
        ({"temperature": -1}, "temperature must be"),
        ({"hidden": [64, "x"]}, "hidden must be a list"),
        ({"obs_size": 3}, "obs_size 3"),
        ({"num_features": 3}, "num_features 3"),
        ({"dropped": ["cards"]}, "dropped must be a list of feature groups"),
        ({"version": 1}, "version 1 is not supported"),
        ({"hidden": [10**6, 10**6]}, "must be from 1 to"),  # refused before a 4 TB network is built
        ({"hidden": [10**30]}, "must be from 1 to"),
        ({"hidden": [64] * 100}, "at most 64 hidden layers"),
        ({"hidden": [*clf.config.hidden, 8]}, "do not match the classifier of its config"),
        ({"context": []}, "context must be a list of positive ints"),
        ({"context": [10**7]}, "'context'.0. must be from 1 to"),
        ({"context": [64, 32]}, "do not match the classifier of its config"),
    ):
        meta = json.loads(clf.config.to_json()) | change
        bad = tmp_path / "bad.safetensors"
        save_file(tensors, str(bad), metadata={"euchre_env": json.dumps(meta)})
        with pytest.raises(ValueError, match=message):
            PartnerClassifier(bad)
    bad.write_bytes(b"not a safetensors file")
    with pytest.raises(ValueError, match="not a safetensors classifier file"):
        PartnerClassifier(bad)


def test_scores_and_calibration_on_known_cases():
    y = np.array([0, 1, 2, 0])
    perfect = np.eye(3)[y]
    assert scores(perfect, y) == {
        "n": 4,
        "log_loss": pytest.approx(0.0, abs=1e-9),
        "brier": 0.0,
        "accuracy": 1.0,
    }
    uniform = np.full((4, 3), 1 / 3)
    s = scores(uniform, y)
    assert s["log_loss"] == pytest.approx(np.log(3)) and s["brier"] == pytest.approx(2 / 3)
    rng = np.random.default_rng(0)
    probs = rng.dirichlet(np.ones(4), size=20000)
    drawn = np.array([rng.choice(4, p=p) for p in probs])  # calibrated by construction
    ok = [r["low"] <= r["predicted"] <= r["high"] for r in calibration(probs, drawn, groups=np.arange(20000))]
    assert np.mean(ok) >= 0.8, "a calibrated forecaster should fall inside most of its intervals"
    sharp = probs**2 / (probs**2).sum(axis=1, keepdims=True)  # overconfident
    out = [
        r["low"] <= r["predicted"] <= r["high"] for r in calibration(sharp, drawn, groups=np.arange(20000))
    ]
    assert np.mean(out) < 0.5, "an overconfident forecaster must fall outside its intervals"


def test_a_teacher_pulls_the_learned_belief_towards_its_probabilities(data):
    """Distillation: trained with a heavy weight on the counted belief's probabilities as the teacher (half the
    rows taught), the belief stays nearer counting on unseen hands than the same training without a teacher."""
    from partner_lab.classifier import view_rows

    rows = view_rows(data[0], rows_seed=0, row_fraction=0.1)
    teacher = ExactBelief().from_observations(rows["obs"], RULES, rows["public"]).probs
    teacher[np.random.default_rng(0).random(len(teacher)) < 0.5] = np.nan
    kw = {"hidden": (32,), "epochs": 2, "seed": 0, "viewed": True, "checks_per_epoch": 2}
    plain, _ = train_classifier(rows, **kw)
    taught, stats = train_classifier(rows, teacher=teacher, teacher_weight=50.0, **kw)
    assert 0.4 < stats["teacher_rows"] / stats["rows"] < 0.6
    test = {"obs": data[1]["obs"][:4000]}
    no = np.zeros(len(test["obs"]), bool)
    exact = ExactBelief().from_observations(test["obs"], RULES, no).probs
    checked, public = check_observations(test["obs"], RULES, no)
    open_ = settled_beliefs(checked, RULES, public)[1]

    def gap(clf):
        return np.abs(clf.from_observations(test["obs"], RULES, no).probs - exact)[open_].sum(axis=1).mean()

    assert gap(taught) < 0.5 * gap(plain), (gap(taught), gap(plain))


def test_a_bad_teacher_is_refused_by_name(data):
    from partner_lab.classifier import view_rows

    rows = view_rows(data[0], rows_seed=0, row_fraction=0.02)
    good = ExactBelief().from_observations(rows["obs"], RULES, rows["public"]).probs
    with pytest.raises(ValueError, match="viewed=True"):
        train_classifier(data[0], teacher=good)
    with pytest.raises(ValueError, match=r"teacher must have shape"):
        train_classifier(rows, viewed=True, teacher=good[:-1])
    doubled = good.copy()
    doubled[3] *= 2
    with pytest.raises(ValueError, match="row 3"):
        train_classifier(rows, viewed=True, teacher=doubled)
    with pytest.raises(ValueError, match="teacher_weight"):
        train_classifier(rows, viewed=True, teacher=good, teacher_weight=-1.0)
