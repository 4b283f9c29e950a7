"""What the envs say about their arguments, and the README's words on using them.

* A keyword that is neither an env argument nor a rule flag is refused by one message
  (`gym_env.check_env_arguments`) that names the env's own arguments as well as the rule
  flags, with a guess: `Baohuang-v0`, its native vector env, `env()` and `raw_env()`.
* The native vector env renders nothing, and says so when given a `render_mode`.
* `pettingzoo.make("aec", "baohuang/baohuang-v0")` works once `baohuang_env` is imported
  (PettingZoo 1.27 has a registry but loads no plugins), as the README says.
* The README's Rewards bullet names qingdao's rewards as not zero-sum, and a qingdao deal shows it.
* The README's test command (and CI's, the same) prints the skip reasons, and the browser
  tests' skip says how to install Chromium.
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import baohuang_env
from baohuang_env import raw_env
from baohuang_env.gym_env import BaohuangGymEnv
from baohuang_env.gym_vector import BaohuangVectorEnv

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
FLAGS = ("call_declares_solo, catch_wind, deck_size, display_direction, emperor_selection, end_rule, forced_call, "
         "grab_moves_emperor_card, grab_solo, guard_selection, hold_sixes, jokers_callable, jokers_only_plays, kick, "
         "open_guard_multiplier, rebellion, roasting, scoring, six_no_jokers, special_card, start_seat, surrender, "
         "tribute, void_deal")


def _vector(**kwargs):
    return gymnasium.make_vec("Baohuang-v0", 2, vectorization_mode="vector_entry_point", **kwargs)


# --------------------------------------------------------------------------- unknown arguments


@pytest.mark.parametrize(
    ("make", "typo", "message"),
    [
        (lambda **kw: gymnasium.make("Baohuang-v0", **kw), "opponent",
         "unknown rule flag or argument 'opponent' (did you mean opponents?): Baohuang-v0 takes preset, opponents, "
         "learner_seat, reward_mode, illegal_action, illegal_reward, render_mode, or a rule flag: " + FLAGS),
        (_vector, "opponent",
         "unknown rule flag or argument 'opponent' (did you mean opponents?): BaohuangVectorEnv takes num_envs, "
         "preset, opponents, learner_seat, reward_mode, illegal_action, illegal_reward, autoreset_mode, render_mode, "
         "or a rule flag: " + FLAGS),
        (baohuang_env.env, "illegal_rewards",
         "unknown rule flag or argument 'illegal_rewards' (did you mean illegal_reward?): env() takes illegal_reward, "
         "preset, render_mode, reward_mode, or a rule flag: " + FLAGS),
        (raw_env, "reward", "unknown rule flag or argument 'reward' (did you mean reward_mode?): raw_env() takes "
         "preset, render_mode, reward_mode, or a rule flag: " + FLAGS),
    ],
    ids=["Baohuang-v0", "vector", "env", "raw_env"],
)
def test_an_unknown_keyword_names_the_envs_arguments_and_the_rule_flags(make, typo, message):
    with pytest.raises(ValueError) as err:
        make(**{typo: "random"})
    assert str(err.value) == message


@pytest.mark.parametrize("constructor", [BaohuangGymEnv, BaohuangVectorEnv, raw_env])
def test_the_arguments_named_are_the_constructors_named_parameters(constructor):
    with pytest.raises(ValueError) as err:
        constructor(nosuch=1)
    takes = str(err.value).split(" takes ")[1].split(", or a rule flag")[0].split(", ")
    assert takes == [p.name for p in inspect.signature(constructor).parameters.values() if p.kind != p.VAR_KEYWORD]


def test_several_unknown_keywords_and_a_rule_flag_typo_are_named_together():
    with pytest.raises(ValueError, match=r"^unknown rule flags or arguments 'hold_sixs' \(did you mean hold_sixes\?\), "
                                         r"'zzz': Baohuang-v0 takes preset, "):
        BaohuangGymEnv(hold_sixs=True, zzz=1)


@pytest.mark.parametrize("make", [
    lambda: gymnasium.make("Baohuang-v0", hold_sixes=False, learner_seat=2).unwrapped,
    lambda: _vector(hold_sixes=False, learner_seat=2),
    lambda: baohuang_env.env(hold_sixes=False, preset="jj", reward_mode="win").unwrapped,
    lambda: raw_env(hold_sixes=False),
], ids=["Baohuang-v0", "vector", "env", "raw_env"])
def test_rule_flags_and_arguments_still_pass(make):
    assert make().rules.hold_sixes is False


# --------------------------------------------------------------------------- the vector env's render_mode


@pytest.mark.parametrize("mode", ["ansi", "human", "rgb_array"])
def test_the_vector_env_refuses_a_render_mode_and_says_what_renders(mode):
    with pytest.raises(ValueError) as err:
        _vector(render_mode=mode)
    assert str(err.value) == (f"render_mode {mode!r} is not supported by the native vector env, which renders "
                              "nothing: use render_mode=None, or vectorization_mode='sync' (render modes "
                              "['human', 'ansi'])")


def test_the_vector_env_takes_no_render_mode_and_sync_mode_renders():
    assert _vector(render_mode=None).render_mode is None
    envs = gymnasium.make_vec("Baohuang-v0", 2, vectorization_mode="sync", render_mode="ansi")
    envs.reset(seed=0)
    tables = envs.render()
    assert len(tables) == 2 and all(t.startswith("Baohuang [jj, play goes counterclockwise]") for t in tables)


# --------------------------------------------------------------------------- pettingzoo.make


def _fresh(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_pettingzoo_make_works_as_the_readme_offers_it_in_a_fresh_interpreter():
    line = next(x for x in README.splitlines() if "# or pettingzoo.make(" in x)
    offered = line.split("# or ")[1]
    note = README.splitlines()[README.splitlines().index(line) + 1]
    assert "once baohuang_env is imported" in note
    done = _fresh(f"""
        import pettingzoo
        try:
            {offered}
        except pettingzoo.env_registry.exceptions.PettingZooRegistryError:
            print("not registered before the import")
        import baohuang_env
        env = {offered[:-1]}, preset="qingdao", reward_mode="win")
        env.reset(seed=1)
        print(type(env).__name__, env.unwrapped.rules.preset, env.unwrapped.reward_mode, env.agent_selection)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "not registered before the import"
    assert re.fullmatch(r"OrderEnforcingWrapper qingdao win player_\d", done.stdout.splitlines()[1])


