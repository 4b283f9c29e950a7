"""CI: what a user of the built wheel (a non-editable install, with the web extra) types,
run in an empty folder outside the checkout. `.ci/run` installs the wheel in a virtualenv
of its own and runs this with that virtualenv's Python; any failed check exits non-zero.

    python .ci/wheel_smoke.py
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

BIN = Path(sys.executable).parent


def run(*args: str, cwd: Path) -> str:
    """Run a command of the installed package; its output, or a failure that shows it."""
    done = subprocess.run([str(BIN / args[0]), *args[1:]], cwd=cwd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        sys.exit(f"FAILED: {' '.join(args)} (exit {done.returncode})\n{done.stdout}\n{done.stderr}")
    print(f"ok: {' '.join(args)}", flush=True)
    return done.stdout


def check_installed_copy(cwd: Path) -> None:
    code = ("import sysconfig, agents, baohuang_env, baohuang_web; from pathlib import Path; "
            "site = Path(sysconfig.get_paths()['purelib']); "
            "assert all(site in Path(m.__file__).parents for m in (agents, baohuang_env, baohuang_web)), "
            "'the package was not imported from the installed wheel'; "
            "from agents.pretrained import SHIPPED; assert all(site in p.path.parents for p in SHIPPED.values()); "
            "from agents.bots.role_policy import load_models; from baohuang_env import PRESETS, get_rules; "
            "missing = [p for p in PRESETS if not load_models(get_rules(p))]; "
            "assert not missing, f'no role models shipped for {missing}'")
    run("python", "-c", code, cwd=cwd)


def check_serve(cwd: Path) -> None:
    """`baohuang serve` with its defaults: the page, the opponents of each preset (the shipped
    agent preselected in jj), a game, and a hint of the shipped agent."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([str(BIN / "baohuang"), "serve", "--port", str(port)], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for _ in range(300):
            if proc.poll() is not None:
                sys.exit(f"FAILED: baohuang serve exited\n{proc.stdout.read()}")
            try:
                with urllib.request.urlopen(f"{url}/api/options", timeout=1) as r:
                    options = json.load(r)
                break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit("FAILED: baohuang serve did not answer within 30 s")
        assert options["hints"] == "pretrained,heuristic" and options["hint_presets"] == options["presets"], options
        by_preset = options["preset_opponents"]  # the shipped agent in jj, an opponent preselected in every preset
        assert by_preset["jj"]["default"] == "pretrained" and all(o["default"] for o in by_preset.values()), by_preset
        with urllib.request.urlopen(f"{url}/static/game.js", timeout=5) as r:
            assert r.status == 200
        req = urllib.request.Request(f"{url}/api/games", data=json.dumps({"opponents": "random"}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(req, timeout=30) as r:
            game = json.load(r)
        headers = {"X-Player-Token": game["token"], "Content-Type": "application/json"}
        view = game["view"]
        for _ in range(50):
            if view["your_turn"]:
                break
            req = urllib.request.Request(f"{url}/api/games/{game['game_id']}/advance", data=b'{"steps": 1}',
                                         headers=headers, method="POST")
            with urllib.request.urlopen(req, timeout=30) as r:
                view = json.load(r)
        req = urllib.request.Request(f"{url}/api/games/{game['game_id']}/hints", headers=headers)
        with urllib.request.urlopen(req, timeout=30) as r:
            hint = json.load(r)
        assert hint["agent"] == "pretrained" and hint["moves"], hint
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print("ok: baohuang serve (page, game, hint of the shipped agent)", flush=True)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        run("baohuang", "--version", cwd=cwd)
        check_installed_copy(cwd)
        out = run("baohuang", "eval", "--agents", "pretrained", "dmc:agents/pretrained/dmc_kickstart_jj.pt",
                  "heuristic", "--deals", "2", "--protocol", "team", "--workers", "1", "--out", "eval", cwd=cwd)
        assert "`pretrained`" in out, out
        tiny = ["total_frames=2000", "teacher_frames=1000", "actors=0", "unroll_length=16", "slots_per_role=8",
                "batch_slots=2", "hidden=32", "head=16", "eval_minutes=0", "final_eval_deals=2",
                "eval_opponents=[random]"]
        run("baohuang", "train", "dmc", "--config", "configs/dmc_quick.yaml", *tiny, cwd=cwd)
        run("baohuang", "train", "ppo", "--config", "ppo_quick", "total_frames=600", "num_games=4",
            "rollout_decisions=300", "eval_minutes=0", "final_eval_deals=2", "eval_opponents=[random]", cwd=cwd)
        assert list((cwd / "runs").glob("*dmc_quick*/model.pt")), "no model.pt of the main job"
        check_serve(cwd)
    print("wheel smoke: every check held", flush=True)


if __name__ == "__main__":
    main()
