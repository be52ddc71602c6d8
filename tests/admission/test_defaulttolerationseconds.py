"""DefaultTolerationSeconds: which pods get the 300 s not-ready / unreachable tolerations."""
from __future__ import annotations

import pytest

from kexplain.admission.defaulttolerationseconds import admit, missing

NOT_READY, UNREACHABLE = "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"


def _keys(tolerations: list[dict]) -> list[str]:
    return [t["key"] for t in tolerations]


@pytest.mark.parametrize(("tolerations", "added"), [
    (None, [NOT_READY, UNREACHABLE]),
    ([], [NOT_READY, UNREACHABLE]),
    ([{"operator": "Exists"}], []),                                     # empty key and effect cover both
    ([{"key": NOT_READY, "operator": "Exists", "effect": "NoExecute"}], [UNREACHABLE]),
    ([{"key": UNREACHABLE, "operator": "Exists", "tolerationSeconds": 60, "effect": "NoExecute"}], [NOT_READY]),
    ([{"key": NOT_READY, "operator": "Exists", "effect": "NoSchedule"}], [NOT_READY, UNREACHABLE]),
    ([{"key": NOT_READY, "operator": "Equal", "value": "x"}], [UNREACHABLE]),    # operator and value ignored
    ([{"operator": "Exists", "effect": "NoExecute"}], []),
    ([{"key": "dedicated", "operator": "Exists", "effect": "NoExecute"}], [NOT_READY, UNREACHABLE]),
])
def test_missing(tolerations: list[dict] | None, added: list[str]) -> None:
    got = missing(tolerations)
    assert _keys(got) == added
    assert all(t == {"key": t["key"], "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
               for t in got)


def test_admit_appends_after_the_pods_own_and_says_what_it_added() -> None:
    own = {"key": NOT_READY, "operator": "Exists", "effect": "NoExecute"}
    spec = {"tolerations": [own]}
    assert _keys(admit(spec)) == [UNREACHABLE]
    assert spec["tolerations"][0] is own and _keys(spec["tolerations"]) == [NOT_READY, UNREACHABLE]
    assert admit(spec) == [] and len(spec["tolerations"]) == 2        # a second admission adds nothing


def test_the_pipeline_runs_it_on_a_new_pod_but_not_on_a_stored_one() -> None:
    from kexplain.admission import admit as admit_all
    from kexplain.errors import Source
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    stored = {**pod, "metadata": {"name": "q", "namespace": "default", "resourceVersion": "7"}}
    result = admit_all([(pod, Source("a.yaml")), (stored, Source("a.yaml"))], None)
    by_name = {o["metadata"]["name"]: o for o, _ in result.objects if o.get("kind") == "Pod"}
    assert _keys(by_name["p"]["spec"]["tolerations"]) == [NOT_READY, UNREACHABLE]
    assert "tolerations" not in by_name["q"]["spec"]
