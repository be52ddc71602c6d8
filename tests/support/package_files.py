"""What a non-editable install of the checkout ships: setuptools' build_py outputs, as
`pip install .` builds them from pyproject.toml (its package data included)."""
from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import pytest

from tests.support.paths import ROOT


def built_files(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """The files a non-editable install of the checkout puts in site-packages (build_py's outputs)."""
    from setuptools.config.pyprojecttoml import apply_configuration
    from setuptools.dist import Distribution

    monkeypatch.chdir(ROOT)
    dist = Distribution()
    dist.script_name = "setup.py"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # ([tool.setuptools] is "beta" in older setuptools)
        apply_configuration(dist, "pyproject.toml")
    build = dist.get_command_obj("build_py")
    build.build_lib = tempfile.mkdtemp()
    build.ensure_finalized()
    return {Path(f).relative_to(build.build_lib).as_posix() for f in build.get_outputs(include_bytecode=False)}
