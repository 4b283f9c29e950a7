"""The trainers' Ray backend (`backend=ray`) against a real Ray cluster this module starts on
127.0.0.1 (`ray start --head`, 2 CPUs, its own temp dir) and stops at the end: DMC and PPO
train with 2 actors through it, one actor process is killed mid-run (Ray restarts it), and
the run ends with a consistent checkpoint that resumes. Without Ray, backend=ray must fail at
once with the install command (tested with the import blocked)."""

from __future__ import annotations

import ast
import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
import torch

from agents.training.config import load_config
from agents.dmc.config import DMCConfig
from agents.dmc.trainer import CHECKPOINT_NAME
from agents.dmc.trainer import train as train_dmc
from agents.ppo.config import PPOConfig
from agents.ppo.trainer import train as train_ppo
from agents.training.ray_backend import INSTALL_HINT, actor_seed

# two games per actor: a rollout is then a few hundred frames, as the resume test's budget of
# 500 more frames assumes (128 games make a rollout of ~16,000, which can end the budget first)
DMC_TINY = ["unroll_length=16", "slots_per_role=8", "batch_slots=2", "hidden=32", "head=16", "eval_minutes=0",
            "log_seconds=1000", "checkpoint_minutes=100", "games_per_actor=2"]
PPO_TINY = ["num_games=8", "rollout_decisions=256", "minibatch_size=128", "update_epochs=1", "hidden=32", "head=16",
            "value_hidden=32", "eval_minutes=0", "log_seconds=1000", "checkpoint_minutes=100"]


# ----------------------------------------------------------------------------- no cluster needed
@pytest.mark.parametrize("algo", ["dmc", "ppo"])
def test_backend_ray_without_ray_fails_at_once_with_the_install_command(tmp_path, monkeypatch, algo):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    cls, train, tiny = (DMCConfig, train_dmc, DMC_TINY) if algo == "dmc" else (PPOConfig, train_ppo, PPO_TINY)
    cfg = load_config(cls, None, [*tiny, "backend=ray", "actors=2", f"runs_dir={tmp_path}"])
    with pytest.raises(ValueError, match=r"backend=ray needs Ray") as err:
        train(cfg, log=io.StringIO())
    assert INSTALL_HINT in str(err.value) and 'pip install -e ".[ray]"' in str(err.value)
    assert list(tmp_path.iterdir()) == []  # no run directory was made


def test_backend_keys_are_checked():
    with pytest.raises(ValueError, match=r"backend must be one of local, ray, got 'spark'"):
        load_config(DMCConfig, None, ["backend=spark"])
    with pytest.raises(ValueError, match=r"ray_address='auto' needs backend=ray"):
        load_config(DMCConfig, None, ["ray_address=auto"])
    with pytest.raises(ValueError, match=r"backend=ray needs actors >= 1"):
        load_config(DMCConfig, None, ["backend=ray", "actors=0"])
    with pytest.raises(ValueError, match=r"backend=ray needs actors >= 1"):
        load_config(PPOConfig, None, ["backend=ray"])
    with pytest.raises(ValueError, match=r"actors=2 needs backend=ray"):
        load_config(PPOConfig, None, ["actors=2"])


ROOT = Path(__file__).resolve().parents[1]
#: The modules that import Ray when they are imported; each is imported only once Ray is there.
RAY_MODULES = {"agents/dmc/ray_actors.py", "agents/ppo/ray_workers.py", "agents/training/rllib_env.py"}


def _top_level_imports(path: Path) -> set[str]:
    """Modules `path` imports at import time (not inside functions), as written (`.x` relative)."""
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
    return found


def test_ray_is_optional_and_rllib_env_is_imported_by_nothing():
    """Only the Ray modules import Ray at import time, nothing imports them at import time
    (the trainers load them lazily, once `require_ray` passed), and no project module
    imports the RLlib adapter at all, so the main install needs neither."""
    packages = ("baohuang_env", "baohuang_eval", "agents", "baohuang_cli")
    files = [p for pkg in packages for p in (ROOT / pkg).rglob("*.py")]
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        top = _top_level_imports(path)
        if rel not in RAY_MODULES:
            assert not any(m == "ray" or m.startswith("ray.") for m in top), f"{rel} imports ray at import time"
        assert not any(m.endswith(("ray_actors", "ray_workers")) for m in top), f"{rel} imports a Ray module eagerly"
        assert "rllib_env" not in path.read_text(encoding="utf-8") or rel == "agents/training/rllib_env.py", \
            f"{rel} refers to the RLlib adapter"


