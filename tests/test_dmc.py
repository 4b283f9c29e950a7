"""DMC trainer: features, config, checkpoints, resume after a kill, determinism, agent use."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from agents import make_agent
from agents.nets.action_features import ActionFeatures
from agents.training.config import load_config, parse_overrides
from agents.dmc import ROLES, DMCAgent
from agents.dmc.config import DMCConfig
from agents.dmc.trainer import CHECKPOINT_NAME, train
from baohuang_env import DECISIONS, FIRST_PLAY, PASS, Game, action_table, get_rules
from baohuang_env.cards import deck_counts
from baohuang_cli.cli import main as cli_main
from baohuang_env.encoding import Encoder

from helpers import folder_snapshot, gym_episode_with_opponents

RULES = get_rules("jj")
TINY = ["actors=0", "games_per_actor=2", "unroll_length=16", "slots_per_role=8", "batch_slots=2", "hidden=32",
        "head=16", "eval_minutes=0", "log_seconds=1000", "checkpoint_minutes=100", "total_minutes=5"]


def tiny_config(tmp_path: Path, *extra: str) -> DMCConfig:
    return load_config(DMCConfig, None, [*TINY, f"runs_dir={tmp_path}", *extra])


def test_action_features_round_trip_every_action():
    feats = ActionFeatures(RULES)
    table = action_table(RULES)
    copies = deck_counts(RULES)
    for a in range(table.num_actions):
        f = feats.decode(feats.table[a])
        if a == PASS:
            assert f["is_pass"][0] == 1 and f["decision"].sum() == 0 and f["cards"].sum() == 0
        elif a < FIRST_PLAY:
            assert f["is_pass"][0] == 0 and np.flatnonzero(f["decision"]).tolist() == [a - 1]
            assert DECISIONS[a - 1] == table.describe(a)
        else:
            counts = np.rint(f["cards"] * copies).astype(int)
            assert np.array_equal(counts, table.counts[a - FIRST_PLAY])
            rank = table.rank[a - FIRST_PLAY]
            assert np.flatnonzero(f["rank"]).tolist() == ([] if rank < 0 else [rank])


def test_config_errors_name_the_key(tmp_path):
    with pytest.raises(ValueError, match=r"unknown key.*learning_rat"):
        load_config(DMCConfig, None, ["learning_rat=0.1"])
    with pytest.raises(ValueError, match=r"actors.*integer"):
        load_config(DMCConfig, None, ["actors=two"])
    with pytest.raises(ValueError, match=r"reward_mode 'money'.*score.*win"):
        load_config(DMCConfig, None, ["reward_mode=money"])
    with pytest.warns(FutureWarning, match="'objective' is deprecated"), \
            pytest.raises(ValueError, match=r"reward_mode 'money'"):
        load_config(DMCConfig, None, ["objective=money"])
    with pytest.raises(ValueError, match="networks must be one of 'per_role', 'shared'"):
        load_config(DMCConfig, None, ["networks=everyone"])
    bad = tmp_path / "bad.yaml"
    bad.write_text("- a list\n- not a mapping\n")
    with pytest.raises(ValueError, match="mapping"):
        load_config(DMCConfig, bad)
    with pytest.raises(ValueError, match="key=value"):
        parse_overrides(["nonsense"])
    cfg = load_config(DMCConfig, "configs/dmc_quick.yaml", ["epsilon=0.2", "eval_opponents=random,greedy"])
    assert cfg.epsilon == 0.2 and cfg.eval_opponents == ["random", "greedy"] and cfg.exp_name == "dmc_quick"


def test_shipped_configs_load():
    for path in Path("configs").glob("dmc_*.yaml"):
        load_config(DMCConfig, path)


def _params(run_dir: Path) -> dict[str, torch.Tensor]:
    ckpt = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)
    return {f"{r}.{k}": v for r, model in ckpt["models"].items() for k, v in model.items()}


def test_train_checkpoint_resume_and_evaluate(tmp_path):
    cfg = tiny_config(tmp_path, "total_frames=3000")
    run_dir = train(cfg)
    ckpt = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)
    first = ckpt["counters"]
    assert first["frames"] >= 3000 and first["updates"] > 0
    assert (run_dir / "config.yaml").is_file()
    assert any(p.name.startswith("events.out.tfevents") for p in run_dir.iterdir())
    # resume: counters continue from the checkpoint
    cfg2 = tiny_config(tmp_path, "total_frames=6000")
    assert train(cfg2, resume=str(run_dir)) == run_dir
    second = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)["counters"]
    assert second["frames"] >= 6000 and second["updates"] > first["updates"]
    # the checkpoint plays anywhere a bot plays
    agent = make_agent(f"dmc:{run_dir / CHECKPOINT_NAME}", RULES)
    enc = Encoder(RULES)
    game = Game(RULES, seed=5)
    while not game.is_over:
        mask = game.legal_mask()
        action = agent.act(enc.encode(game, game.current_player), mask)
        assert mask[action] == 1
        game.step(action)
    from baohuang_eval import evaluate_against

    result = evaluate_against(agent, "random", RULES, [11, 12])
    assert 0.0 <= result.win_rate <= 1.0
    # ... and as the Gymnasium env's opponents
    info = gym_episode_with_opponents(f"dmc:{run_dir / 'model.pt'}")
    assert "scores" in info and sum(info["scores"]) == 0


def test_shared_network_trains_plays_and_refuses_a_per_role_resume(tmp_path):
    """`networks: shared`: one network scores every role's decisions and is what the
    checkpoint holds; the agent uses it at every seat; resuming as per_role is refused."""
    run_dir = train(tiny_config(tmp_path, "networks=shared", "total_frames=2000"))
    ckpt = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)
    assert list(ckpt["models"]) == ["shared"] and list(ckpt["optimizers"]) == ["shared"]
    assert ckpt["arch"]["networks"] == "shared" and ckpt["counters"]["updates"] > 0
    agent = DMCAgent.from_checkpoint(str(run_dir / "model.pt"), RULES)
    assert len(agent.nets) == 1
    enc, game, networks = Encoder(RULES), Game(RULES, seed=8), set()
    while not game.is_over:
        obs, mask = enc.encode(game, game.current_player), game.legal_mask()
        networks.add(agent.network_of(obs))
        game.step(agent.act(obs, mask))
    assert networks == {0}
    with pytest.raises(ValueError, match=r"networks is 'shared' in the run, asked 'per_role'"):
        train(tiny_config(tmp_path, "networks=per_role", "total_frames=4000"), resume=str(run_dir))


def test_cli_resume_continues_with_the_runs_own_config(tmp_path, capfd):
    """`baohuang train dmc --resume RUN` without --config: the run's recipe (here dmc_quick's
    shared network, win rewards and learning rate), not the defaults; the budget may grow."""
    run_dir = train(tiny_config(tmp_path, "networks=shared", "reward_mode=win", "learning_rate=0.001",
                                "exp_name=quick", "eval_deals=3", "total_frames=800"))
    saved = yaml.safe_load((run_dir / "config.yaml").read_text())
    first = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)["counters"]
    rc = cli_main(["train", "dmc", "--resume", str(run_dir), "--no-eval", "total_frames=1600"])
    err = capfd.readouterr().err
    assert rc == 0, err
    assert f"resumed {run_dir} at {first['frames']} frames" in err and "total_frames 800 -> 1600" in err
    assert yaml.safe_load((run_dir / "config.yaml").read_text()) == {**saved, "total_frames": 1600}
    ckpt = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)
    assert ckpt["config"] == {**saved, "total_frames": 1600} and ckpt["counters"]["frames"] >= 1600
    assert list(ckpt["models"]) == ["shared"]


def test_a_refused_resume_says_why_and_changes_nothing(tmp_path, capfd):
    """A playing copy (model.pt, an export) is not resumable: the message says what to resume
    from. A key that cannot change mid-run is refused, naming both values. Either way the run
    directory is left exactly as it was (no config.yaml rewrite, no TensorBoard file)."""
    run_dir = train(tiny_config(tmp_path, "total_frames=500", "networks=per_role", "reward_mode=score",
                                "learning_rate=0.0005"))
    export = tmp_path / "exported.pt"
    export.write_bytes((run_dir / "model.pt").read_bytes())
    before = folder_snapshot(run_dir)

    def refused(*args: str) -> str:
        assert cli_main(["train", "dmc", "--no-eval", *args]) == 2
        return capfd.readouterr().err

    err = refused("--resume", str(run_dir / "model.pt"))
    assert "is a playing copy" in err
    assert f"Resume from the run directory {run_dir} or its {run_dir / CHECKPOINT_NAME}" in err
    err = refused("--resume", str(export))
    assert "is a playing copy" in err and "Resume from the run directory that wrote it" in err
    err = refused("--resume", str(run_dir), "learning_rate=0.01", "total_frames=1000")
    assert "learning_rate is 0.0005 in the run, asked 0.01" in err and "mid-run" in err
    err = refused("--resume", str(run_dir), "--config", "configs/dmc_quick.yaml")
    assert "networks is 'per_role' in the run, asked 'shared'" in err and "reward_mode is 'score'" in err
    assert "hidden" not in err  # a key the file does not give keeps the run's value
    with pytest.raises(ValueError, match="is a playing copy"):
        train(tiny_config(tmp_path, "total_frames=1000"), resume=str(run_dir / "model.pt"))
    assert folder_snapshot(run_dir) == before


def test_per_role_agent_picks_the_network_of_the_seats_role(tmp_path):
    """Also: a checkpoint from before `networks` existed (no such key in its arch) loads as
    per-role networks."""
    run_dir = train(tiny_config(tmp_path, "networks=per_role", "total_frames=500"))
    ckpt = torch.load(run_dir / "model.pt", weights_only=True)
    assert ckpt["arch"].pop("networks") == "per_role"
    torch.save(ckpt, tmp_path / "older.pt")
    agent = DMCAgent.from_checkpoint(str(tmp_path / "older.pt"), RULES)
    assert len(agent.nets) == len(ROLES)
    enc, game = Encoder(RULES), Game(RULES, seed=8)
    while not game.is_over:
        seat = game.current_player
        obs = enc.encode(game, seat)
        if game.phase == "play":
            role = ("solo" if game.emperor == game.guard else "emperor") if seat == game.emperor else (
                "guard" if seat == game.guard else "rebel")
            assert ROLES[agent.network_of(obs)] == role
        game.step(agent.act(obs, game.legal_mask()))


def test_checkpoint_agent_evaluates_in_worker_processes(tmp_path):
    """Workers must not inherit torch's thread pool by fork (that hangs): run the CLI with
    two workers and a checkpoint agent, under a timeout."""
    run_dir = train(tiny_config(tmp_path, "total_frames=500"))
    out = tmp_path / "eval"
    cmd = [sys.executable, "-m", "baohuang_cli.cli", "eval", "--agents", f"dmc:{run_dir / 'model.pt'}", "random",
           "--deals", "2", "--workers", "2", "--out", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (out / "report.json").is_file() and (out / "report.md").is_file()


def test_inline_training_is_deterministic(tmp_path):
    a = train(tiny_config(tmp_path / "a", "total_frames=2500", "seed=3"))
    b = train(tiny_config(tmp_path / "b", "total_frames=2500", "seed=3"))
    pa, pb = _params(a), _params(b)
    assert pa.keys() == pb.keys()
    assert all(torch.equal(pa[k], pb[k]) for k in pa)
    c = train(tiny_config(tmp_path / "c", "total_frames=2500", "seed=4"))
    assert not all(torch.equal(pa[k], _params(c)[k]) for k in pa)


def test_checkpoint_for_other_rules_is_refused(tmp_path):
    run_dir = train(tiny_config(tmp_path, "total_frames=800"))
    path = run_dir / CHECKPOINT_NAME
    with pytest.raises(ValueError, match="rules"):
        DMCAgent.from_checkpoint(str(path), get_rules("jj", hold_sixes=False))
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match=r"junk\.pt is not a checkpoint: a checkpoint is a file written by"):
        DMCAgent.from_checkpoint(str(junk), RULES)
    with pytest.raises(ValueError, match="does not exist"):
        make_agent(f"dmc:{tmp_path / 'missing.pt'}", RULES)
    with pytest.raises(ValueError, match="needs its checkpoint"):
        make_agent("dmc", RULES)


@pytest.mark.slow
def test_killed_run_resumes_from_its_last_checkpoint(tmp_path):
    """Train with actor processes, kill -9 after the first checkpoint, resume: nothing before
    that checkpoint is lost and training goes on."""
    args = [sys.executable, "-m", "baohuang_cli.cli", "train", "dmc", "--no-eval",
            "actors=1", "unroll_length=16", "slots_per_role=8", "batch_slots=2", "hidden=32", "head=16",
            "eval_minutes=0", "checkpoint_minutes=0.02", "total_minutes=3", f"runs_dir={tmp_path}"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.time() + 120
    ckpts: list[Path] = []
    while time.time() < deadline and not (ckpts and torch.load(ckpts[0], weights_only=True)["counters"]["frames"]):
        time.sleep(0.5)  # a checkpoint with frames in it (on a loaded machine the actor starts late)
        ckpts = list(tmp_path.glob(f"*/{CHECKPOINT_NAME}"))
    time.sleep(2.0)  # let it train a little past the checkpoint
    os.kill(proc.pid, signal.SIGKILL)  # the learner only: its actors must notice and exit
    proc.wait()
    assert ckpts, f"no checkpoint was written; stderr: {proc.stderr.read().decode()[-2000:]}"
    orphans_gone = False
    for _ in range(40):
        alive = subprocess.run(["pgrep", "-g", str(proc.pid)], capture_output=True, text=True).stdout.split()
        if not alive:
            orphans_gone = True
            break
        time.sleep(0.25)
    if not orphans_gone:
        os.killpg(proc.pid, signal.SIGKILL)
    assert orphans_gone, "actor processes outlived their killed learner"
    saved = torch.load(ckpts[0], weights_only=True)["counters"]
    assert saved["frames"] > 0
    run_dir = ckpts[0].parent
    more = [*args, "--resume", str(run_dir), "total_minutes=0", f"total_frames={saved['frames'] + 2000}"]
    resumed = subprocess.run(more, capture_output=True, text=True, timeout=180)
    assert resumed.returncode == 0, resumed.stderr
    assert "resumed" in resumed.stderr
    final = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)["counters"]
    assert final["frames"] >= saved["frames"] + 2000
    assert final["updates"] >= saved["updates"]


def test_action_values_refuse_a_mask_in_place_of_the_legal_ids():
    """`action_values(obs, mask)` used to read the 0/1 entries of a mask as action ids 0 and 1."""
    agent = make_agent("pretrained:dmc_jj", RULES)
    game = Game(RULES, seed=3)
    obs, mask = Encoder(RULES).encode(game, game.current_player), game.legal_mask()
    legal = np.flatnonzero(mask)
    assert agent.action_values(obs, legal).shape == legal.shape
    for wrong, words in [(mask, "looks like a mask"), (mask.astype(bool), "looks like a mask"),
                         (np.array([1, 1, 2]), "repeated action ids"), (np.array([1, 99999]), "outside 0..4035"),
                         (legal.astype(float), "integer action ids")]:
        with pytest.raises(ValueError, match=words):
            agent.action_values(obs, wrong)
