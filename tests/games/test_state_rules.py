"""A state knows the game and rule options that made it (``state.rules``): every other game, batched engine
and rollout refuses it by name, and no cache crosses from one game to another."""

from __future__ import annotations

import pickle
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from patience_gym import ENVS
from patience_gym.core import ForeignStateError, Game, Rules
from patience_gym.games import make_game
from patience_gym.games.golf import Golf, GolfRound
from patience_gym.games.milligan import Giant, MissMilligan, MissMilliganPocket
from patience_gym.games.puss import PussInTheCorner
from patience_gym.vector import BATCHED_GAMES, batched_game_class
from patience_gym.vector.rollouts import WorldRollouts
from tests.helpers import masked_random_action

FAMILY = (MissMilligan, Giant, MissMilliganPocket)


def played(game: Game[Any], seed: int, moves: int) -> Any:
    """A position ``moves`` random moves into a game (fewer where it ends)."""
    rng = np.random.default_rng(seed)
    state = game.init(rng)
    for _ in range(moves):
        if game.is_over(state):
            break
        game.apply(state, masked_random_action(rng, game.legal_mask(state)))
    return state


def giant_with_an_empty_column() -> Any:
    """A Giant position, stock not yet out, with an empty column (so Giant's vacancy rule matters)."""
    giant = Giant()
    rng = np.random.default_rng(0)
    for _ in range(200):
        state = giant.init(rng)
        while not giant.is_over(state) and state.stock_left:
            if any(not col for col in state.columns) and len(giant.legal_actions(state)) > 2:
                return state
            giant.apply(state, masked_random_action(rng, giant.legal_mask(state)))
    raise AssertionError("no Giant position with an empty column found")


def test_a_state_read_by_another_game_of_the_family_keeps_its_cache_to_itself() -> None:
    """The issue's case: a Giant position read by Miss Milligan's from_dict caches Miss Milligan's moves,
    and Giant must refuse that object, not hand out its cached mask."""
    giant, milligan = Giant(), MissMilligan()
    state = giant_with_an_empty_column()
    data = giant.to_dict(state)
    del data["game"], data["options"]
    as_milligan = milligan.from_dict(data)
    milligan_moves = milligan.legal_actions(as_milligan)  # fills its cache
    giant_moves = giant.legal_actions(giant.from_dict(data))
    assert len(giant_moves) > len(milligan_moves)
    calls = {
        "legal_actions": lambda s: giant.legal_actions(s),
        "legal_mask": lambda s: giant.legal_mask(s),
        "is_over": lambda s: giant.is_over(s),
        "apply": lambda s: giant.apply(s, giant_moves[0]),
        "to_dict": lambda s: giant.to_dict(s),
        "determinize": lambda s: giant.determinize(s, np.random.default_rng(0)),
        "chance": lambda s: giant.chance(s, milligan_moves[0]),
    }
    for name, call in calls.items():
        with pytest.raises(
            ForeignStateError,
            match=r"MilliganState of miss_milligan \(waive_sequences=False\) "
            r"cannot be played by giant \(worry_back_anytime=False\)",
        ):
            call(as_milligan.copy() if name == "apply" else as_milligan)
    assert milligan.legal_actions(as_milligan) == milligan_moves  # refused, not spoiled


@pytest.mark.parametrize("maker", FAMILY)
@pytest.mark.parametrize("player", FAMILY)
def test_the_family_refuses_each_others_states(maker: type, player: type) -> None:
    state = played(maker(), 1, 40)
    if maker is player:
        player().legal_mask(state)  # another object of the same game and options plays it
        return
    with pytest.raises(ForeignStateError, match=f"of {maker.name}.* cannot be played by {player.name}"):
        player().legal_mask(state)


