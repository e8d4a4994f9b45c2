"""The README is a manual whose map matches the tree, and its documents live in `docs/` (issue 31).

These fail when a module named in the README's layout map moves without the map, when a link in
the README or in `docs/` points at a file that is not there, or when the manual grows back into a
measurement log.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_CODE_PATH = re.compile(r"`([A-Za-z_][\w./-]*)`")


def _sections(text: str) -> list[str]:
    return [line[3:].strip() for line in text.splitlines() if line.startswith("## ")]


def test_the_readme_is_a_manual_with_the_layout_near_the_top():
    text = README.read_text(encoding="utf-8")
    sections = _sections(text)
    assert len(text.splitlines()) < 600
    assert sum(line.startswith("```") for line in text.splitlines()) % 2 == 0  # no block cut open
    assert sections[:3] == ["Setup: two commands", "Layout", "Current figures"]
    for section in ("Command line", "Configuration", "Running past one machine"):
        assert section in sections
    # the measurement logs live in docs/measurements.md, not here
    assert not [s for s in sections if s.endswith("measured") or "measured (" in s]


def test_every_relative_link_of_the_readme_and_docs_resolves():
    for page in [README, *DOCS]:
        prose = re.sub(r"`[^`\n]*`", "", page.read_text(encoding="utf-8"))
        for target in _LINK.findall(prose):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = (page.parent / target.split("#", 1)[0]).resolve()
            assert path.exists(), f"{page.relative_to(ROOT)} links to a missing {target}"


def test_every_path_in_the_layout_map_exists():
    """The table's first cell names paths from the root; a folder's row names its files in the second cell."""
    text = README.read_text(encoding="utf-8")
    layout = text.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in layout.splitlines() if line.startswith("| `")]
    assert len(rows) > 10
    named = 0
    for row in rows:
        first, second = row.split("|")[1:3]
        folders = []
        for path in _CODE_PATH.findall(first):
            assert (ROOT / path).exists(), f"the layout map names {path}, which is not in the tree"
            named += 1
            if (ROOT / path).is_dir():
                folders.append(ROOT / path)
        for name in _CODE_PATH.findall(second):
            in_folder = len(folders) == 1 and folders[0].parent == ROOT / "core" or folders == [ROOT / "components"]
            if name.endswith((".py", ".json")) and "*" not in name and "/" not in name and in_folder:
                found = (folders[0] / name).exists() or any(folders[0].rglob(name))  # chunking/'s files
                assert found, f"the layout map names {name} in {folders[0].name}/"
                named += 1
    assert named > 60
    # the tree above the table: every folder and module it names under core/
    tree = layout.split("```", 2)[1]
    core_lines = tree.split("\ncore/", 1)[1].split("\nbenchmarks/", 1)[0].splitlines()[1:]
    listed = [w for line in core_lines for w in line.split("   ")[0].split() if w.endswith((".py", "/"))]
    assert len(listed) > 15
    for name in listed:
        assert (ROOT / "core" / name).exists(), f"the layout tree names core/{name}"
    # every stage package of core/ is in the tree, and says its job in its __init__ docstring
    packages = sorted(p.parent.name for p in (ROOT / "core").glob("*/__init__.py") if p.parent.name != "migrations")
    for package in packages:
        assert f"{package}/" in tree, package


def test_the_design_document_the_tests_cite_is_in_the_repository():
    design = ROOT / "docs" / "design.md"
    assert design.exists()
    text = design.read_text(encoding="utf-8")
    for heading in ("Habits worth copying",):
        assert heading in text
    for cited_by in ("tests/test_architecture.py", "tests/fakes.py"):
        assert "docs/design.md" in (ROOT / cited_by).read_text(encoding="utf-8")
