"""The data files the engine reads at run time (Go struct tables, the gate table, Go field types, Go's
Unicode names) ship with the package: each is declared in pyproject.toml's package-data, so a wheel
carries it, and `importlib.resources` finds it from the installed package."""
from __future__ import annotations

import tomllib
from importlib.resources import files
from pathlib import Path

import pytest
from tests.support.paths import ROOT

ROOMS = ("controllers", "features", "apimachinery", "model", "config", "cel")
DATA_FILES = sorted(p for room in ROOMS for p in (ROOT / "kexplain" / room).rglob("*.json"))


def _package(path: Path) -> str:
    return ".".join(path.parent.relative_to(ROOT).parts)


def test_the_moved_tables_are_among_the_data_files():
    names = {f"{_package(p)}/{p.name}" for p in DATA_FILES}
    assert {"kexplain.controllers/template_structs.json", "kexplain.features/gate_table.json",
            "kexplain.apimachinery/gotypes.json", "kexplain.cel.library/unicode_names.json"} <= names


@pytest.mark.parametrize("path", DATA_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_data_file_is_declared_and_found_through_its_package(path: Path):
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert path.name in declared.get(_package(path), []), f"{path.name} is not in package-data"
    assert files(_package(path)).joinpath(path.name).read_text() == path.read_text()
