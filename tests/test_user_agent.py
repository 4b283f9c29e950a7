"""A user's own agent: the `Agent` base class and its defaults, duck-typed agents with only
`act`, the `python:MODULE:CLASS` spec (from the current directory, in evaluation workers, in
`baohuang play` and `baohuang serve`), and the errors of agent specs (docs/agents.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from baohuang_env import Agent, get_rules, make_agent
from baohuang_env.agent import RandomAgent, check_agent, resets, uses_info_state, uses_observation
from baohuang_eval.evaluate import evaluate_against
from baohuang_eval.play import validate_specs

RULES = get_rules("jj")

#: The module a user writes: a duck-typed class, a subclass of Agent that takes (rules, seed),
#: and two that are not agents.
MYMOD = textwrap.dedent('''
    import numpy as np

    from baohuang_env import Agent


    class MyBot:
        """Only act: the highest legal action id."""

        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[-1])


    class Seeded(Agent):
        """Random over the legal actions, seeded by the driver."""

        uses_observation = False

        def __init__(self, rules, seed=None):
            self.rules = rules
            self.reset(seed)

        def reset(self, seed=None):
            self.rng = np.random.default_rng(seed)

        def act(self, observation, action_mask):
            return int(self.rng.choice(np.flatnonzero(action_mask)))


    class Forgetful(Agent):
        uses_observation = False


    class Plays:
        def play(self, observation, action_mask):
            return 0
''')


@pytest.fixture
def in_user_dir(tmp_path, monkeypatch):
    """A folder holding the user's `mymod.py`, as the current directory; `mymod` is imported
    afresh from it."""
    (tmp_path / "mymod.py").write_text(MYMOD)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "mymod", raising=False)
    yield tmp_path
    sys.modules.pop("mymod", None)


def _baohuang(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`baohuang ARGS` run in `cwd`, as a user runs it."""
    exe = Path(sys.executable).with_name("baohuang")
    return subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True, timeout=300)


class OnlyAct:
    """A duck-typed agent with nothing but act: the first legal action."""

    def act(self, observation, action_mask):
        assert observation.size > 0  # uses_observation defaults to True: it gets the observation
        return int(np.flatnonzero(action_mask)[0])


def test_an_object_with_only_act_is_an_agent_with_the_defaults():
    agent = OnlyAct()
    assert isinstance(agent, Agent) and check_agent(agent, "x") is agent
    assert uses_observation(agent) and not uses_info_state(agent) and not resets(agent)
    assert resets(RandomAgent(0)) and not uses_observation(RandomAgent(0))


def test_evaluate_against_plays_an_object_with_only_act():
    result = evaluate_against(OnlyAct(), "heuristic", RULES, [11, 12], name="mine")
    assert len(result.records) == 2 * 10 and result.a == "mine"  # 5 focal seats, A and B


def test_a_subclass_of_agent_gets_the_defaults_and_plays():
    class Lowest(Agent):
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    agent = Lowest()
    assert agent.uses_observation and not agent.uses_info_state and not resets(agent)
    agent.reset(3)  # the default does nothing
    result = evaluate_against(agent, "random", RULES, [5])
    assert len(result.records) == 10


def test_a_subclass_without_act_cannot_be_built():
    class Empty(Agent):
        pass

    with pytest.raises(TypeError, match="abstract"):
        Empty()


def test_a_searching_agent_without_act_info_is_refused():
    class Searcher(OnlyAct):
        uses_info_state = True

    with pytest.raises(ValueError, match="sets uses_info_state but lacks act_info"):
        check_agent(Searcher(), "opponent 1")


def test_a_python_spec_builds_the_class_from_the_current_directory(in_user_dir):
    bot = make_agent("python:mymod:MyBot", RULES, 1)
    assert type(bot).__name__ == "MyBot"
    seeded = make_agent("python:mymod:Seeded", RULES, 7)  # its __init__ takes (rules, seed)
    assert seeded.rules is RULES and resets(seeded)
    again = make_agent("python:mymod:Seeded", RULES, 7)
    mask = np.ones(30, dtype=np.int8)
    assert [seeded.act(None, mask) for _ in range(5)] == [again.act(None, mask) for _ in range(5)]
    assert str(in_user_dir) not in sys.path  # the folder is on sys.path only while importing


def test_python_spec_errors_say_what_to_fix(in_user_dir):
    with pytest.raises(ValueError, match=rf"no nomod\.py .* in the current directory {in_user_dir}"):
        make_agent("python:nomod:MyBot", RULES)
    with pytest.raises(ValueError, match=r"module 'mymod' \(.*mymod\.py\) has no class 'NoBot'; classes defined "
                                         r"there: \['Forgetful', 'MyBot', 'Plays', 'Seeded'\]"):
        make_agent("python:mymod:NoBot", RULES)
    with pytest.raises(ValueError, match=r"Plays is not an agent: it lacks act\(observation, action_mask\)"):
        make_agent("python:mymod:Plays", RULES)
    with pytest.raises(ValueError, match=r"Forgetful is not an agent: it lacks act"):
        make_agent("python:mymod:Forgetful", RULES)
    with pytest.raises(ValueError, match=r"write your own agent as python:MODULE:CLASS"):
        make_agent("python:mymod", RULES)


