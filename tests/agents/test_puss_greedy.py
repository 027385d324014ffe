"""The greedy Puss in the Corner baseline: legal, blind to the face-down pack, and sensible on hand-built positions."""

from __future__ import annotations

import numpy as np

from agents.baselines.greedy_puss import PussGreedy, choose_move, waits
from agents.baselines.random import RandomAgent
from agents.evaluation.evaluate import play_episodes
from agents.registry import make_agent
from patience_gym.cards import parse_card
from patience_gym.games.puss import DEAL, TAKE, PussInTheCorner

ENV_ID = "patience_gym/PussInTheCorner-v0"


def test_registry_builds_it_and_it_beats_random_on_the_same_deals():
    agent = make_agent("greedy", "puss_in_the_corner")
    assert isinstance(agent, PussGreedy)
    seeds = list(range(20))
    greedy = play_episodes(ENV_ID, agent, seeds)  # raises on any illegal move
    rand = play_episodes(ENV_ID, RandomAgent(0), seeds)
    assert greedy.mean_score > rand.mean_score
    strict = play_episodes(ENV_ID, PussGreedy(), seeds[:5], {"sevens_after_placing": False, "forced_foundation": False})
    assert strict.episodes == 5


def test_decisions_ignore_the_order_of_the_face_down_pack(masked_random_action):
    game = PussInTheCorner()
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(6):
        state = game.init(np.random.default_rng(seed))
        while not game.is_over(state):
            if state.pack_left > 1:
                shuffled = state.copy()
                rest = list(state.pack[state.pos :])
                rng.shuffle(rest)
                shuffled.pack = tuple(state.pack[: state.pos]) + tuple(rest)
                assert choose_move(game, shuffled) == choose_move(game, state)
                checked += 1
            game.apply(state, masked_random_action(rng, game.legal_mask(state)))
    assert checked > 100


def test_wait_counts_ranks_to_climb_on_the_pile_that_takes_the_card(puss_make_state):
    _, state = puss_make_state(foundations=("AC 2C 3C", "AD 2D", "AH", "AS 2S 3S 4S"))
    w = waits(state)
    assert w[parse_card("4C")] == 0 and w[parse_card("5S")] == 0  # black piles need 4 and 5
    assert w[parse_card("7C")] == 2  # the pile needing 5 gets there first
    assert w[parse_card("3H")] == 0 and w[parse_card("2H")] == 0  # red piles need 3 and 2
    assert w[parse_card("9D")] == 6


def test_places_a_card_where_it_will_leave_before_the_top_is_wanted(puss_make_state):
    game, state = puss_make_state(corners=("3C", "9D", "KS", "5S"), hand="6H")
    assert game.describe_action(choose_move(game, state)) == "dealt>B"  # 6H waits 4, under it the 9D waits 7
    game, state = puss_make_state(corners=("3C", "4D", "", "5S"), hand="6H")
    assert game.describe_action(choose_move(game, state)) == "dealt>C"  # nothing waits longer: the empty corner
    game, state = puss_make_state(corners=("3C", "4D", "2S", "5S"), hand="6H")
    assert game.describe_action(choose_move(game, state)) == "dealt>D"  # least harm: bury the 5S (wait 3)


def test_plays_every_fitting_card_before_dealing_and_merges_only_harmlessly(puss_make_state):
    game, state = puss_make_state(corners=("5S 2H", "KS", "", ""))
    assert game.describe_action(choose_move(game, state)) == "A>f2"
    game.apply(state, choose_move(game, state))
    assert choose_move(game, state) == DEAL
    game, state = puss_make_state(corners=("KS", "3C 2D", "QH", "9S"), hand="7C", seven=True)
    # 2D and 3C are wanted long before any other top; the 9S before the KS: two harmless merges, the
    # safest pair of them (total margin 13 both ways; the first in action order is taken).
    assert game.describe_action(choose_move(game, state)) == "B on A, D on C"
    game, state = puss_make_state(corners=("KS", "QH", "", ""), hand="7C", seven=True)
    assert game.describe_action(choose_move(game, state)) == "B on A"  # the QH is wanted before the KS
    game, state = puss_make_state(corners=("QH", "KS", "", ""), hand="7C", seven=True)
    assert game.describe_action(choose_move(game, state)) == "A on B"


def test_redeal_order_is_chosen_by_replaying_the_second_pass(puss_end_of_first_pass):
    game, state = puss_end_of_first_pass()
    while choose_move(game, state) < TAKE:
        game.apply(state, choose_move(game, state))
    first = choose_move(game, state)
    scores = {}
    for k in range(4):
        if state.corners[k] and not game.is_over(state):
            trial = state.copy()
            game.apply(trial, TAKE + k)
            while not game.is_over(trial):
                game.apply(trial, choose_move(game, trial))
            scores[k] = trial.score
    assert scores[first - TAKE] == max(scores.values())
