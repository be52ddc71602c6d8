"""A settings file (`--karpenter-config`, `--autoscaler-config`): one YAML or JSON document, the
defaults when it holds none, more than one refused naming the file and the settings."""
from __future__ import annotations

from pathlib import Path

import pytest

from kexplain.autoscaler.params import read_settings as read_ca_settings
from kexplain.errors import InputError
from kexplain.karpenter.params import read_settings as read_karpenter_settings
from kexplain.load.manifests import read_settings_document


def test_one_document_none_or_too_many(tmp_path: Path) -> None:
    path = tmp_path / "params.yaml"
    path.write_text("# nothing but a comment\n---\n")
    assert read_settings_document(str(path), "X settings")[0] == {}
    path.write_text("{\"a\": 1}")
    doc, src = read_settings_document(str(path), "X settings")
    assert doc == {"a": 1} and str(path) in str(src)
    path.write_text("a: 1\n---\nb: 2\n")
    with pytest.raises(InputError) as err:
        read_settings_document(str(path), "X settings")
    assert "expected one document of X settings, found 2" in str(err.value) and str(path) in str(err.value)


@pytest.mark.parametrize("read, what", [(read_karpenter_settings, "Karpenter settings"),
                                        (read_ca_settings, "CA settings")])
def test_both_settings_files_read_alike(tmp_path: Path, read, what) -> None:
    path = tmp_path / "params.yaml"
    path.write_text("")
    assert read(str(path)) == read(None)                 # an empty file: the defaults
    path.write_text("{}\n---\n{}\n")
    with pytest.raises(InputError, match=f"expected one document of {what}, found 2"):
        read(str(path))
