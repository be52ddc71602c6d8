"""CA's flag set is package data (kexplain/autoscaler/data/flags.json): the package finds it
through `importlib.resources`, pyproject.toml ships it, and it reads as the typed table
`params.FLAGS` (a repeatable flag's default a tuple, a duration's in seconds)."""
from __future__ import annotations

import tomllib
from fnmatch import fnmatch
from importlib import resources

from kexplain.autoscaler import params
from tests.support.paths import ROOT


def test_the_package_finds_its_flag_data() -> None:
    assert resources.files("kexplain.autoscaler").joinpath("data", "flags.json").is_file()


def test_pyproject_ships_every_data_file_of_the_package() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    patterns = declared["kexplain.autoscaler"]
    here = ROOT / "kexplain" / "autoscaler"
    files = [p.relative_to(here).as_posix() for p in (here / "data").iterdir() if p.is_file()]
    assert files and all(any(fnmatch(f, pat) for pat in patterns) for f in files), (files, patterns)


def test_the_flags_read_typed() -> None:
    assert params.FLAGS["gpu-total"] == ("multi", ())
    assert params.FLAGS["scale-down-delay-after-add"] == ("duration", 600.0)
    assert params.FLAGS["cores-total"] == ("string", "0:320000")       # 0:config.DefaultMaxClusterCores
    assert params.FLAGS["kube-client-qps"] == ("float", 5.0)
    assert params.ONLY["salvo-scale-up"] == (False, "salvo scale-up is not modelled")
    assert params.NO_EFFECT["parallel-scale-up"].startswith("the same scale-ups")