def test_actor_seeds_differ_by_actor_and_by_restart():
    seeds = {actor_seed(1000, a, r) for a in range(8) for r in range(8)}
    assert len(seeds) == 64 and all(0 <= s < 2**63 for s in seeds)
    assert actor_seed(1000, 0, 0) != actor_seed(2000, 0, 0)
    assert actor_seed(1000, 3, 1) == actor_seed(1000, 3, 1)


# ----------------------------------------------------------------------------- the cluster
def test_joining_no_cluster_says_how_to_start_one(monkeypatch):
    pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]')")
    import ray

    from agents.training.ray_backend import ray_session

    def refuse(**kwargs):
        raise ConnectionError("Could not find any running Ray instance.")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", refuse)
    with pytest.raises(ValueError, match=r"ray_address='auto': cannot join a Ray cluster there.*ray start --head"):
        with ray_session("auto"):
            pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster():
    """A one-node Ray cluster on 127.0.0.1 with 2 CPUs, started for this module; its address.
    `ray start --block` runs in the foreground: terminating it stops exactly the processes it
    started (head, raylet, workers), nobody else's Ray."""
    pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]')")
    ray_cli = Path(sys.executable).with_name("ray")
    ray_cli = str(ray_cli) if ray_cli.exists() else shutil.which("ray")
    port = _free_port()
    # Ray turns token auth on by itself when ~/.ray/auth_token exists (any earlier local
    # ray.init() writes one): this loopback-only test cluster says its mode, for the head and
    # for this process, so it never depends on that file
    auth = {"RAY_AUTH_MODE": "disabled"}
    saved = {k: os.environ.get(k) for k in auth}
    os.environ.update(auth)
    temp_dir = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths have a length limit
    log_path = Path(temp_dir) / "start.log"
    with open(log_path, "w") as out:
        head = subprocess.Popen(
            [ray_cli, "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}", "--num-cpus=2",
             "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp_dir}", "--block"],
            stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 120
        while "This command will now block" not in log_path.read_text():
            assert head.poll() is None, f"ray start failed:\n{log_path.read_text()[-3000:]}"
            assert time.time() < deadline, f"ray start did not come up in 120 s:\n{log_path.read_text()[-3000:]}"
            time.sleep(0.5)
        yield {"address": f"127.0.0.1:{port}", "pid": head.pid}
    finally:
        head.send_signal(signal.SIGTERM)
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()
        shutil.rmtree(temp_dir, ignore_errors=True)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _descendants(root: int) -> list[int]:
    """Pids of the processes below `root` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _actor_pids(root: int, cls: str) -> set[int]:
    """Pids of the Ray actors of class `cls` in the cluster below `root` (Ray titles them `ray::Class...`)."""
    pids = set()
    for pid in _descendants(root):
        try:
            title = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()
        except OSError:
            continue
        if title.startswith(f"ray::{cls}"):
            pids.add(pid)
    return pids


class ActorKiller(threading.Thread):
    """Kills one of the two actors' processes (SIGKILL) once both are up and playing, then
    watches for the process Ray starts in its place."""

    def __init__(self, root: int, cls: str) -> None:
        super().__init__(daemon=True)
        self.root, self.cls = root, cls
        self.first: set[int] = set()
        self.killed: int | None = None
        self.replacements: set[int] = set()
        self.done = threading.Event()

    def run(self) -> None:
        up_since = None
        while not self.done.is_set():
            pids = _actor_pids(self.root, self.cls)
            if self.killed is None:
                if len(pids) >= 2:
                    up_since = up_since or time.monotonic()
                    if time.monotonic() - up_since > 1.5:  # both past their start, mid-rollout
                        self.first = set(pids)
                        self.killed = min(pids)
                        os.kill(self.killed, signal.SIGKILL)
            else:
                self.replacements |= pids - self.first
            time.sleep(0.1)


def _restarts(address: str, cls: str) -> list[int]:
    """Ray's restart counts of the actors of class `cls` the cluster has run (the actor table
    keeps ended ones); the same record `ray_backend.restart_count` reads for an actor's seed."""
    import ray
    from ray._private.state import actors

    ray.init(address=address, log_to_driver=False)
    try:
        return [a["NumRestarts"] for a in actors().values() if a["ActorClassName"].endswith(cls)]
    finally:
        ray.shutdown()


