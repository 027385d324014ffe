"""Golf's rules-only move encoding (``rules_moves``): rows on hand-built positions, no leak, no heuristics."""

from __future__ import annotations

import ast
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from patience_gym.cards import parse_card
from patience_gym.features import make_observer
from patience_gym.features.rules import golf as rules_golf
from patience_gym.features.rules import layout as L
from patience_gym.games.golf import DEAL, Golf, GolfState

SLOTS = rules_golf.SLOTS


def _state(columns: list[str], waste: str, stock: str) -> GolfState:
    cols = [[parse_card(c) for c in col.split()] for col in columns]
    stock_cards = tuple(parse_card(c) for c in stock.split())
    return GolfState(cols, [parse_card(waste)], stock_cards, 0, Golf().rules)


def _rows(obs: np.ndarray, planes: int) -> np.ndarray:
    return obs[planes + L.POSITION_VALUES :].reshape(SLOTS, L.ROW)


def test_rows_say_what_each_legal_move_does() -> None:
    golf = Golf()
    # Column 1 (index 0) shows 6H over 9C, 2D; column 2 shows 8S, column 3 9D; the waste is a 7C; two stock cards.
    state = _state(["2D 9C 6H", "8S", "9D", "", "", "", ""], "7C", "5S 4D")
    observer = make_observer(golf, L.ENCODING)
    obs = observer.observe(state)
    planes = golf.obs_spec("planes").shape[0]
    np.testing.assert_array_equal(obs[:planes], golf.observe(state, "planes"))
    rows = _rows(obs, planes)
    legal = np.flatnonzero(golf.legal_mask(state)).tolist()
    assert legal == [0, 1, DEAL]
    assert obs[planes] == 0.0 and obs[planes + 1] == pytest.approx(3 / SLOTS)
    np.testing.assert_allclose(rows[:3, L.ACTION], [(a + 1) / 8 for a in legal])
    play6h = rows[0]
    assert (play6h[L.SOURCE_KIND], play6h[L.DEST_KIND], play6h[L.SOURCE_INDEX]) == (1, 2, 0)
    assert play6h[L.MOVED] == play6h[L.MOVED_TOP] == parse_card("6H") + 1
    assert play6h[L.ONTO] == parse_card("7C") + 1
    assert play6h[L.UNCOVERS] == parse_card("9C") + 1
    assert play6h[L.SOURCE_NEXT] == parse_card("2D") + 1 and play6h[L.SOURCE_NEXT + 1] == L.NO_CARD
    assert play6h[L.SOURCE_LEFT] == pytest.approx(2 / 52) and play6h[L.DEST_AFTER] == pytest.approx(2 / 52)
    assert play6h[L.REVEALS] == 0.0 and play6h[L.WAIT] == 1.0
    # After 6H: nothing on the links fits (9C, 8S, 9D) but the deal does.
    assert play6h[L.AFTER_LEGAL] == pytest.approx(1 / SLOTS)
    # Unseen cards that would fit a 6: the 5S in the stock (the 4D does not).
    assert play6h[L.GAME_VALUE] == pytest.approx(1 / 8)
    play8s = rows[1]
    assert play8s[L.UNCOVERS] == L.NO_CARD and play8s[L.SOURCE_LEFT] == 0.0
    assert play8s[L.AFTER_LEGAL] == pytest.approx(2 / SLOTS)  # the 9D and the deal
    deal = rows[2]
    assert deal[L.SOURCE_KIND] == 0 and deal[L.REVEALS] == 1.0
    assert deal[L.MOVED] == L.HIDDEN_CARD and deal[L.UNCOVERS] == L.HIDDEN_CARD
    assert deal[L.SOURCE_NEXT] == L.NO_CARD and deal[L.AFTER_LEGAL] == 0.0
    assert not rows[3:].any()


def test_the_last_link_leads_to_no_move() -> None:
    golf = Golf()
    state = _state(["6H", "", "", "", "", "", ""], "7C", "5S 4D")
    rows = _rows(make_observer(golf, L.ENCODING).observe(state), golf.obs_spec("planes").shape[0])
    assert rows[0, L.AFTER_LEGAL] == 0.0


def test_hidden_stock_order_never_shows() -> None:
    """Two holes that differ only in the order of the face-down stock give the same observation."""
    golf = Golf()
    observer = make_observer(golf, L.ENCODING)
    rng = np.random.default_rng(3)
    for _ in range(50):
        state = golf.init(rng)
        for _ in range(int(rng.integers(0, 20))):
            if golf.is_over(state):
                break
            golf.apply(state, int(rng.choice(np.flatnonzero(golf.legal_mask(state)))))
        rest = list(state.stock[state.pos :])
        rng.shuffle(rest)
        stock = state.stock[: state.pos] + tuple(rest)
        other = GolfState([c[:] for c in state.columns], state.waste[:], stock, state.pos, state.rules)
        np.testing.assert_array_equal(observer.observe(state), observer.observe(other))


@pytest.mark.parametrize("env_id", ["patience_gym/Golf-v0", "patience_gym/GolfRound-v0"])
def test_rows_match_the_mask_in_play(env_id: str) -> None:
    env = gym.make(env_id, obs_encoding=L.ENCODING)
    layout = env.unwrapped.observer.layout
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=5)
    for _ in range(300):
        rows = obs[layout["global_size"] :].reshape(-1, L.ROW)
        listed = sorted(round(float(x) * 8) - 1 for x in rows[:, L.ACTION] if x > 0)
        assert listed == np.flatnonzero(info["action_mask"]).tolist()
        obs, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if term or trunc:
            obs, info = env.reset()


def test_the_rules_package_imports_no_heuristics() -> None:
    root = Path(L.__file__).parent
    for path in root.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            assert not any(n.startswith("patience_gym.heuristics") for n in names), path
