"""What a user of the installed package gets, outside the clone: the shipped agents and recipe
configs by name and by their documented paths from any directory, a wheel that holds them, and
a clear error when a local `agents` folder shadows our package.

(The non-editable install from a built wheel is run by `.ci/run`, `.ci/wheel_smoke.py`.)
"""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from agents.training.config import RECIPES, recipe_path, recipes
from agents.pretrained import SHIPPED, checkpoint_path, find, load, names, strongest
from baohuang_env import Game, get_rules
from baohuang_env.rules import PRESETS
from baohuang_env.agent import make_agent
from baohuang_env.encoding import Encoder
from helpers import ship_jj_agents_only

ROOT = Path(__file__).resolve().parents[1]
RULES = get_rules("jj")


def _run(code: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120)


def _first_decisions(agent, seed: int = 4, n: int = 40, rules=RULES) -> list[int]:
    game, enc, out = Game(rules, seed=seed), Encoder(rules), []
    while not game.is_over and len(out) < n:
        action = int(agent.act(enc.encode(game, game.current_player), game.legal_mask()))
        out.append(action)
        game.step(action)
    return out


def test_shipped_agents_by_name_play_as_their_files():
    assert names()[:2] == ["dmc_kickstart_jj", "dmc_jj"] and strongest("jj").name == "dmc_kickstart_jj"
    assert {p.preset for p in SHIPPED.values()} >= {"jj", "lianzhong_classic", "weihai"}
    for p in SHIPPED.values():
        assert p.path.is_file() and p.path.parent == ROOT / "agents" / "pretrained"
        rules = get_rules(p.preset)
        by_file = make_agent(f"{p.kind}:agents/pretrained/{p.name}.pt", rules)
        assert _first_decisions(make_agent(p.spec, rules), rules=rules) == _first_decisions(by_file, rules=rules)
        assert strongest(p.preset).preset == p.preset
    assert _first_decisions(load()) == _first_decisions(make_agent("pretrained:dmc_kickstart_jj", RULES))


def test_unknown_or_unplayable_shipped_agents_say_what_there_is(monkeypatch):
    with pytest.raises(ValueError, match=r"no shipped agent 'nope'; shipped agents: dmc_kickstart_jj, dmc_jj, "):
        find("nope")
    assert {p.preset for p in SHIPPED.values()} == set(PRESETS)  # every preset ships its own agent
    ship_jj_agents_only(monkeypatch)  # weihai stands for a preset no shipped agent plays
    with pytest.raises(ValueError, match=r"no shipped agent plays preset 'weihai' .*shipped agents play: jj\)"):
        make_agent("pretrained", get_rules("weihai"))
    with pytest.raises(ValueError, match="trained for other rules"):
        make_agent("pretrained:dmc_jj", get_rules("weihai"))


def test_documented_paths_resolve_from_any_directory_and_a_local_file_wins(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert checkpoint_path("agents/pretrained/dmc_jj.pt") == SHIPPED["dmc_jj"].path
    assert checkpoint_path("dmc_jj.pt") == SHIPPED["dmc_jj"].path
    assert checkpoint_path("elsewhere/dmc_jj.pt") == Path("elsewhere/dmc_jj.pt")  # not ours: left as given
    assert recipe_path("configs/dmc_quick.yaml") == recipe_path("dmc_quick") == RECIPES / "dmc_quick.yaml"
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "dmc_quick.yaml").write_text("seed: 5\n", encoding="utf-8")
    assert recipe_path("configs/dmc_quick.yaml") == Path("configs/dmc_quick.yaml")  # the user's own file
    on_disk = ", ".join(sorted(f.stem for f in RECIPES.glob("*.yaml")))
    assert "dmc_quick, ppo_jj" in on_disk
    with pytest.raises(ValueError, match=r"no config file nope\.yaml; give a YAML file or a shipped recipe: "
                                         + re.escape(on_disk) + " "):
        recipe_path("nope.yaml")
    assert recipes() == sorted(p.stem for p in (ROOT / "configs").glob("*.yaml"))  # configs/ is the same folder


def test_the_documented_commands_work_outside_the_clone(tmp_path):
    """The README's eval of the shipped agent and a (tiny) main job, run in an empty folder."""
    eval_cmd = [sys.executable, "-m", "baohuang_cli.cli", "eval", "--agents",
                "dmc:agents/pretrained/dmc_kickstart_jj.pt", "pretrained:dmc_jj", "--deals", "2",
                "--protocol", "team", "--workers", "1", "--out", str(tmp_path / "eval")]
    done = subprocess.run(eval_cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "`dmc:agents/pretrained/dmc_kickstart_jj.pt`" in done.stdout and "`pretrained:dmc_jj`" in done.stdout
    train_cmd = [sys.executable, "-m", "baohuang_cli.cli", "train", "dmc", "--config", "configs/dmc_quick.yaml",
                 "total_frames=2000", "teacher_frames=1000", "actors=0", "unroll_length=16", "slots_per_role=8",
                 "batch_slots=2", "hidden=32", "head=16", "eval_minutes=0", "final_eval_deals=2",
                 "eval_opponents=[random]"]
    done = subprocess.run(train_cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert list((tmp_path / "runs").glob("*dmc_quick*/model.pt"))


def test_a_local_agents_folder_that_shadows_ours_is_named(tmp_path):
    """A project with its own `agents/` package: run from its folder, `make_agent` and
    `gym.make` used to say "unknown agent 'heuristic'; available agents: ['random']"."""
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("", encoding="utf-8")
    for code in ["from baohuang_env import get_rules, make_agent; make_agent('heuristic', get_rules('jj'))",
                 "import gymnasium as gym, baohuang_env; gym.make('Baohuang-v0', opponents='greedy')"]:
        done = _run(code, tmp_path)
        assert done.returncode == 1
        last = done.stderr.strip().splitlines()[-1]
        assert last.startswith("baohuang_env.agent.ShadowedPluginError: the module 'agents' imported from "
                               f"{tmp_path / 'agents' / '__init__.py'} is not the one baohuang-rl installed")
        assert "Rename that folder, or run from another directory" in last
    assert _run("from baohuang_env import get_rules, make_agent; make_agent('heuristic', get_rules('jj'))",
                tmp_path / "agents").returncode == 0  # from elsewhere ours is found


def test_the_wheel_ships_what_the_docs_use(tmp_path):
    """`pip wheel .`: the shipped agents, the recipe configs and the web pages are package
    data; tests and experiments are not."""
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    (wheel,) = tmp_path.glob("baohuang_rl-*.whl")
    files = set(zipfile.ZipFile(wheel).namelist())
    shipped = {f"agents/pretrained/{p.name}.pt" for p in SHIPPED.values()}
    shipped |= {f"agents/configs/{name}.yaml" for name in recipes()}
    shipped |= {f"baohuang_web/static/{p.name}" for p in (ROOT / "baohuang_web" / "static").iterdir()}
    assert shipped <= files
    assert not [f for f in files if f.startswith(("tests/", "experiments/", "configs/"))]
    sizes = [zipfile.ZipFile(wheel).getinfo(f).file_size for f in files if f.endswith(".pt")]
    assert max(sizes) < 5_000_000 and np.sum(sizes) < 10_000_000  # a few MB each
