"""The docs work when pasted: every Python block of README.md and docs/*.md runs as a script.

Each ```python block is written to its own .py file and run with this interpreter, as a user
would run it after pasting it into a file at the repository root: the working directory is a
scratch folder holding links to the repository's top-level entries, so relative paths such as
`agents/pretrained/dmc_jj.pt` or `configs/` resolve while anything the snippet writes (`runs/`)
lands in the scratch folder, not in the checkout. It must exit with status 0 within
`TIMEOUT_S` seconds; the blocks are written to finish in seconds (the evaluation example on
10 deals, no training).

A block that is deliberately not run is fenced ```python no-run, visibly, in the doc; it must
still compile, and only a few may be marked. Output listings are fenced ```text.

The second half checks the documented command lines (```bash blocks and inline code spans)
against the real CLI: every `--option` written after `baohuang <command>` appears in that
command's `--help`, an option named alone belongs to some command, the configs and the shipped
agent named exist, each `baohuang train ALGO --config FILE key=value` config loads, and the
quick start's pip extra is defined.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))

#: Seconds one block may run (the slowest takes about 10 s on a busy 2-core machine).
TIMEOUT_S = 50
#: At most this many Python blocks may be marked `no-run`.
MAX_NO_RUN = 2

#: The fence languages the docs may use; only `python` blocks are run.
LANGUAGES = ("python", "text", "bash", "yaml", "json", "toml")
FENCE = re.compile(r"^```[ \t]*(\S*)[ \t]*(.*?)[ \t]*$")


@dataclass(frozen=True)
class Block:
    """One fenced code block: its file, the line of its opening fence, language and text."""

    path: Path
    line: int
    lang: str
    flags: tuple[str, ...]
    code: str

    @property
    def name(self) -> str:
        first = next((s.strip() for s in self.code.splitlines() if s.strip()), "")
        return f"{self.path.relative_to(ROOT)}:{self.line}: {first[:50]}"


@cache
def read_markdown(path: Path) -> tuple[tuple[Block, ...], str]:
    """A Markdown file's fenced blocks (fences at the start of a line), in order, and its
    prose: the text outside them."""
    blocks: list[Block] = []
    prose: list[str] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m is None:
            prose.append(lines[i])
            i += 1
            continue
        start = i
        i += 1
        while i < len(lines) and lines[i].rstrip() != "```":
            i += 1
        assert i < len(lines), f"{path.name}:{start + 1}: unclosed code fence"
        body = "\n".join(lines[start + 1 : i]) + "\n"
        blocks.append(Block(path, start + 1, m.group(1).lower(), tuple(m.group(2).split()), body))
        i += 1
    return tuple(blocks), "\n".join(prose)


def all_blocks() -> list[Block]:
    return [b for path in DOCS for b in read_markdown(path)[0]]


def python_blocks() -> list[Block]:
    return [b for b in all_blocks() if b.lang == "python"]


RUNNABLE = [b for b in python_blocks() if "no-run" not in b.flags]
NOT_RUN = [b for b in python_blocks() if "no-run" in b.flags]


def scratch_root(base: Path) -> Path:
    """A folder that looks like the repository root: a link to each top-level entry."""
    work = base / "repo"
    work.mkdir()
    for entry in ROOT.iterdir():
        if not entry.name.startswith(".") and entry.name != "runs":
            (work / entry.name).symlink_to(entry)
    return work


@pytest.mark.parametrize("block", RUNNABLE, ids=lambda b: b.name)
def test_python_block_runs_as_a_script(block: Block, tmp_path: Path) -> None:
    script = tmp_path / "snippet.py"
    script.write_text(block.code, encoding="utf-8")
    try:
        res = subprocess.run([sys.executable, str(script)], cwd=scratch_root(tmp_path), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{block.name}: still running after {TIMEOUT_S} s\n{(exc.output or '')[-3000:]}")
    assert res.returncode == 0, f"{block.name}: exit status {res.returncode}\n{res.stdout[-3000:]}"


def test_docs_have_python_blocks() -> None:
    """The collection above finds the docs' examples (a broken fence parser would run none)."""
    names = {b.path.name for b in python_blocks()}
    assert {"README.md", "evaluation.md", "observation.md"} <= names
    assert len(RUNNABLE) >= 5


def test_few_blocks_are_marked_no_run_and_each_compiles() -> None:
    assert len(NOT_RUN) <= MAX_NO_RUN, [b.name for b in NOT_RUN]
    for block in NOT_RUN:
        compile(block.code, block.name, "exec")


def test_every_fence_names_a_known_language() -> None:
    """A bare ``` fence, or one spelled `py` or `python3`, would hide Python from the runner."""
    unknown = [f"{b.name} ({b.lang or 'no language'})" for b in all_blocks() if b.lang not in LANGUAGES]
    assert not unknown, f"fences must name one of {LANGUAGES}: {unknown}"


# --- documented command lines against the real CLI ------------------------------------------

#: An inline code span; it may wrap onto the next line of the paragraph.
SPAN = re.compile(r"`([^`]+)`")
#: `baohuang <command> <rest>`; `train` takes the algorithm and `study` the study as a second word.
COMMAND = re.compile(r"\bbaohuang\s+(train\s+[a-z]+|study\s+[a-z]+|[a-z]+)\b(.*)")
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
#: Repository files the docs tell users to pass: configs and the shipped agent.
REPO_FILE = re.compile(r"(?<![\w/.-])((?:configs|agents/pretrained)/[\w.-]+\.(?:ya?ml|pt))")


