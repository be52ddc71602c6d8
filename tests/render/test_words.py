"""The renderers' word tables are package data (`kexplain/render/words.json`, read by
`kexplain.render.words`): every table a renderer names is there, each a table of words, and a
non-editable install ships the file (setuptools' build_py, as `pip install .` runs it, copies it
because pyproject.toml declares it)."""
from __future__ import annotations

import pytest

from kexplain.render import autoscale, cluster_autoscaler, karpenter, kueue, style
from kexplain.render.words import tables
from tests.support.package_files import built_files


@pytest.mark.parametrize("module, section, names", [
    (kueue, "kueue", ("VERDICTS", "SKIPS", "RULES", "MODES", "CANDIDATE_WORDS", "SUGGESTIONS")),
    (cluster_autoscaler, "cluster_autoscaler", ("OUTCOME_WORDS", "FILTERED_WORDS", "SHORT_WORDS", "DOES_WORDS")),
    (karpenter, "karpenter", ("RESULT_WORDS", "OFFERING_REASONS")),
    (autoscale, "autoscale", ("RESULT_WORDS",)),
    (style, "style", ("SHORT_NAMES",)),
], ids=["kueue", "cluster_autoscaler", "karpenter", "autoscale", "style"])
def test_each_renderers_tables_are_read_from_the_data_file(module, section: str, names: tuple[str, ...]) -> None:
    for name, table in zip(names, tables(section, *names)):
        assert getattr(module, name) is table
        assert table and all(isinstance(k, str) and isinstance(v, str) and v for k, v in table.items())


def test_an_install_ships_the_word_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    files = built_files(monkeypatch)
    assert "kexplain/render/words.py" in files
    assert "kexplain/render/words.json" in files
