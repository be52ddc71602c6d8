"""integrations.externalFrameworks and multiKueue validated as Kueue's pkg/config validates them
(kexplain/kueue/config_external.py)."""
from __future__ import annotations

import pytest

from kexplain.errors import InputError
from kexplain.kueue.config import parse_configuration
from kexplain.kueue.config_external import external_framework, parse_kind_arg


def cfg(**fields) -> dict:
    return {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", **fields}


@pytest.mark.parametrize(("fields", "said"), [
    ({"integrations": {"frameworks": ["batch/job"], "externalFrameworks": ["AppWrapper"]}},
     "integrations.externalFrameworks[0]: Invalid value: \"AppWrapper\": must be format, 'Kind.version.group.com'"),
    ({"integrations": {"frameworks": ["batch/job"], "externalFrameworks": ["Job.v1.batch"]}},
     'integrations.externalFrameworks[0]: Duplicate value: "Job.v1.batch"'),
    ({"integrations": {"frameworks": ["batch/job"], "externalFrameworks": ["Foo.v1.example.com", "Foo.v1.example.com"]}},
     'integrations.externalFrameworks[1]: Duplicate value: "Foo.v1.example.com"'),
    ({"multiKueue": {"gcInterval": "-1m"}},
     "multiKueue.gcInterval: Invalid value: -60000000000: must be greater than or equal to 0"),
    ({"multiKueue": {"workerLostTimeout": "-1s"}},
     "multiKueue.workerLostTimeout: Invalid value: -1000000000: must be greater than or equal to 0"),
    ({"multiKueue": {"origin": "not a label"}}, 'multiKueue.origin: Invalid value: "not a label": a valid label must'),
    ({"multiKueue": {"externalFrameworks": [{"name": "pipeline"}]}},
     "multiKueue.externalFrameworks[0].name: Invalid value: \"pipeline\": must be in 'kind.version.group' format"),
    ({"integrations": {"frameworks": ["batch/job"]}, "multiKueue": {"externalFrameworks": [{"name": "Job.v1.batch"}]}},
     'multiKueue.externalFrameworks[0].name: Invalid value: "Job.v1.batch": conflicts with a built-in MultiKueue '
     'adapter'),
])
def test_what_kueue_refuses(fields, said) -> None:
    with pytest.raises(InputError) as err:
        parse_configuration(cfg(**fields))
    assert said in str(err.value) and "\n" not in str(err.value)


def test_what_kueue_takes() -> None:
    got = parse_configuration(cfg(integrations={"frameworks": ["batch/job", "deployment"],
                                                "externalFrameworks": ["Pipeline.v1.tekton.dev", "Deployment.v1beta1.apps"]},
                                  multiKueue={"gcInterval": "1m", "origin": "manager",
                                              "externalFrameworks": [{"name": "Deployment.v1.apps"}]}))
    assert got.external_frameworks == ("Pipeline.v1.tekton.dev", "Deployment.v1beta1.apps")   # another version: another kind
    assert got.note() is None       # both modelled: nothing said as read but not modelled


def test_kind_args() -> None:
    assert parse_kind_arg("Pipeline.v1.tekton.dev") == ("tekton.dev", "v1", "Pipeline")
    assert parse_kind_arg("Pipeline.v1") is None
    pipeline = {"apiVersion": "tekton.dev/v1", "kind": "Pipeline"}
    assert external_framework(pipeline, ["bad", "Pipeline.v1.tekton.dev"]) == "Pipeline.v1.tekton.dev"
    assert external_framework({"apiVersion": "other.dev/v1", "kind": "Pipeline"}, ["Pipeline.v1.tekton.dev"]) == ""