@cache
def code_spans() -> tuple[str, ...]:
    """Every inline code span of the docs, whitespace collapsed and table escapes undone."""
    spans = []
    for path in DOCS:
        text = read_markdown(path)[1]
        spans += [" ".join(s.replace("\\|", "|").split()) for s in SPAN.findall(text)]
    return tuple(spans)


def command_lines() -> list[str]:
    """Every documented shell command: each command of a ```bash line (split at `&&`, `;`
    and pipes, comments dropped) and each inline code span."""
    lines = list(code_spans())
    for block in all_blocks():
        if block.lang == "bash":
            for line in block.code.splitlines():
                lines += re.split(r"&&|\|\|?|;", line.split(" #", 1)[0])
    return lines


def documented_options() -> dict[str, set[str]]:
    """{command: the options written after `baohuang <command>`} over every command line."""
    found: dict[str, set[str]] = {}
    for line in command_lines():
        for m in COMMAND.finditer(line):
            found.setdefault(" ".join(m.group(1).split()), set()).update(OPTION.findall(m.group(2)))
    return found


@cache
def help_text(command: str) -> str:
    """`baohuang <command> --help` as the installed command prints it."""
    exe = Path(sys.executable).with_name("baohuang")
    args = [str(exe)] if exe.exists() else [sys.executable, "-m", "baohuang_cli.cli"]
    res = subprocess.run([*args, *command.split(), "--help"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, f"`baohuang {command} --help` failed:\n{res.stdout}{res.stderr}"
    return res.stdout


def all_commands() -> list[str]:
    """The CLI's commands, as `baohuang --help` lists them ({bench,eval,...})."""
    m = re.search(r"\{([a-z,]+)\}", help_text(""))
    assert m, help_text("")
    return m.group(1).split(",")


def test_documented_commands_are_found() -> None:
    """The parser above sees the README's command table and quick start."""
    found = documented_options()
    assert {"train dmc", "train ppo", "eval", "play", "fuzz", "bench", "export", "replay"} <= set(found)
    assert {"--agents", "--deals"} <= found["eval"] and {"--config", "--resume"} <= found["train dmc"]


def test_documented_options_exist() -> None:
    """Each `--option` written after `baohuang <command>` is one of that command's options."""
    missing = []
    for command, options in sorted(documented_options().items()):
        listed = set(OPTION.findall(help_text(command)))
        missing += [f"baohuang {command} {opt}" for opt in sorted(options - listed)]
    assert not missing, f"documented options the CLI does not have: {missing}"


def test_options_named_alone_exist() -> None:
    """A code span that is only an option (`--save`, `--protocol team`) names an option of
    some command."""
    listed = {opt for command in all_commands() for opt in OPTION.findall(help_text(command))}
    for command in all_commands():  # commands with subcommands (`study belief`): their options too
        m = re.search(r"^usage: .*\{([a-z,]+)\}", help_text(command), re.M)
        for sub in m.group(1).split(",") if m else ():
            listed |= set(OPTION.findall(help_text(f"{command} {sub}")))
    named = {OPTION.match(s).group(1) for s in code_spans() if OPTION.match(s)}
    assert named, "no option spans found"
    assert not named - listed, f"options in the docs that no command has: {sorted(named - listed)}"


def test_quick_start_names_files_and_extras_that_exist() -> None:
    """The configs and the shipped agent the docs name are in the repository, and the quick
    start's `pip install -e ".[dev]"` and every other documented extra is one that
    pyproject.toml defines."""
    text = "\n".join(path.read_text(encoding="utf-8") for path in DOCS)
    files = set(REPO_FILE.findall(text))
    assert "configs/dmc_quick.yaml" in files and "agents/pretrained/dmc_jj.pt" in files
    assert [f for f in sorted(files) if not (ROOT / f).is_file()] == []
    extras = {e for group in re.findall(r'pip install -e "\.\[([\w,-]+)\]"', text) for e in group.split(",")}
    assert "dev" in extras
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert extras <= set(pyproject["project"]["optional-dependencies"])


#: `baohuang train <algo> ...`: the algorithm and the rest of the command line.
TRAIN = re.compile(r"\bbaohuang\s+train\s+([a-z]+)\s(.*)")


def documented_trainings() -> set[tuple[str, str, tuple[str, ...]]]:
    """(algo, config file, key=value overrides) of each documented `baohuang train` command
    with a `--config` (bracketed placeholders such as `[key=value ...]` left out)."""
    found = set()
    for line in command_lines():
        for m in TRAIN.finditer(line):
            words = re.sub(r"\[[^\]]*\]", " ", m.group(2)).split()
            if "--config" in words[:-1]:
                config = words[words.index("--config") + 1]
                overrides = tuple(w for w in words if re.fullmatch(r"\w+=\S*", w))
                found.add((m.group(1), config, overrides))
    return found


def test_documented_training_configs_load() -> None:
    """Each documented `baohuang train ALGO --config FILE key=value ...` names a config that
    ALGO's config class loads, overrides included (no stale key, no config of the other
    algorithm)."""
    from agents.training.config import load_config
    from agents.dmc.config import DMCConfig
    from agents.ppo.config import PPOConfig

    classes = {"dmc": DMCConfig, "ppo": PPOConfig}
    trainings = documented_trainings()
    assert ("dmc", "configs/dmc_quick.yaml", ()) in trainings
    for algo, config, overrides in sorted(trainings):
        assert algo in classes, f"baohuang train {algo}: no such algorithm"
        path = ROOT / config  # a recipe's path, or its name (`--config dmc_quick`), as the CLI takes both
        load_config(classes[algo], path if path.exists() else config, list(overrides))
