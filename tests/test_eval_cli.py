"""Deal files, `baohuang eval` end to end (report.json, report.md, report.png, replays), the
writers, and the error messages of the API and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from baohuang_cli.cli import main as cli_main
from baohuang_env.replay import load_replay, read_replay
from baohuang_env.rules import get_rules
from baohuang_eval import (
    DealSet,
    deal_range,
    evaluate_agents,
    evaluate_pair,
    load_deals,
    make_pairs,
    write_deals,
    write_report,
)

RULES = get_rules("jj")


def test_deal_file_round_trip(tmp_path):
    deals = deal_range(3, 42)
    write_deals(tmp_path / "d.json", deals)
    loaded = load_deals(tmp_path / "d.json")
    assert loaded.seeds == (42, 43, 44) and loaded.rules == deals.rules
    assert loaded.fingerprint == deals.fingerprint


@pytest.mark.parametrize("content, message", [
    (None, "cannot read deal file"),
    ("{not json", "is not valid JSON"),
    ('{"format": "baohuang-replay"}', "is not a Baohuang deal file"),
    ('{"format": "baohuang-deals", "version": 1, "rules": {"deck_size": 1}, "seeds": [1]}', "invalid rules"),
    ('{"format": "baohuang-deals", "version": 1, "rules": {}, "seeds": [1, -2]}', "non-negative"),
    ('{"format": "baohuang-deals", "version": 1, "rules": {}, "seeds": []}', "empty"),
])
def test_bad_deal_files_name_the_file_and_what_is_expected(tmp_path, content, message):
    path = tmp_path / "deals.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ValueError, match=message) as err:
        load_deals(path)
    assert str(path) in str(err.value)


# ----------------------------------------------------------------------------- CLI
def test_cli_end_to_end_writes_all_three_outputs(tmp_path, capsys):
    out, replays = tmp_path / "eval", tmp_path / "replays"
    rc = cli_main(["eval", "--agents", "random", "autoplay", "--deals", "5", "--workers", "2",
                   "--out", str(out), "--save-replays", str(replays)])
    assert rc == 0
    captured = capsys.readouterr()
    assert "## Head-to-head" in captured.out and "`random`" in captured.out
    assert "50/50 games" in captured.err
    report = json.loads((out / "report.json").read_text())
    assert report["deals"]["count"] == 5 and report["deals"]["first_seed"] == 1_000_000
    pair = report["pairs"][0]
    assert pair["games"] == 50 and pair["paired_difference"]["n"] == 25
    assert set(pair["focal_a"]) == {"overall", "emperor_side", "rebel_side", "emperor", "guard", "solo", "rebel"}
    assert set(report["ratings"]) == {"random", "autoplay"}
    assert (out / "report.md").read_text() == captured.out.rstrip("\n") + "\n"
    assert (out / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    files = sorted((replays / "00-random-vs-autoplay").glob("*.json"))
    assert len(files) == 50
    game = load_replay(files[0])
    assert game.is_over and game.seed == 1_000_000
    # each replay names who played each seat: the focal agent at its seat, the other elsewhere
    for f in files:
        focal = int(f.name.split("-s")[1].split("-")[0])
        name = f.name.split("-")[2]
        players = read_replay(f).players
        assert players[focal] == name and {p for q, p in enumerate(players) if q != focal} == (
            {"random", "autoplay"} - {name}), (f.name, players)


def test_two_evals_in_the_same_second_write_separate_reports(tmp_path, capsys, monkeypatch):
    """The default output folder runs/eval/<timestamp> is made afresh by each run: a second
    evaluation started in the same second gets its own folder, not the first one's."""
    import time

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(time, "strftime", lambda fmt, *args: "20260101-120000")
    for agents in (["random", "autoplay"], ["greedy", "random"]):
        assert cli_main(["eval", "--agents", *agents, "--deals", "1", "--workers", "1"]) == 0
    err = capsys.readouterr().err
    folders = sorted((tmp_path / "runs" / "eval").iterdir())
    assert [f.name for f in folders] == ["20260101-120000", "20260101-120000-2"]
    assert [sorted(json.loads((f / "report.json").read_text())["ratings"]) for f in folders] == [
        ["autoplay", "random"], ["greedy", "random"]]
    assert all(str(Path("runs/eval") / f.name / "report.json") in err for f in folders)


def test_cli_deal_file_written_then_read(tmp_path, capsys):
    deals = tmp_path / "deals.json"
    assert cli_main(["eval", "--write-deals", str(deals), "--deals", "2", "--deal-seed", "77"]) == 0
    loaded = load_deals(deals)
    assert loaded.seeds == (77, 78)
    report = evaluate_agents(["autoplay", "random"], loaded, workers=1, log=None)
    assert isinstance(report.deals, DealSet) and report.deals.source == str(deals)
    assert report.timing["games"] == 20


def test_cli_unknown_agent_is_a_clear_error(tmp_path, capsys):
    rc = cli_main(["eval", "--agents", "random", "no_such_bot", "--deals", "1", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2
    assert "no_such_bot" in err and "available agents" in err and "'random'" in err and "autoplay" in err
    assert not (tmp_path / "report.json").exists()


def test_cli_unreadable_deal_file_is_a_clear_error(tmp_path, capsys):
    missing = tmp_path / "missing.json"
    rc = cli_main(["eval", "--agents", "random", "autoplay", "--deal-file", str(missing)])
    err = capsys.readouterr().err
    assert rc == 2 and f"cannot read deal file {missing}" in err and "baohuang-deals" in err


def test_api_rejects_bad_agent_lists():
    with pytest.raises(ValueError, match="at least two"):
        evaluate_agents(["random"], RULES, [1])
    with pytest.raises(ValueError, match="once"):
        evaluate_agents(["random", "random"], RULES, [1])
    with pytest.raises(ValueError, match="distinct"):
        evaluate_pair("random", "autoplay", RULES, [1, 1])


def test_missing_checkpoint_is_a_clear_error_that_says_so_alone(monkeypatch):
    from baohuang_env.agent import AGENT_KINDS

    def fake_checkpoint_agent(arg, rules, seed):
        raise ValueError(f"checkpoint {arg} does not exist")

    monkeypatch.setitem(AGENT_KINDS, "fakeckpt", fake_checkpoint_agent)
    with pytest.raises(ValueError, match=r"missing\.pt does not exist$"):
        evaluate_pair("fakeckpt:missing.pt", "random", RULES, [1])


def test_first_pairing_and_trainer_helpers(tmp_path):
    report = evaluate_agents(["autoplay", "random"], RULES, [5], pairs="first", workers=1, log=None)
    assert not (tmp_path / "eval").exists()  # computing a report writes nothing
    write_report(report, tmp_path / "eval")
    assert make_pairs(["ckpt", "a", "b"], "first") == [("ckpt", "a"), ("ckpt", "b")]
    assert {p.name for p in (tmp_path / "eval").iterdir()} == {"report.json", "report.md", "report.png"}
    pair = report.pairs[0]
    assert pair.win_rate == pair.table_a["overall"].win_rate and pair.mean_diff == pair.paired.mean
    with pytest.raises(ValueError, match="consecutive"):
        evaluate_agents(["autoplay", "random"], RULES, [5], pairs="ladder")
