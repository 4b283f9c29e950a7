"""The search's belief from the others' play (agents/play_belief.py, sampler=policy)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.play_belief import FLOOR, PlayBelief
from agents.search import SearchAgent, SearchSettings
from baohuang_env.agent import act_in_game, forced_move, make_agent
from baohuang_env.game import PLAY, Game
from baohuang_env.infostate import encoder_of, info_state
from baohuang_env.resample import resample_info
from baohuang_env.rules import get_rules


@pytest.fixture(scope="module")
def jj_base():
    return make_agent("pretrained:dmc_kickstart_jj", get_rules("jj"))


def base_game(base, seed: int, steps: int) -> Game:
    """Deal `seed` played `steps` moves by `base` at every seat (its argmax: what the belief assumes)."""
    rules = base.rules
    game, encode = Game(rules, seed=seed), encoder_of(rules).encode
    for _ in range(steps):
        game.step(act_in_game(base, game, game.current_player, encode))
    return game


def test_a_moves_likelihood_is_a_distribution_over_the_legal_moves_favouring_the_bases_choice(jj_base):
    rules = get_rules("jj")
    game, encode = base_game(jj_base, 5, 38), encoder_of(rules).encode
    while np.count_nonzero(game.legal_mask()) <= 2:  # on to the base's next real choice
        game.step(act_in_game(jj_base, game, game.current_player, encode))
    belief = PlayBelief(jj_base, rules, tau=0.05)
    obs, mask = encode(game, game.current_player), game.legal_mask()
    legal = np.flatnonzero(mask)
    logp = belief.move_logprobs(np.repeat(obs[None], legal.size, 0), np.repeat(mask[None], legal.size, 0), legal)
    assert math.isclose(np.exp(logp).sum(), 1.0, rel_tol=1e-9)
    assert logp.min() >= math.log(FLOOR / legal.size) - 1e-12
    assert legal[logp.argmax()] == jj_base.act(obs, mask)


def test_the_true_deal_explains_the_others_play_better_than_worlds_from_the_prior(jj_base):
    rules = get_rules("jj")
    belief = PlayBelief(jj_base, rules, tau=0.05)
    rng = np.random.default_rng(3)
    ahead = 0
    for seed in range(6):
        game = base_game(jj_base, 100 + seed, 60)
        seat = (game.current_player + 1) % 5
        info = info_state(game, seat)
        drawn = [resample_info(info, rng).restarted() for _ in range(8)]
        worlds, loglik = belief.score([game.restarted(), *drawn], info)
        assert all(w is not None for w in worlds) and np.isfinite(loglik).all()
        assert worlds[0].actions == game.actions and worlds[0].hands == game.hands  # stepped on to the present
        ahead += loglik[0] > np.median(loglik[1:])
    assert ahead == 6


def test_a_world_the_seat_can_tell_apart_is_ruled_out(jj_base):
    rules = get_rules("jj")
    belief = PlayBelief(jj_base, rules, tau=0.05)
    game = base_game(jj_base, 7, 30)
    seat = game.current_player
    other_deal = base_game(jj_base, 8, 30)
    worlds, loglik = belief.score([other_deal.restarted(), game.restarted()], info_state(game, seat))
    assert worlds[0] is None and loglik[0] == -np.inf
    assert worlds[1] is not None and np.isfinite(loglik[1])


def test_worlds_are_chosen_in_proportion_to_their_likelihood_without_replacement():
    loglik = np.array([*np.log([0.7, 0.2, 0.1]), -np.inf])
    rng = np.random.default_rng(0)
    firsts = np.bincount([PlayBelief.choose(loglik, 1, rng)[0] for _ in range(4000)], minlength=4) / 4000
    assert np.allclose(firsts, [0.7, 0.2, 0.1, 0.0], atol=0.03)
    many = PlayBelief.choose(loglik, 10, rng)
    assert sorted(many.tolist()) == [0, 1, 2]  # each once, the impossible world never


def test_the_temperature_and_pool_are_settings_with_clear_errors():
    s = SearchSettings.parse("w=4:sampler=policy:tau=0.03:pool=3")
    assert (s.sampler, s.tau, s.pool) == ("policy", 0.03, 3)
    assert SearchSettings.parse(s.spec.removeprefix("search:")) == s
    with pytest.raises(ValueError, match="tau"):
        SearchSettings.parse("tau=0")
    with pytest.raises(ValueError, match="pool"):
        SearchSettings.parse("pool=0")


def test_a_policy_search_decides_from_the_information_state_alone(jj_base):
    rules = get_rules("jj")
    rng = np.random.default_rng(2)
    settings = SearchSettings(worlds=3, top=2, depth=1, sampler="policy", tau=0.05)
    checked = 0
    for seed in range(40, 60):
        game = base_game(jj_base, seed, 45)
        seat = game.current_player
        if game.phase != PLAY or np.count_nonzero(game.legal_mask()) < 2:
            continue
        info = info_state(game, seat)
        for _ in range(50):
            other = resample_info(info, rng)
            if other.hands != game.hands:
                break
        a = SearchAgent(rules, settings, seed=5, base=jj_base)
        b = SearchAgent(rules, settings, seed=5, base=jj_base)
        ra, rb = a.search(info), b.search(info_state(other, seat))
        assert (ra.candidates, ra.means, ra.choice) == (rb.candidates, rb.means, rb.choice)
        checked += 1
        if checked == 4:
            break
    assert checked == 4


def test_the_policy_belief_puts_a_hidden_guard_card_with_the_true_guard_more_often_than_the_prior(jj_base):
    """Deals played by the base at every seat; at each decision of one seat while the guard
    card is hidden from it, the share of its worlds that give the guard card to its true holder."""
    rules = get_rules("jj")
    encode = encoder_of(rules).encode
    agents = {name: SearchAgent(rules, SearchSettings.parse(f"w=8:sampler={name}:tau=0.03"), seed=1, base=jj_base)
              for name in ("prior", "policy")}
    right = {name: [] for name in agents}
    for k in range(2):
        game, seat = Game(rules, seed=21_000_000 + k), k % 5
        for agent in agents.values():
            agent.reset(k)
        while not game.is_over:
            mask = game.legal_mask()
            if game.current_player == seat and forced_move(mask) is None:
                info = info_state(game, seat)
                for name, agent in agents.items():
                    worlds = agent.worlds(info)
                    assert worlds and all(np.array_equal(encode(w, seat), info.observation) for w in worlds)
                    if len(info.guard_seats) > 1:
                        right[name] += [w.roles.guard_card_seat == game.roles.guard_card_seat for w in worlds]
            game.step(act_in_game(jj_base, game, game.current_player, encode))
    assert len(right["prior"]) >= 100
    assert np.mean(right["policy"]) > np.mean(right["prior"]) + 0.05
