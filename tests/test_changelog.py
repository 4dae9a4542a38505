"""CHANGELOG.md moves with the version: its newest release is the one the package, the CLI and the interface say."""

import json
import re
import subprocess
import sys
import tomllib

import stalwart_agents

from .conftest import ROOT

CHANGELOG = (ROOT / "CHANGELOG.md").read_text()
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\](?: - (\d{4}-\d{2}-\d{2}))?$", re.MULTILINE)


def test_the_newest_release_in_the_changelog_is_the_packages_version():
    releases = RELEASE.findall(CHANGELOG)
    assert releases, "CHANGELOG.md lists its releases as ## [x.y.z] - YYYY-MM-DD"
    newest, dated = releases[0]
    assert dated, "the newest release has its date"
    assert newest == stalwart_agents.__version__
    said = subprocess.run(
        [sys.executable, "-m", "stalwart_agents", "--version"], capture_output=True, text=True, timeout=60
    )
    assert (said.returncode, said.stdout) == (0, f"stalwart {newest}\n")
    assert json.loads((ROOT / "frontend" / "package.json").read_text())["version"] == newest


def test_the_distribution_takes_its_version_from_the_package():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "stalwart_agents.__version__"}


def test_the_changelog_keeps_its_sections_in_order_and_each_entry_says_what_to_do():
    assert CHANGELOG.index("## [Unreleased]") < RELEASE.search(CHANGELOG).start()  # type: ignore[union-attr]
    newest = CHANGELOG.split("\n## [")[2].split("\n## [")[0]
    entries = re.findall(r"^- (.*?)(?=^- |^### |\Z)", newest, re.MULTILINE | re.DOTALL)
    assert entries and [entry[:60] for entry in entries if "**To do:**" not in entry] == []
