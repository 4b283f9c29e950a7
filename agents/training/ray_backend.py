"""What the trainers' Ray backend shares (`backend: ray`): Ray itself, optional, imported only
here and in the Ray modules of `agents.dmc.ray_actors` and `agents.ppo.ray_workers`.

* `require_ray()`: Ray, or at once a ValueError with the install command.
* `ray_session(address)`: connects for a run; "" starts a Ray instance on 127.0.0.1 for the
  run and stops it at the end, "auto" or HOST:PORT joins a running cluster (left running).
  Ray's processes ignore the terminal's Ctrl-C, and the run keeps its own stop handlers
  (`agents.training.run.StopSignals`), so a Ctrl-C or SIGTERM still ends with a checkpoint.
* `ACTOR_OPTIONS`: every actor is restarted by Ray when it dies (its process killed, its node
  lost), and a call it had in flight is retried on the new one.
* `restart_count()` and `actor_seed(...)`: an actor's seed follows the run's seed, the
  actor's id and how often Ray restarted it, so a restarted actor never replays the games
  of its former life.
* `numpy_state(module)`: a network's weights as numpy arrays, what the learner `ray.put`s
  into the object store for the actors (zero-copy to read on the same node).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import torch

from baohuang_eval.pool import children_ignore_ctrl_c

from .run import stop_handlers_kept

#: How to get Ray: the project's optional extra (Ray Core only).
INSTALL_HINT = 'pip install -e ".[ray]"'

#: Options of every actor and rollout worker: restarted without limit when it dies, and the
#: call it had in flight runs again on the restarted one (at-least-once; the learner counts
#: only the results it receives, so a lost call's frames are never counted).
ACTOR_OPTIONS: dict[str, Any] = {"num_cpus": 1, "max_restarts": -1, "max_task_retries": -1}


def require_ray() -> Any:
    """The `ray` module; a ValueError naming the install command when it is missing."""
    try:
        import ray
    except ImportError:
        raise ValueError(f"backend=ray needs Ray, which is not installed; install it with: {INSTALL_HINT} "
                         "(or train with backend=local)") from None
    return ray


@contextmanager
def ray_session(address: str) -> Iterator[Any]:
    """Ray connected for one run. `address` "": start a Ray instance on this machine
    (127.0.0.1, no dashboard) and stop it at the end; "auto" or HOST:PORT: join that cluster
    and leave it running. Already connected (a test's cluster): use that connection as is."""
    ray = require_ray()
    if ray.is_initialized():
        yield ray
        return
    with stop_handlers_kept(), children_ignore_ctrl_c():  # the run stops Ray itself, after its checkpoint
        if address:
            try:
                ray.init(address=address, log_to_driver=True)
            except ConnectionError as err:
                raise ValueError(f"ray_address={address!r}: cannot join a Ray cluster there ({err}). Start one "
                                 "first (`ray start --head` on this host), or give ray_address='' to start a Ray "
                                 "instance for this run only") from None
        else:
            ray.init(_node_ip_address="127.0.0.1", include_dashboard=False, log_to_driver=True)
    try:
        yield ray
    finally:
        ray.shutdown()


def restart_count() -> int:
    """How often Ray restarted the actor this runs in (0 for its first life). Read from the
    cluster's actor table, the record `was_current_actor_reconstructed` reads too."""
    import ray
    from ray._private.state import actors

    info = actors(actor_id=ray.get_runtime_context().get_actor_id())
    return int(info["NumRestarts"]) if info else 0


def actor_seed(run_seed: int, actor_id: int, restarts: int) -> int:
    """The seed of actor `actor_id` in its life number `restarts` (0: first) of a run whose
    actors start from `run_seed`: distinct for every (actor, life), so no two lives play the
    same games."""
    return int(np.random.SeedSequence([run_seed, actor_id, restarts]).generate_state(1, np.uint64)[0] >> 1)


def numpy_state(module: torch.nn.Module) -> dict[str, np.ndarray]:
    """`module`'s weights as numpy arrays (copies), for `ray.put`."""
    return {k: v.detach().cpu().numpy().copy() for k, v in module.state_dict().items()}


def load_numpy_state(module: torch.nn.Module, state: dict[str, np.ndarray]) -> None:
    """Load weights written by `numpy_state` (read-only object-store arrays are copied in)."""
    module.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in state.items()})