def _train_with_a_kill(train, cfg, cluster, cls: str) -> tuple[Path, ActorKiller]:
    """`train(cfg)` with one of its `cls` actors killed once both are up. The runs last 45 s of
    training: Ray's replacement must come up (a fresh process importing torch) before the run
    ends, which took more than the 18 s the test once allowed on a loaded 2-core machine."""
    killer = ActorKiller(cluster["pid"], cls)
    killer.start()
    try:
        run_dir = train(cfg, log=io.StringIO())
    finally:
        killer.done.set()
        killer.join()
    return run_dir, killer


@pytest.mark.slow
def test_dmc_on_a_cluster_survives_a_killed_actor_and_resumes(cluster, tmp_path):
    cfg = load_config(DMCConfig, None, [*DMC_TINY, "backend=ray", "actors=2", f"ray_address={cluster['address']}",
                                        "total_minutes=0.75", f"runs_dir={tmp_path}"])
    run_dir, killer = _train_with_a_kill(train_dmc, cfg, cluster, "DMCActor")
    assert killer.killed is not None, "the actors never came up"
    assert killer.replacements, "Ray did not restart the killed actor"
    assert max(_restarts(cluster["address"], "DMCActor")) >= 1  # its seed came from restart count 1
    ckpt = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)
    c = ckpt["counters"]
    assert c["frames"] > 0 and c["updates"] > 0
    assert c["rows"] == c["updates"] * cfg.batch_slots * cfg.unroll_length  # every batch whole: no torn chunk
    assert (run_dir / "model.pt").is_file()

    more = load_config(DMCConfig, None, [*DMC_TINY, "backend=ray", "actors=2", f"ray_address={cluster['address']}",
                                         "total_minutes=10", f"total_frames={c['frames'] + 500}",
                                         f"runs_dir={tmp_path}"])
    assert train_dmc(more, resume=str(run_dir), log=io.StringIO()) == run_dir
    after = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)["counters"]
    assert after["frames"] >= c["frames"] + 500 and after["updates"] > c["updates"]


@pytest.mark.slow
def test_ppo_on_a_cluster_survives_a_killed_worker_and_resumes_locally(cluster, tmp_path):
    cfg = load_config(PPOConfig, None, [*PPO_TINY, "backend=ray", "actors=2", f"ray_address={cluster['address']}",
                                        "total_minutes=0.75", f"runs_dir={tmp_path}"])
    run_dir, killer = _train_with_a_kill(train_ppo, cfg, cluster, "PPOWorker")
    assert killer.killed is not None, "the workers never came up"
    assert killer.replacements, "Ray did not restart the killed worker"
    assert max(_restarts(cluster["address"], "PPOWorker")) >= 1  # its seed came from restart count 1
    ckpt = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)
    c = ckpt["counters"]
    assert c["updates"] > 0 and c["frames"] > c["decisions"] >= c["updates"] * cfg.rollout_decisions
    assert (run_dir / "model.pt").is_file()

    # the run goes on with the local backend: a checkpoint does not depend on where its games were played
    more = load_config(PPOConfig, None, [*PPO_TINY, "total_minutes=10", f"total_frames={c['frames'] + 500}",
                                         f"runs_dir={tmp_path}"])
    assert train_ppo(more, resume=str(run_dir), log=io.StringIO()) == run_dir
    after = torch.load(run_dir / CHECKPOINT_NAME, weights_only=True)["counters"]
    assert after["frames"] >= c["frames"] + 500 and after["updates"] > c["updates"]
