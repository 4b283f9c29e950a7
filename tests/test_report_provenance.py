"""report.json records what each agent spec resolved to (file, sha256, rules fingerprint), so
a report stays reproducible when the shipped agents change; tables show short names."""

from __future__ import annotations

import hashlib
import json

from agents.files.checkpoint import load_checkpoint
from agents.pretrained import SHIPPED, strongest
from agents.files.provenance import resolve_spec
from baohuang_cli.cli import main as cli_main
from baohuang_env import get_rules
from baohuang_eval import display_names


def _sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_eval_report_records_the_file_pretrained_resolved_to(tmp_path, capsys):
    out = tmp_path / "report"
    assert cli_main(["eval", "--agents", "pretrained", "random", "--protocol", "team", "--deals", "1",
                     "--workers", "1", "--out", str(out)]) == 0
    capsys.readouterr()
    report = json.loads((out / "report.json").read_text())
    shipped = strongest("jj")
    resolved = report["agents_resolved"]["pretrained"]
    assert resolved["pretrained"] == shipped.name and resolved["kind"] == shipped.kind
    assert resolved["file"] == str(shipped.path.resolve())
    assert resolved["sha256"] == _sha256(shipped.path)
    assert resolved["rules_fingerprint"] == load_checkpoint(shipped.path)["compat"]["rules_fingerprint"]
    assert resolved["resolves_to"] == f"{shipped.kind}:{shipped.path}"
    assert report["agents_resolved"]["random"] == {"spec": "random", "kind": "random",
                                                   "version": resolved["version"]}
    assert report["partial"] is False and report["pairs"][0]["deals"] == 1


def test_wrapping_specs_resolve_what_they_wrap():
    rules = get_rules("jj")
    dmc_jj = SHIPPED["dmc_jj"].path
    search = resolve_spec("search:w=2:base=pretrained:dmc_jj", rules)
    assert search["kind"] == "search" and search["base"]["sha256"] == _sha256(dmc_jj)
    roles = resolve_spec("roles:dmc:agents/pretrained/dmc_jj.pt", rules)
    assert roles["roles_of"]["file"] == str(dmc_jj.resolve())


def test_display_names_cut_paths_but_keep_agents_apart():
    long = "dmc:runs/baohuang-jj__dmc_quick__1__20261204-064906/model.pt"
    assert display_names([long, "random", "heuristic:roles=none"]) == {
        long: "dmc:model.pt", "random": "random", "heuristic:roles=none": "heuristic:roles=none"}
    assert display_names(["dmc:runs/a/model.pt", "dmc:runs/b/model.pt"]) == {
        "dmc:runs/a/model.pt": "dmc:a/model.pt", "dmc:runs/b/model.pt": "dmc:b/model.pt"}


def test_report_tables_show_short_names_and_say_which_spec_each_is(tmp_path, capsys):
    model = SHIPPED["dmc_jj"].path
    spec = f"dmc:{model}"
    out = tmp_path / "report"
    assert cli_main(["eval", "--agents", spec, "random", "--protocol", "team", "--deals", "1", "--workers", "1",
                     "--out", str(out)]) == 0
    markdown = capsys.readouterr().out
    rows = [line for line in markdown.splitlines() if line.startswith("| `")]
    assert rows and all(str(model) not in row for row in rows)
    assert any(row.startswith("| `dmc:dmc_jj.pt` | `random` |") for row in rows)
    assert f"Agents: `dmc:dmc_jj.pt` is `{spec}`." in markdown
    assert json.loads((out / "report.json").read_text())["agents"] == [spec, "random"]