# --------------------------------------------------------------------------- README: rewards


def test_the_readme_says_qingdao_rewards_are_not_zero_sum_and_a_deal_shows_it():
    bullet = README.split("- **Rewards.**")[1].split("\n- ")[0]
    assert "zero-sum except in `qingdao`" in " ".join(bullet.split())
    sums = []
    for seed in range(20):
        e = raw_env(preset="qingdao")
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not e.game.is_over:
            e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
        sums.append(sum(e.rewards.values()))
    assert any(s != 0 for s in sums)
    e = raw_env(preset="jj")  # the other schemes are zero-sum
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    while not e.game.is_over:
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    assert sum(e.rewards.values()) == 0


# --------------------------------------------------------------------------- the test command and its skips


def test_the_readme_test_command_shows_skip_reasons_and_ci_runs_it_as_written():
    readme = re.search(r"&& (python -m pytest -n 2 [^\n]*)\n", README).group(1)
    assert readme.split()[-1] == "-rs"
    ci = [x for x in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
          if x.startswith("python -m pytest -n 2")]
    assert ci == [readme]
    assert "apt-get install -y chromium" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")  # CI runs them


def test_the_browser_tests_skip_says_how_to_install_chromium():
    """Where no `chromium` is on PATH, the README's `-rs` summary shows the skip and its remedy."""
    env = {**os.environ, "PATH": str(Path(sys.executable).parent)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                           "tests/test_web_browser.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == pytest.ExitCode.NO_TESTS_COLLECTED, done.stdout + done.stderr  # all skipped
    assert re.search(r"SKIPPED \[1\] tests/test_web_browser\.py:\d+: no chromium on PATH: install it with "
                     r"`apt-get install -y chromium`", done.stdout), done.stdout
