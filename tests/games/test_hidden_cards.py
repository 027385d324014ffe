"""The determinization API (``Game.unseen_cards``, ``determinize``, ``with_hidden``, ``chance``) of every game.

A determinized state must show the player exactly what the original shows (every observation
encoding, the mask, the score), conserve the cards, arrange the unseen cards uniformly, and
never read the hidden order.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from scipy.stats import chisquare

from patience_gym import ENVS
from patience_gym.cards import CODE
from patience_gym.core import Chance, Game, IllegalActionError
from patience_gym.features import encodings, make_observer
from patience_gym.games.golf import DEAL as GOLF_DEAL
from patience_gym.games.golf import Golf, GolfRound, GolfState
from patience_gym.games.milligan import MissMilligan
from patience_gym.games.milligan_tables import DEAL as MILLIGAN_DEAL
from patience_gym.games.puss import DEAL as PUSS_DEAL
from patience_gym.games.puss import PussInTheCorner
from tests.helpers import masked_random_action

ENV_IDS = sorted(ENVS)
CARD_ID = {code: card for card, code in enumerate(CODE)}


@cache
def positions(env_id: str) -> tuple[tuple[Game[Any], tuple[Any, ...]], ...]:
    """Positions met in random playouts of ``env_id`` (every 7th, and each game's last), with their game."""
    env = gym.make(env_id)
    game = env.unwrapped.game
    found = []
    rng = np.random.default_rng(7)
    for seed in range(3):
        env.reset(seed=seed)
        for step in range(2000):
            state = env.unwrapped.state
            if step % 7 == 0:
                found.append(state.copy())
            _, _, terminated, truncated, _ = env.step(masked_random_action(rng, env.unwrapped.action_masks()))
            if terminated or truncated:
                found.append(env.unwrapped.state.copy())
                break
    return ((game, tuple(found)),)


def hidden_part(game: Game[Any], state: Any) -> list[str]:
    """The face-down cards as the state's dict lists them (test code may read them)."""
    data = game.to_dict(state)
    if "hole_state" in data:
        return list(data["hole_state"]["stock"])
    if game.name == "puss_in_the_corner":
        return list(data["pack"]) if state.pass_no == 1 else []
    return list(data["stock"])


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_determinized_states_show_the_player_what_the_original_shows(env_id: str) -> None:
    ((game, states),) = positions(env_id)
    observers = {enc: make_observer(game, enc) for enc in encodings(game)}
    rng = np.random.default_rng(0)
    for i, state in enumerate(states):
        world = game.determinize(state, rng)
        assert np.array_equal(game.legal_mask(world), game.legal_mask(state))
        assert game.score(world) == game.score(state) and game.is_over(world) == game.is_over(state)
        assert game.unseen_cards(world) == game.unseen_cards(state)
        for enc, observer in observers.items():
            if i % 3 and enc.startswith("moves"):
                continue  # the move-list encodings replay games: every third position is enough
            assert np.array_equal(observer.observe(world), observer.observe(state)), (enc, i)
        # The cards are conserved: the rules' own reader checks the whole deck (each card once, or twice).
        assert game.to_dict(game.from_dict(game.to_dict(world))) == game.to_dict(world)
        assert sorted(Counter(hidden_part(game, world)).values()) == sorted(Counter(hidden_part(game, state)).values())


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_hidden_order_is_never_read(env_id: str) -> None:
    """Two states that differ only in the order of their face-down cards give the same answers."""
    ((game, states),) = positions(env_id)
    for i, state in enumerate(states):
        unseen = game.unseen_cards(state)
        other = game.with_hidden(state, unseen[::-1], np.random.default_rng(99))
        assert game.unseen_cards(other) == unseen
        a = game.determinize(state, np.random.default_rng(i))
        b = game.determinize(other, np.random.default_rng(i))
        assert game.to_dict(a) == game.to_dict(b)
        for action in game.legal_actions(state):
            assert game.chance(state, action) == game.chance(other, action)


def test_unseen_cards_are_the_deck_less_the_visible_cards() -> None:
    golf = Golf()
    state = golf.init(np.random.default_rng(3))
    assert golf.unseen_cards(state) == sorted(state.stock[1:])
    assert len(golf.visible_cards(state)) == 36
    milligan = MissMilligan()
    mstate = milligan.init(np.random.default_rng(3))
    assert milligan.unseen_cards(mstate) == sorted(mstate.stock)
    assert Counter(milligan.unseen_cards(mstate)).most_common(1)[0][1] <= 2


def test_shuffles_are_uniform_chi_square() -> None:
    """Each stock place of a Golf hole holds each unseen card equally often, and so do the pairs of the
    first two places; in a two-pack game each card comes first in proportion to its unseen copies."""
    golf = Golf()
    state = golf.init(np.random.default_rng(11))
    unseen = golf.unseen_cards(state)
    n, samples = len(unseen), 6000
    rng = np.random.default_rng(12)
    at = np.zeros((n, 52), dtype=np.int64)
    pairs: Counter[tuple[int, int]] = Counter()
    for _ in range(samples):
        stock = golf.determinize(state, rng).stock
        at[np.arange(n), stock] += 1
        pairs[stock[0], stock[1]] += 1
    for place in range(n):
        assert chisquare(at[place, unseen]).pvalue > 1e-4, place
    assert chisquare([pairs[a, b] for a in unseen for b in unseen if a != b]).pvalue > 1e-4

    game = MissMilligan()
    mstate = game.init(np.random.default_rng(5))
    for _ in range(4):
        game.apply(mstate, MILLIGAN_DEAL)  # 32 more cards seen: some cards now have one unseen copy
    counts = Counter(game.unseen_cards(mstate))
    assert set(counts.values()) == {1, 2}
    first: Counter[int] = Counter(game.determinize(mstate, rng).stock[0] for _ in range(8000))
    cards = sorted(counts)
    expected = np.array([counts[c] for c in cards], dtype=float)
    expected *= 8000 / expected.sum()
    assert chisquare([first[c] for c in cards], expected).pvalue > 1e-4


def test_chance_agrees_with_the_cards_a_deal_turns_up() -> None:
    """The card a Golf deal turns on determinized worlds follows ``chance().outcomes()``."""
    golf = Golf()
    state = golf.init(np.random.default_rng(21))
    chance = golf.chance(state, GOLF_DEAL)
    assert chance == Chance(1, tuple(golf.unseen_cards(state)))
    outcomes = chance.outcomes()
    assert abs(sum(outcomes.values()) - 1.0) < 1e-12
    rng = np.random.default_rng(22)
    turned: Counter[int] = Counter()
    for _ in range(4000):
        world = golf.determinize(state, rng)
        golf.apply(world, GOLF_DEAL)
        turned[world.waste[-1]] += 1
    assert chisquare([turned[c] for c in outcomes], [4000 * p for p in outcomes.values()]).pvalue > 1e-4
    for column in np.flatnonzero(golf.legal_mask(state)[:GOLF_DEAL]):
        assert golf.chance(state, int(column)) is None  # playing a link turns nothing up


def test_chance_of_each_game() -> None:
    milligan = MissMilligan()
    mstate = milligan.init(np.random.default_rng(1))
    deal = milligan.chance(mstate, MILLIGAN_DEAL)
    assert deal is not None and deal.count == 8 and len(deal.pool) == 96
    assert max(deal.outcomes().values()) == pytest.approx(2 / 96)

    puss = PussInTheCorner()
    pstate = puss.init(np.random.default_rng(1))
    assert puss.chance(pstate, PUSS_DEAL) == Chance(1, tuple(puss.unseen_cards(pstate)))
    env = gym.make("patience_gym/PussInTheCorner-v0")
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    while env.unwrapped.state.pass_no == 1:
        env.step(masked_random_action(rng, env.unwrapped.action_masks()))
    second = env.unwrapped.state
    if not puss.is_over(second) and puss.legal_mask(second)[PUSS_DEAL]:
        assert puss.chance(second, PUSS_DEAL) == Chance(1, (second.pack[second.pos],))
    assert puss.unseen_cards(second) == []  # the second pass's pack was taken up face up

    round_game = GolfRound()
    rstate = round_game.init(np.random.default_rng(2))
    hole = rstate.hole_state
    links = [c for col in hole.columns for c in col]
    kept = links[0]
    beside = next(c for c in links[1:] if abs(c % 13 - kept % 13) == 1 and c % 13 != 12)  # the waste's top, not a King
    hole.waste = hole.waste + [c for c in links[1:] if c != beside] + [beside]
    hole.columns = [[kept]] + [[] for _ in range(6)]
    # The last link card played ends the hole: the next hole's links and first waste card are dealt.
    ending = round_game.chance(rstate, 0)
    assert ending == Chance(36, tuple(range(52)))


def test_bad_input_is_refused_by_name() -> None:
    golf = Golf()
    state = golf.init(np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match="not legal"):
        golf.chance(state, 99)
    for rng in (None, 0, np.random.RandomState(0)):
        with pytest.raises(TypeError, match="determinize draws from a numpy Generator"):
            golf.determinize(state, rng)
    twice = GolfState(
        [col[:] for col in state.columns], state.waste + [state.columns[0][0]], state.stock, state.pos, state.rules
    )
    with pytest.raises(ValueError, match="seen more often than the deck holds them.*1 of each"):
        golf.determinize(twice, np.random.default_rng(0))
    short = GolfState([col[:] for col in state.columns], state.waste[:], state.stock[:-1], state.pos, state.rules)
    with pytest.raises(ValueError, match="15 face-down cards, but 16 cards are unseen"):
        golf.unseen_cards(short)
    with pytest.raises(ValueError, match="must arrange the 16 unseen cards"):
        golf.with_hidden(state, golf.unseen_cards(state)[:-1])
    with pytest.raises(ValueError, match="must arrange the 16 unseen cards"):
        golf.with_hidden(state, [state.columns[0][-1]] + golf.unseen_cards(state)[1:])
    round_game = GolfRound()
    rstate = round_game.init(np.random.default_rng(0))
    with pytest.raises(ValueError, match="hides 8 later deals: give an rng"):
        round_game.with_hidden(rstate, round_game.unseen_cards(rstate))
    milligan = MissMilligan()
    mstate = milligan.init(np.random.default_rng(0))
    mstate.stock = mstate.stock[:-8]
    with pytest.raises(ValueError, match="inconsistent miss_milligan state: 88 face-down cards, but 96"):
        milligan.determinize(mstate, np.random.default_rng(0))


def test_the_state_given_is_left_unchanged() -> None:
    """Determinizing returns a new state; the one given (and its observation) is not touched."""
    for env_id in ENV_IDS:
        ((game, states),) = positions(env_id)
        state = states[len(states) // 2]
        before = game.to_dict(state)
        obs = game.observe(state, "ids").copy()
        world = game.determinize(state, np.random.default_rng(1))
        for action in game.legal_actions(world):
            game.apply(world.copy(), action)
        assert game.to_dict(state) == before
        assert np.array_equal(game.observe(state, "ids"), obs)


def fields(value: Any) -> Any:
    """Every field of a state, deeply, as comparable values (slots, caches and shared tuples included)."""
    if hasattr(value, "__slots__"):
        return tuple((name, fields(getattr(value, name))) for name in value.__slots__ if hasattr(value, name))
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return tuple(fields(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(value)
    return value


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_no_field_of_a_world_comes_from_the_hidden_order(env_id: str) -> None:
    """Fill a position's face-down cards (and a round's later deals) with two marker orders: the worlds
    determinized from the two with one rng are equal in every field, so no field of a world, its copies
    or caches, is derived from the order it was given."""
    ((game, states),) = positions(env_id)
    for i, state in enumerate(states):
        unseen = game.unseen_cards(state)
        shuffled = [unseen[j] for j in np.random.default_rng(i).permutation(len(unseen))]
        first = game.with_hidden(state, unseen[::-1], np.random.default_rng(1_000 + i))
        second = game.with_hidden(state, shuffled, np.random.default_rng(2_000 + i))
        for seed in (i, i + 1):
            a = game.determinize(first, np.random.default_rng(seed))
            b = game.determinize(second, np.random.default_rng(seed))
            assert fields(a) == fields(b), (env_id, i)
            assert fields(a.copy()) == fields(b.copy())


def int_sequences(value: Any) -> list[list[int]]:
    """Every list or tuple of card ids in a state's fields, deeply (numpy arrays included)."""
    if hasattr(value, "__slots__"):
        return [seq for name in value.__slots__ if hasattr(value, name) for seq in int_sequences(getattr(value, name))]
    if isinstance(value, np.ndarray):
        return [value.ravel().tolist()]
    if isinstance(value, (list, tuple)):
        found = [list(value)] if value and all(isinstance(v, (int, np.integer)) for v in value) else []
        return found + [seq for v in value if isinstance(v, (list, tuple)) for seq in int_sequences(v)]
    return []


def holds(sequence: list[int], part: list[int]) -> bool:
    """Whether ``part`` lies in ``sequence`` as a contiguous run."""
    n = len(part)
    return any(sequence[i : i + n] == part for i in range(len(sequence) - n + 1))


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_true_hidden_order_lies_in_no_field_of_a_world(env_id: str) -> None:
    """The real face-down order (and a round's real later deals) appears in no field of any world made from
    the real state: no stock, deal, cache or shared tuple carries it over."""
    ((game, states),) = positions(env_id)
    for i, state in enumerate(states):
        hidden = [[CARD_ID[code] for code in hidden_part(game, state)]]
        hidden += [list(deal) for deal in getattr(state, "deals", ())[getattr(state, "hole", 0) + 1 :]]
        hidden = [order for order in hidden if len(order) >= 4]  # a shorter run may recur by chance
        world = game.determinize(state, np.random.default_rng(10_000 + i))  # not the deal's seed: not its order
        for order in hidden:
            assert not any(holds(seq, order) for seq in int_sequences(world)), (env_id, i)


def test_a_round_world_keeps_no_deal_of_the_round_it_came_from() -> None:
    """The bug this guards: a nine-hole world kept the input's first deal, whose stock is the real one."""
    game = GolfRound()
    state = game.init(np.random.default_rng(5))
    real_stock = tuple(state.hole_state.stock[state.hole_state.pos :])
    world = game.determinize(state, np.random.default_rng(6))
    assert world.deals[: world.hole + 1] == ((),)
    assert all(real_stock != tuple(deal[len(deal) - len(real_stock) :]) for deal in world.deals if deal)


def newly_seen(game: Game[Any], before: Any, after: Any) -> Counter[int]:
    """The cards ``after`` shows that ``before`` did not (a round's next hole: every card it shows)."""
    seen_after = Counter(game.visible_cards(after))
    if getattr(after, "hole", None) != getattr(before, "hole", None):
        return seen_after
    return seen_after - Counter(game.visible_cards(before))


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_chance_agrees_with_determinized_play_at_every_move(env_id: str) -> None:
    """At every legal move of every position met: the cards the move turns up in determinized worlds are
    ``chance``'s count of them, each from its pool; a move without a chance turns nothing up, nor does
    one whose card the player already knows."""
    ((game, states),) = positions(env_id)
    rng = np.random.default_rng(3)
    for state in states[::2]:
        for action in game.legal_actions(state):
            chance = game.chance(state, action)
            for _ in range(2):
                world = game.determinize(state, rng)
                after = world.copy()
                game.apply(after, action)
                turned = newly_seen(game, world, after)
                if chance is None:
                    assert not turned, (game.describe_action(action), turned)
                elif not turned:  # a card the player remembers (Puss's second pass): certain, and known
                    assert len(chance.pool) == chance.count == 1
                    assert Counter(chance.pool) <= Counter(game.visible_cards(world))
                else:
                    assert sum(turned.values()) == chance.count, game.describe_action(action)
                    assert not turned - Counter(chance.pool)


def _hole_ended_by_its_last_deal(round_game: GolfRound, hole: int) -> Any:
    """A round at ``hole`` (0-based) whose stock has one card left, which takes no link: dealing it ends the hole."""
    golf = round_game.hole_game
    deal = [f"{rank}{suit}" for suit in "CDHS" for rank in "A23456789TJQK"]
    state = golf.from_dict({"tableau": [[deal[0]]] + [[]] * 6, "waste": deal[1:51], "stock": [deal[51]]})
    assert golf.legal_actions(state) == [GOLF_DEAL]  # the AC goes neither on the QS nor on the KS to come
    later = [deal] * (8 - hole)
    return round_game.from_dict(
        {"hole": hole, "hole_scores": [0] * hole, "hole_state": golf.to_dict(state), "next_deals": later}
    )


def test_a_deal_that_ends_a_hole_deals_the_next_one() -> None:
    """Turning the stock's last card with nothing to play on it ends the hole: with holes to come, the
    chance is the next hole's 36 cards from a fresh deck (the card turned was certain)."""
    round_game = GolfRound()
    state = _hole_ended_by_its_last_deal(round_game, 3)
    assert round_game.chance(state, GOLF_DEAL) == Chance(36, tuple(range(52)))
    world = round_game.determinize(state, np.random.default_rng(0))
    round_game.apply(world, GOLF_DEAL)
    assert world.hole == 4 and sum(newly_seen(round_game, state, world).values()) == 36
    last = _hole_ended_by_its_last_deal(round_game, 8)  # the ninth hole: nothing is dealt after it
    assert round_game.chance(last, GOLF_DEAL) == Chance(1, (last.hole_state.stock[-1],))


@pytest.mark.parametrize("bad", [52, 60, 104, 200, -1])
def test_card_ids_out_of_range_are_named(bad: int) -> None:
    golf = Golf()
    state = golf.init(np.random.default_rng(0))
    state.columns[2][-1] = bad
    for call in (golf.unseen_cards, lambda s: golf.determinize(s, np.random.default_rng(0))):
        with pytest.raises(ValueError, match=rf"inconsistent golf state: {bad} is not a card id \(0\.\.51\)"):
            call(state)
    milligan = MissMilligan()
    mstate = milligan.init(np.random.default_rng(0))
    mstate.columns[0].append(bad)
    with pytest.raises(ValueError, match=rf"{bad} is not a card id"):
        milligan.determinize(mstate, np.random.default_rng(0))


def test_hidden_orders_and_chances_of_the_wrong_type_are_named() -> None:
    golf = Golf()
    state = golf.init(np.random.default_rng(0))
    unseen = golf.unseen_cards(state)
    with pytest.raises(TypeError, match=r"integer card ids, but entry 0 is 3\.7"):
        golf.with_hidden(state, [3.7] + unseen[1:])
    with pytest.raises(TypeError, match="integer card ids, but entry 2 is True"):
        golf.with_hidden(state, unseen[:2] + [True] + unseen[3:])
    with pytest.raises(ValueError, match="entry 0 of the hidden order, 99, is not a card id"):
        golf.with_hidden(state, [99] + unseen[1:])
    with pytest.raises(TypeError, match="a hidden order is a sequence of card ids, got str"):
        golf.with_hidden(state, "AC 2C")
    for action in (True, 7.0, "deal", None):
        with pytest.raises(IllegalActionError, match=rf"an action is an int in 0\.\.7, got {action!r}"):
            golf.chance(state, action)  # type: ignore[arg-type]
    round_game = GolfRound()
    rstate = round_game.init(np.random.default_rng(0))
    for rng in (5, "seed", np.random.RandomState(0)):
        with pytest.raises(TypeError, match=r"with_hidden draws from a numpy Generator .*got rng="):
            round_game.with_hidden(rstate, round_game.unseen_cards(rstate), rng)  # type: ignore[arg-type]
