"""PPO trainer: GAE, the masked policy, the update, determinism, checkpoints and resume, the
opponent pool, configs, foreign checkpoints, and the trained agent wherever a bot plays."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.training.config import load_config
from agents.dmc.agent import DMCAgent
from baohuang_eval import evaluate_against
from agents.ppo import ActorCritic, MaskedCategorical, PPOAgent, PPOConfig, gae
from agents.ppo.rollout import Batch, Rollouts
from agents.training.pool import OpponentPool
from agents.ppo.trainer import CHECKPOINT_NAME, architecture, ppo_update, train
from baohuang_cli.cli import main as cli_main
from baohuang_env import Game, get_rules
from baohuang_env.agent import Agent, RandomAgent, register_agent
from baohuang_env.cards import NUM_SEATS
from baohuang_env.encoding import Encoder

from helpers import folder_snapshot, gym_episode_with_opponents

RULES = get_rules("jj")
TINY = ["num_games=8", "rollout_decisions=256", "minibatch_size=128", "update_epochs=2", "hidden=32", "head=16",
        "value_hidden=32", "torch_threads=1", "eval_minutes=0", "log_seconds=1000", "checkpoint_minutes=100",
        "total_minutes=5", "opponent_mix=self:0.4,snapshots:0.2,random:0.2,greedy:0.2", "snapshot_every=1",
        "pool_size=3"]


def tiny_config(tmp_path: Path, *extra: str) -> PPOConfig:
    return load_config(PPOConfig, None, [*TINY, f"runs_dir={tmp_path}", *extra])


# --- GAE -------------------------------------------------------------------------------

def test_gae_matches_hand_computed_values():
    # gamma 1, lambda 0.95, reward only at the end (a seat's trajectory)
    adv, ret = gae(np.array([0.0, 0.0, 1.0]), np.array([0.5, 0.2, -0.1]), gamma=1.0, lam=0.95)
    # delta2 = 1 - (-0.1) = 1.1; delta1 = -0.1 - 0.2 = -0.3; delta0 = 0.2 - 0.5 = -0.3
    # A2 = 1.1; A1 = -0.3 + 0.95 * 1.1 = 0.745; A0 = -0.3 + 0.95 * 0.745 = 0.40775
    np.testing.assert_allclose(adv, [0.40775, 0.745, 1.1], rtol=1e-6)
    np.testing.assert_allclose(ret, [0.90775, 0.945, 1.0], rtol=1e-6)
    # discounting and a bootstrap value for a cut-off trajectory
    adv, _ = gae(np.array([1.0, 0.0]), np.array([0.0, 1.0]), gamma=0.9, lam=0.5, last_value=2.0)
    # delta1 = 0 + 0.9 * 2 - 1 = 0.8; delta0 = 1 + 0.9 * 1 - 0 = 1.9; A0 = 1.9 + 0.45 * 0.8 = 2.26
    np.testing.assert_allclose(adv, [2.26, 0.8], rtol=1e-6)
    # lambda 1, gamma 1: the Monte-Carlo return minus the value
    adv, ret = gae(np.array([0.0, 0.0, 0.0, -1.0]), np.array([0.3, -0.2, 0.1, 0.4]), gamma=1.0, lam=1.0)
    np.testing.assert_allclose(adv, [-1.3, -0.8, -1.1, -1.4], rtol=1e-6)
    np.testing.assert_allclose(ret, [-1.0] * 4, rtol=1e-6)


# --- the masked policy -----------------------------------------------------------------

def test_masked_policy_gives_illegal_actions_no_probability():
    gen = torch.Generator().manual_seed(0)
    n = Encoder(RULES).table.num_actions
    logits = torch.randn(3, n, generator=gen) * 5
    logits[:, 7] = 50.0  # a very attractive illegal action
    mask = torch.zeros(3, n, dtype=torch.bool)
    mask[0, [0, 20, 300]] = True
    mask[1, 40:200] = True
    mask[2, 123] = True  # one legal action
    logits.requires_grad_(True)
    dist = MaskedCategorical(logits, mask)
    assert torch.all(dist.probs[~mask] < 1e-6)
    torch.testing.assert_close(dist.probs.sum(-1), torch.ones(3))
    entropy = dist.entropy()
    assert torch.isfinite(entropy).all()
    assert entropy[2].item() == 0.0 and entropy[0].item() > 0.0
    assert dist.log_prob(torch.tensor([0, 40, 123]))[2].item() == 0.0
    for _ in range(20):
        drawn = dist.sample()
        assert mask[torch.arange(3), drawn].all()
    assert mask[torch.arange(3), dist.mode()].all()
    (entropy.sum() + dist.log_prob(torch.tensor([20, 41, 123])).sum()).backward()
    assert torch.isfinite(logits.grad).all()
    assert torch.all(logits.grad[~mask] == 0)  # illegal logits get no gradient


def test_policy_over_a_real_decision_and_the_agent_agree():
    torch.manual_seed(0)
    cfg = load_config(PPOConfig, None, ["hidden=32", "head=16", "value_hidden=32"])
    net = ActorCritic(**architecture(cfg, RULES))
    agent = PPOAgent(RULES, net)
    enc = Encoder(RULES)
    game = Game(RULES, seed=4)
    while game.phase != "play":
        game.step(int(game.legal_actions()[0]))
    legal = game.legal_actions()
    assert legal.size > 1
    obs = enc.encode(game, game.current_player)
    feats = torch.from_numpy(agent.features[legal])
    with torch.no_grad():
        dist = net.distribution(torch.from_numpy(obs)[None], torch.tensor([legal.size]), feats)
    assert dist.probs.shape == (1, legal.size)
    np.testing.assert_allclose(dist.logits[0].numpy(), agent.logits(obs, legal), rtol=1e-4, atol=1e-5)
    assert agent.act(obs, game.legal_mask()) == legal[int(dist.mode()[0])]
    # a fresh policy is near-uniform over the legal actions
    assert dist.entropy().item() == pytest.approx(np.log(legal.size), rel=0.02)


@pytest.mark.parametrize("preset", ["jj", "qingdao"])  # qingdao: masks from the engine
def test_batched_legal_actions_match_the_engine(preset):
    """The rollouts' batched masks (their training games' turn) give every game's current seat
    exactly `game.legal_actions()`."""
    torch.manual_seed(0)
    cfg = load_config(PPOConfig, None, [*TINY, f"preset={preset}", "opponent_mix=self:1"])
    rules = get_rules(preset)
    net = ActorCritic(**architecture(cfg, rules))
    pool = OpponentPool(1)
    pool.add(net, 0)
    rollouts = Rollouts(cfg, rules, net, pool, seed=1)
    play_phase = 0
    for _ in range(60):
        turn = rollouts.games.turn()  # self-play: no bot moves, so looking changes nothing
        for b, game in enumerate(rollouts.games.games):
            ids, counts = turn.legal_ids(np.array([b]))
            assert turn.seats[b] == game.current_player and counts[0] == ids.size
            assert np.array_equal(ids, game.legal_actions())
            play_phase += game.phase == "play"
        rollouts.step()
    assert play_phase > 200 and rollouts.frames >= 60 * cfg.num_games


def test_update_raises_the_probability_of_advantaged_actions():
    torch.manual_seed(0)
    cfg = load_config(PPOConfig, None, [*TINY, "opponent_mix=self:1", "norm_adv=false", "ent_coef=0",
                                        "learning_rate=0.01", "update_epochs=4", "max_grad_norm=100"])
    net = ActorCritic(**architecture(cfg, RULES))
    pool = OpponentPool(1)
    pool.add(net, 0)
    rollouts = Rollouts(cfg, RULES, net, pool, seed=0)
    batch = rollouts.collect(256)
    assert len(batch) >= 256 and batch.counts.min() >= 2  # forced decisions are not stored
    # choosing the first legal action was better than expected, anything else worse
    batch.adv[:] = np.where(batch.choice == 0, 1.0, -1.0)

    def logp(entry) -> float:
        with torch.no_grad():
            d = net.distribution(torch.from_numpy(batch.obs), torch.from_numpy(batch.counts),
                                 rollouts.features[batch.actions])
            return d.log_prob(torch.as_tensor(entry)).mean().item()

    np.testing.assert_allclose(logp(batch.choice), batch.logp.mean(), rtol=1e-4)  # stored = the policy's
    before = logp(np.zeros(len(batch), dtype=np.int64))
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    stats = ppo_update(net, opt, batch, cfg, rollouts.features)
    assert logp(np.zeros(len(batch), dtype=np.int64)) > before + 0.1
    assert {"policy_loss", "value_loss", "approx_kl", "clipfrac", "entropy", "explained_variance"} <= set(stats)
    assert stats["approx_kl"] > 0


# --- opponents in the rollouts ---------------------------------------------------------

class SeatRecordingBot(RandomAgent):
    """A random bot that keeps the observations it acted on (with the agent that acted)."""

    uses_observation = True
    acted: ClassVar[list[tuple[Agent, bytes]]] = []

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        SeatRecordingBot.acted.append((self, observation.tobytes()))
        return super().act(observation, action_mask)


register_agent("ppo-seat-recording-bot", lambda arg, rules, seed: SeatRecordingBot(seed))


def _games_against_a_bot(monkeypatch, collects: int) -> list[tuple[Batch, list[dict], set[str]]]:
    """`collects` smallest collects of a seeded one-game rollout against `SeatRecordingBot`,
    each checked: its batch is exactly the learner's decisions at the learner's seats of the
    games that ended in it, none of the bot's; the bot made every choice at its seats, which
    are one whole side, from the play phase on. Returns per collect (batch, finished entries,
    the sides the bot played)."""
    torch.manual_seed(0)
    spec = "ppo-seat-recording-bot"
    cfg = load_config(PPOConfig, None, [*TINY, "num_games=1", f"opponent_mix={spec}=1"])
    net = ActorCritic(**architecture(cfg, RULES))
    pool = OpponentPool(1)
    pool.add(net, 0)
    rollouts = Rollouts(cfg, RULES, net, pool, seed=7)
    training = rollouts.games
    learner: list[tuple[Any, int, str, bytes]] = []  # (table, seat, phase, observation) per learner decision
    bot_turns: list[tuple[Any, int]] = []  # (table, seat) of each choice at an opponent's seat
    ended: list[tuple[Any, Any]] = []  # (table, result) of each game that ended
    observe, advance = training.observe, training.advance

    def observe_learner(rows: np.ndarray) -> np.ndarray:
        obs = observe(rows)
        learner.extend((training.tables[b], training.games[b].current_player, training.games[b].phase, o.tobytes())
                       for b, o in zip(rows.tolist(), obs, strict=True))
        return obs

    def advance_recording(turn):
        for b in np.flatnonzero(turn.counts > 1).tolist():
            if training.tables[b].controllers[turn.seats[b]] is not None:
                bot_turns.append((training.tables[b], int(turn.seats[b])))
        done = advance(turn)
        ended.extend((table, result) for _row, table, result in done)
        return done

    monkeypatch.setattr(training, "observe", observe_learner)
    monkeypatch.setattr(training, "advance", advance_recording)
    out = []
    for _ in range(collects):
        SeatRecordingBot.acted, learner[:], bot_turns[:], ended[:] = [], [], [], []
        batch = rollouts.collect(1)
        finished, rollouts.finished = rollouts.finished, []
        assert len(finished) == len(ended) >= 1
        trained, sides = [], set()
        for (table, result), entry in zip(ended, finished, strict=True):
            bot_seats = [s for s in range(NUM_SEATS) if table.controllers[s] is not None]
            mine = [s for s in range(NUM_SEATS) if s not in bot_seats]
            assert entry == {"mode": spec, "score": result.scores[mine[0]],
                             "returns": [(result.roles[s], result.scores[s]) for s in mine]}
            trained += [o for t, seat, _, o in learner if t is table and seat in mine]
            assert all(phase != "play" for t, seat, phase, _ in learner if t is table and seat in bot_seats)
            assert {seat for t, seat in bot_turns if t is table} <= set(bot_seats)
            if bot_seats:  # else the deal ended in the role phase (void or surrender)
                emperors = {result.roles[s] != "rebel" for s in bot_seats}
                assert len(emperors) == 1 and emperors != {result.roles[s] != "rebel" for s in mine}
                sides.add("emperor's" if True in emperors else "rebels")
        assert len(SeatRecordingBot.acted) == len(bot_turns)  # the bot, not a network, chose there
        assert sorted(o.tobytes() for o in batch.obs) == sorted(trained)  # the learner's side, all of it
        assert not {o.tobytes() for o in batch.obs} & {o for _, o in SeatRecordingBot.acted}
        out.append((batch, finished, sides))
    return out


def test_a_rollout_against_a_bot_trains_only_on_the_learners_side(monkeypatch):
    """Against a bot, the learner plays the role phase at every seat, then one side; the batch
    holds exactly its decisions at that side's seats (not its role-phase decisions at the
    bot's seats, nor the bot's); both sides come up; the same seeds give the same batches."""
    first = _games_against_a_bot(monkeypatch, 10)
    assert set().union(*(sides for _, _, sides in first)) == {"rebels", "emperor's"}
    again = _games_against_a_bot(monkeypatch, 10)
    for (a, fa, _), (b, fb, _) in zip(first, again, strict=True):
        assert fa == fb
        assert all(np.array_equal(getattr(a, f), getattr(b, f)) for f in ("obs", "actions", "choice", "logp", "ret"))


# --- training, checkpoints, resume, evaluation -----------------------------------------

def _weights(run_dir: Path) -> dict[str, torch.Tensor]:
    return torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)["models"]["actor_critic"]


def test_training_is_deterministic(tmp_path):
    a = train(tiny_config(tmp_path / "a", "total_frames=4000", "seed=3"))
    b = train(tiny_config(tmp_path / "b", "total_frames=4000", "seed=3"))
    wa, wb = _weights(a), _weights(b)
    assert torch.load(a / CHECKPOINT_NAME, weights_only=True)["counters"]["updates"] >= 2
    assert wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)
    c = train(tiny_config(tmp_path / "c", "total_frames=4000", "seed=4"))
    assert not all(torch.equal(wa[k], _weights(c)[k]) for k in wa)


def test_train_checkpoint_resume_and_evaluate(tmp_path):
    run_dir = train(tiny_config(tmp_path, "total_frames=4000"))
    ckpt = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)
    first = ckpt["counters"]
    assert first["frames"] >= 4000 and first["updates"] >= 2 and first["decisions"] >= 2 * 256
    # snapshots on schedule (every update), capped at pool_size, oldest dropped first
    assert ckpt["pool"]["ids"] == list(range(first["updates"] - 2, first["updates"] + 1))
    assert (run_dir / "config.yaml").is_file() and (run_dir / "model.pt").is_file()
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tags = EventAccumulator(str(run_dir)).Reload().Tags()["scalars"]
    for tag in ("losses/policy_loss", "losses/value_loss", "losses/approx_kl", "losses/clipfrac",
                "losses/entropy", "losses/explained_variance", "charts/learning_rate", "charts/SPS"):
        assert tag in tags
    # resume: counters, pool and run directory continue
    assert train(tiny_config(tmp_path, "total_frames=8000"), resume=str(run_dir)) == run_dir
    second = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)
    assert second["counters"]["frames"] >= 8000 and second["counters"]["updates"] > first["updates"]
    assert second["pool"]["ids"][-1] == second["counters"]["updates"]
    # the checkpoint plays anywhere a bot plays: evaluation harness ...
    agent = make_agent(f"ppo:{run_dir / 'model.pt'}", RULES)
    for protocol, games in (("team", 4), ("seat", 20)):
        result = evaluate_against(agent, "random", RULES, [11, 12], protocol=protocol)
        assert len(result.records) == games
    # ... and the Gymnasium env's opponents
    info = gym_episode_with_opponents(f"ppo:{run_dir / CHECKPOINT_NAME}")
    assert "scores" in info and sum(info["scores"]) == 0


def test_cli_trains_and_evaluates_with_worker_processes(tmp_path):
    """`baohuang train ppo` end to end: training, model.pt, the final tables of both
    protocols, with the agent rebuilt from its spec in spawned worker processes."""
    cmd = [sys.executable, "-m", "baohuang_cli.cli", "train", "ppo", "--config", "configs/ppo_quick.yaml",
           *TINY, "total_frames=1500", "final_eval_deals=2", "eval_opponents=random", f"runs_dir={tmp_path}"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    [run_dir] = tmp_path.iterdir()
    assert (run_dir / "model.pt").is_file()
    for protocol in ("team", "seat"):
        assert (run_dir / f"eval-{protocol}" / "report.json").is_file()
    assert "ppo:" in done.stdout and "random" in done.stdout


def test_cli_resume_of_a_quick_run_needs_no_config(tmp_path, capfd):
    """`baohuang train ppo --resume RUN` starts from the run's config (its network sizes,
    opponents, learning rate), not the defaults; a change of network size is refused and
    leaves the run as it was."""
    run_dir = train(tiny_config(tmp_path, "total_frames=500", "learning_rate=0.002"))
    before = folder_snapshot(run_dir)
    assert cli_main(["train", "ppo", "--resume", str(run_dir), "--no-eval", "hidden=64"]) == 2
    assert "hidden is 32 in the run, asked 64" in capfd.readouterr().err
    assert folder_snapshot(run_dir) == before
    assert cli_main(["train", "ppo", "--resume", str(run_dir), "--no-eval", "total_frames=1000"]) == 0
    assert "resumed" in capfd.readouterr().err
    ckpt = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)
    assert ckpt["counters"]["frames"] >= 1000 and ckpt["config"]["learning_rate"] == 0.002
    assert ckpt["arch"]["hidden"] == 32 and ckpt["config"]["opponent_mix"]["greedy"] == 0.2


# --- configs and foreign checkpoints ---------------------------------------------------

def test_config_errors_name_the_key(tmp_path):
    with pytest.raises(ValueError, match=r"unknown key.*clip_coeff"):
        load_config(PPOConfig, None, ["clip_coeff=0.1"])
    with pytest.raises(ValueError, match=r"num_games.*integer"):
        load_config(PPOConfig, None, ["num_games=many"])
    with pytest.raises(ValueError, match=r"opponent_mix\.random.*number"):
        load_config(PPOConfig, None, ["opponent_mix=self:1,random:lots"])
    with pytest.raises(ValueError, match=r"opponent_mix.*mapping"):
        load_config(PPOConfig, None, ["opponent_mix=7"])
    with pytest.raises(ValueError, match=r"clip_vloss.*true/false"):
        load_config(PPOConfig, None, ["clip_vloss=maybe"])
    with pytest.raises(ValueError, match="lr_schedule"):
        load_config(PPOConfig, None, ["lr_schedule=cosine"])
    with pytest.raises(ValueError, match="rnadom"):  # an unknown opponent fails before training
        train(tiny_config(tmp_path, "opponent_mix=self:1,rnadom:1", "total_frames=100"))
    cfg = load_config(PPOConfig, "configs/ppo_quick.yaml", ["opponent_mix=self:0.5,random:0.5", "ent_coef=0.02"])
    assert cfg.opponent_mix == {"self": 0.5, "random": 0.5} and cfg.ent_coef == 0.02
    assert cfg.opponent_specs() == ["random"] and cfg.exp_name == "ppo_quick"
    for path in Path("configs").glob("ppo_*.yaml"):
        load_config(PPOConfig, path)


def test_foreign_checkpoints_are_refused(tmp_path):
    run_dir = train(tiny_config(tmp_path, "total_frames=500"))
    path = str(run_dir / CHECKPOINT_NAME)
    with pytest.raises(ValueError, match="rules"):
        PPOAgent.from_checkpoint(path, get_rules("jj", hold_sixes=False))
    # a DMC checkpoint is not a PPO one, and the reverse; the shipped DMC agent (PPO's
    # yardstick, saved before the newer rule flags existed) loads as a DMC agent
    assert isinstance(make_agent("dmc:agents/pretrained/dmc_jj.pt", RULES), DMCAgent)
    with pytest.raises(ValueError, match=r"is a dmc checkpoint, not a PPO one \(play it as dmc:"):
        make_agent("ppo:agents/pretrained/dmc_jj.pt", RULES)
    with pytest.raises(ValueError, match="algo"):
        DMCAgent.from_checkpoint(path, RULES)
    with pytest.raises(ValueError, match="dmc checkpoint"):
        train(tiny_config(tmp_path, "total_frames=500"), resume="agents/pretrained/dmc_jj.pt")
    with pytest.raises(ValueError, match="hidden is 32 in the run, asked 64"):
        train(tiny_config(tmp_path, "total_frames=500", "hidden=64"), resume=str(run_dir))
    with pytest.raises(ValueError, match="needs its checkpoint"):
        make_agent("ppo", RULES)
