"""The repository stands alone: docs/rules.md is the rules specification.

A user's clone has only this repository, so no tracked file may point to rules or style files
kept outside it, and every section reference ("§4.3", "docs/rules.md §6.1", "§9 #14") must name
a section (or a numbered assumption) that docs/rules.md has. Links into docs/rules.md must land
on one of its headings or anchors.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES_DOC = ROOT / "docs" / "rules.md"

#: Names of files outside the repository (spelled in pieces so this file does not name them).
FOREIGN = ("RULES" + ".md", "STYLE" + ".md", ".." + "/shared")
#: Folders whose .py files cite docs/rules.md by bare "§N.M" (and docs/, whose pages do).
CITING_PACKAGES = ("baohuang_env", "agents", "baohuang_cli")

_SECTION = r"\d+(?:\.\d+)?"
#: "§4.3", "§3.3–3.7" (the range's end has no § of its own), "§1–§2".
BARE_REF = re.compile(rf"§({_SECTION})(?:\s*[–-]\s*§?({_SECTION}))?")
QUALIFIED_REF = re.compile(rf"docs/rules\.md\s+§({_SECTION})")
#: "§9 #14", "§9 #14–#16", "§9 #5, #6, #48", "§9 #25-26".
ASSUMPTION_REF = re.compile(r"§9\s+(#\d+(?:\s*(?:[–-]|,)\s*#?\d+)*)")
LINK = re.compile(r"\]\((?:[./]*docs/)?rules\.md#([^)\s]+)\)")


@cache
def tracked_text_files() -> tuple[Path, ...]:
    """Tracked files that are text (UTF-8 without NUL bytes)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    files = []
    for name in out.decode().split("\0"):
        path = ROOT / name
        if not name or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data:
            continue
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        files.append(path)
    return tuple(files)


@cache
def doc_text() -> str:
    return RULES_DOC.read_text(encoding="utf-8")


@cache
def section_numbers() -> frozenset[str]:
    """Numbers of docs/rules.md's headings: "## 4. Plays" -> "4", "### 4.3 The …" -> "4.3"."""
    return frozenset(m.group(1) for m in re.finditer(rf"^#{{2,4}} ({_SECTION})\.?\s", doc_text(), re.M))


@cache
def assumption_numbers() -> frozenset[int]:
    """The numbered items of section 9 (the assumptions)."""
    body = re.search(r"^## 9\..*?(?=^## )", doc_text(), re.M | re.S)
    assert body, "docs/rules.md has no section 9"
    return frozenset(int(n) for n in re.findall(r"^(\d+)\. ", body.group(0), re.M))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@cache
def anchors() -> frozenset[str]:
    text = doc_text()
    found = {slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}
    found |= set(re.findall(r"<a (?:id|name)=\"([^\"]+)\"", text))
    return frozenset(found)


def _numbers(match: re.Match) -> list[str]:
    return [n for n in match.groups() if n]


def _assumptions(spec: str) -> list[int]:
    """"#14–#16" -> [14, 16]; "#5, #6" -> [5, 6]."""
    return [int(n) for n in re.findall(r"\d+", spec)]


def test_rules_doc_has_sections_and_assumptions():
    assert {"1", "1.1", "3.8", "4.3", "6.1", "8", "9", "10"} <= section_numbers()
    assert set(range(1, 54)) <= assumption_numbers()


def test_no_file_points_outside_the_repository():
    offenders = []
    for path in tracked_text_files():
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if any(name in line for name in FOREIGN):
                offenders.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()[:100]}")
    assert not offenders, "files refer to rules or style files outside the repository:\n" + "\n".join(offenders)


@cache
def citing_files() -> frozenset[Path]:
    """Files whose bare "§N.M" means docs/rules.md: the packages' .py files and docs/."""
    def cites(p: Path) -> bool:
        top = p.relative_to(ROOT).parts[0]
        return top == "docs" or (top in CITING_PACKAGES and p.suffix == ".py")

    return frozenset(p for p in tracked_text_files() if cites(p))


def test_section_references_exist_in_the_rules_doc():
    sections, items = section_numbers(), assumption_numbers()
    missing = []
    for path in tracked_text_files():
        text = path.read_text(encoding="utf-8")
        where = str(path.relative_to(ROOT))
        refs = [n for m in QUALIFIED_REF.finditer(text) for n in _numbers(m)]
        if path in citing_files():
            refs += [n for m in BARE_REF.finditer(text) for n in _numbers(m)]
        missing += [f"{where}: §{n}" for n in refs if n not in sections]
        if path in citing_files() or QUALIFIED_REF.search(text):
            for m in ASSUMPTION_REF.finditer(text):
                missing += [f"{where}: §9 #{n}" for n in _assumptions(m.group(1)) if n not in items]
    assert not missing, "references to sections docs/rules.md does not have:\n" + "\n".join(sorted(set(missing)))


def test_assumption_numbers_cited_in_the_rules_doc_exist():
    items = assumption_numbers()
    cited = {int(n) for n in re.findall(r"(?<![\w#&])#(\d+)\b", doc_text())}
    assert cited - items == set()


def test_links_into_the_rules_doc_land_on_an_anchor():
    broken = []
    for path in tracked_text_files():
        if path.suffix != ".md":
            continue
        for m in LINK.finditer(path.read_text(encoding="utf-8")):
            if m.group(1) not in anchors():
                broken.append(f"{path.relative_to(ROOT)}: rules.md#{m.group(1)}")
        if path == RULES_DOC:
            broken += [f"docs/rules.md: #{a}" for a in re.findall(r"\]\(#([^)\s]+)\)", doc_text())
                       if a not in anchors()]
    assert not broken, "links to missing anchors:\n" + "\n".join(broken)