def test_a_module_that_imports_a_missing_package_shows_that_error(in_user_dir):
    (in_user_dir / "broken.py").write_text("import no_such_package_here\n")
    with pytest.raises(ModuleNotFoundError, match="no_such_package_here"):
        make_agent("python:broken:X", RULES)


def test_accepted_agents_are_listed_only_for_an_unknown_kind(in_user_dir):
    with pytest.raises(ValueError, match=r"unknown agent 'nosuch'; available agents: \[.*'python'.*\]"):
        validate_specs(["nosuch"], RULES)
    for spec in ("dmc:missing.pt", "python:nomod:MyBot", "pretrained:nosuch"):
        with pytest.raises(ValueError) as err:
            validate_specs([spec], RULES)
        assert "available agents" not in str(err.value) and "accepted agents" not in str(err.value)
    with pytest.raises(ValueError, match=r"^cannot build agent 'dmc:missing\.pt': checkpoint missing\.pt does not "
                                         r"exist$"):
        validate_specs(["dmc:missing.pt"], RULES)


def test_a_checkpoint_of_another_preset_suggests_that_preset():
    pytest.importorskip("torch")
    with pytest.raises(ValueError, match=r"it plays preset 'qingdao', so add --preset qingdao"):
        validate_specs(["pretrained:dmc_kickstart_qingdao"], RULES)


def test_baohuang_eval_loads_a_users_class_in_its_workers(in_user_dir):
    run = _baohuang("eval", "--agents", "python:mymod:MyBot", "heuristic", "--deals", "4", "--workers", "2",
                    "--out", "report", cwd=in_user_dir)
    assert run.returncode == 0, run.stderr
    assert "`python:mymod:MyBot`" in run.stdout
    report = json.loads((in_user_dir / "report" / "report.json").read_text())
    assert "python:mymod:MyBot" in json.dumps(report["agents"])


def test_baohuang_eval_errors_name_the_module_and_the_preset(in_user_dir):
    run = _baohuang("eval", "--agents", "python:nomod:MyBot", "heuristic", "--deals", "2", cwd=in_user_dir)
    assert run.returncode != 0
    assert f"cannot import module 'nomod': no nomod.py (or package folder) in the current directory {in_user_dir}" \
        in run.stderr
    run = _baohuang("eval", "--agents", "pretrained:dmc_kickstart_qingdao", "heuristic", "--deals", "2",
                    cwd=in_user_dir)
    assert run.returncode != 0 and "add --preset qingdao" in run.stderr and "available agents" not in run.stderr


def test_baohuang_play_takes_a_users_class_as_opponents(in_user_dir):
    from baohuang_cli.play_cmd import build_opponents

    opponents = build_opponents("python:mymod:MyBot,random,python:mymod:Seeded,heuristic", 0, RULES, 4)
    assert [type(agent).__name__ for _spec, agent in opponents.values()] == [
        "MyBot", "RandomAgent", "Seeded", "HeuristicAgent"]
    run = subprocess.run([str(Path(sys.executable).with_name("baohuang")), "play", "--opponents",
                          "python:mymod:MyBot", "--seed", "3"], input="quit\n", cwd=in_user_dir,
                         capture_output=True, text=True, timeout=120)
    assert "seat 1: python:mymod:MyBot" in run.stdout, run.stderr


def test_baohuang_serve_checks_a_users_class(in_user_dir):
    pytest.importorskip("starlette")
    from baohuang_cli.serve_cmd import check_spec
    from baohuang_web.sessions import SessionStore

    check_spec("python:mymod:MyBot")
    with pytest.raises(ValueError, match="cannot import module 'nomod'"):
        check_spec("python:nomod:MyBot")
    with pytest.raises(ValueError, match="Plays is not an agent"):
        check_spec("python:mymod:Plays")
    store = SessionStore(["python:mymod:MyBot"], "jj", None, 4, seed=1)
    assert store.preset_opponents()["jj"] == ["python:mymod:MyBot"]
    _game_id, session = store.create("jj", 0, "python:mymod:MyBot")
    assert session is not None


def test_the_folder_is_searched_in_a_worker_started_elsewhere(tmp_path):
    """A worker process gets the spec and the parent's directory: it imports the module there."""
    (tmp_path / "mymod.py").write_text(MYMOD)
    code = ("import multiprocessing as mp\n"
            "from baohuang_env import get_rules, make_agent\n"
            "def build(spec):\n"
            "    return type(make_agent(spec, get_rules('jj'), 0)).__name__\n"
            "if __name__ == '__main__':\n"
            "    with mp.get_context('spawn').Pool(1) as pool:\n"
            "        print(pool.apply(build, ('python:mymod:Seeded',)))\n")
    (tmp_path / "sub").mkdir()
    script = tmp_path / "sub" / "run.py"
    script.write_text(code)
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": ""})
    assert run.stdout.strip() == "Seeded", run.stderr