@pytest.mark.parametrize(
    ("cls", "options"),
    [
        (Golf, {"queens_on_kings": True}),
        (GolfRound, {"wrap_ranks": True}),
        (MissMilligan, {"waive_sequences": True}),
        (Giant, {"worry_back_anytime": True}),
        (PussInTheCorner, {"forced_foundation": False}),
        (PussInTheCorner, {"sevens_after_placing": True}),
    ],
)
def test_a_state_belongs_to_its_rule_options(cls: type, options: dict[str, Any]) -> None:
    variant, plain = cls(**options), cls()
    state = played(variant, 2, 10)
    (key, value), *_ = options.items()
    with pytest.raises(ForeignStateError, match=f"{key}={value!r}"):
        plain.legal_mask(state)
    with pytest.raises(ForeignStateError):
        plain.apply(state.copy(), int(np.flatnonzero(variant.legal_mask(state))[0]))
    data = variant.to_dict(state)
    assert data["options"][key] == value
    with pytest.raises(ValueError, match=f"state is for {variant.name} with other rule options: {key}={value!r}"):
        plain.from_dict(data)
    del data["options"]  # a dict without options (an older record) is read by the game it is given to
    data.get("hole_state", {}).pop("options", None)
    assert plain.from_dict(data).rules is plain.rules


@pytest.mark.parametrize("env_id", sorted(ENVS))
def test_states_keep_their_rules_through_copies_pickles_worlds_and_dicts(env_id: str) -> None:
    env = gym.make(env_id)
    game = env.unwrapped.game
    env.reset(seed=3)
    state = env.unwrapped.state
    assert isinstance(state.rules, Rules) and state.rules is game.rules
    assert state.copy().rules is game.rules
    assert game.determinize(state, np.random.default_rng(0)).rules is game.rules
    assert game.from_dict(game.to_dict(state)).rules is game.rules
    again = pickle.loads(pickle.dumps(state))  # an equal key, not the same object: taken as this game's
    assert np.array_equal(make_game(game.name).legal_mask(again), game.legal_mask(state))
    assert again.rules is game.rules
    with pytest.raises(ValueError, match="options must map"):
        game.from_dict({**game.to_dict(state), "options": {"no_such_option": True}})


def test_a_state_of_another_kind_is_named() -> None:
    golf_state = Golf().init(np.random.default_rng(0))
    with pytest.raises(
        ForeignStateError,
        match=r"a GolfState of golf \(queens_on_kings=False, wrap_ranks=False\) "
        r"cannot be played by puss_in_the_corner",
    ):
        PussInTheCorner().legal_mask(golf_state)
    with pytest.raises(ForeignStateError, match="a dict, not a state of any game, cannot be played by golf"):
        Golf().to_dict({"tableau": []})  # type: ignore[arg-type]
    with pytest.raises(ForeignStateError, match="cannot be played by golf_round"):
        GolfRound().legal_mask(GolfRound(wrap_ranks=True).init(np.random.default_rng(0)))


def test_rollouts_refuse_a_state_of_another_game_of_the_family() -> None:
    """The issue's case: Giant's rollouts played a pocket state (its pocket card and all) without a word."""
    pocket_state = played(MissMilliganPocket(), 4, 30)
    rollouts = WorldRollouts("patience_gym/Giant-v0", slots=2)
    with pytest.raises(ForeignStateError, match=r"states\[0\] of patience_gym/Giant-v0: .*miss_milligan_pocket"):
        rollouts.run([pocket_state])
    variant = WorldRollouts("patience_gym/Golf-v0", slots=2, queens_on_kings=True)
    with pytest.raises(ForeignStateError, match="queens_on_kings=False.* cannot be played by golf"):
        variant.run([Golf().init(np.random.default_rng(0))])


@pytest.mark.parametrize("env_id", sorted(BATCHED_GAMES))
def test_batched_engines_refuse_and_stamp_states(env_id: str) -> None:
    engine = batched_game_class(env_id)(2)
    engine.seed([0, 1])
    engine.reset(np.ones(2, dtype=bool))
    state = engine.rules_state(0)
    assert state.rules is engine.game.rules
    engine.load_state(1, state)
    assert engine.get_state(1) == engine.get_state(0)
    name = engine.game.name
    other = next(
        cls
        for cls in (Golf, GolfRound, MissMilligan, Giant, MissMilliganPocket, PussInTheCorner)
        if cls.name != name and (cls in FAMILY) == (type(engine.game) in FAMILY)
    )
    with pytest.raises((ForeignStateError, TypeError)):
        engine.load_state(0, other().init(np.random.default_rng(0)))
    data = other().to_dict(other().init(np.random.default_rng(0)))
    with pytest.raises(ValueError, match=f"state is for game {other.name!r}"):
        engine.set_state(0, data)
