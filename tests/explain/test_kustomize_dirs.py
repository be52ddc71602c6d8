"""A kustomize directory given to `kexplain DIR`: `kubectl apply -f` sends its
kustomization.yaml as an object and builds nothing, so kexplain explains the files as written
and says how to explain what the kustomization builds (`kubectl kustomize DIR | kexplain -`):
a warning beside the verdicts, or with the errors when nothing is left to explain (a
kustomize base whose Deployment lacks the selector the kustomization adds; a base of RBAC
only). Shaped after kueue's config/components/manager and descheduler's kubernetes/base."""
from __future__ import annotations

from kexplain.cli.app import main
from kexplain.load.manifests import kustomization_dirs, kustomize_hint
from kexplain.errors import Source
from tests.support.paths import DATA

SETS = DATA / "manifests"
CLUSTER = str(DATA / "as-written" / "cluster.yaml")


def hint(folder) -> str:
    return (f"{folder} is a kustomization, which `kubectl apply -f` does not build: its files are explained as "
            f"written; `kubectl kustomize {folder} | kexplain -` explains what it builds")


def run(capsys, folder) -> tuple[int, str, list[str]]:
    code = main([str(folder), "--nodes", CLUSTER])
    out, err = capsys.readouterr()
    return code, out, err.splitlines()


def test_a_base_whose_workload_is_refused_says_what_to_run(capsys):
    base = SETS / "kustomize-base"
    code, out, err = run(capsys, base)
    assert (code, out) == (2, "")
    assert len(err) == 2 and "spec.selector: Required value" in err[0]
    assert err[1] == f"error: {hint(base)}"


def test_a_base_without_workloads_says_it_with_the_kinds_found(capsys):
    base = SETS / "kustomize-rbac"
    code, out, err = run(capsys, base)
    assert (code, out) == (2, "")
    assert err == [f"error: {base}: no Pod or workload to explain (found Kustomization, ServiceAccount); {hint(base)}"]


def test_files_explained_as_written_carry_a_warning(capsys):
    app = SETS / "kustomize-app"
    code, out, err = run(capsys, app)
    assert code == 0 and "Pod default/web" in out      # not the kustomization's namespace shop
    assert err == [f"warning: {hint(app)}"]


def test_only_kustomize_objects_count():
    objs = [({"apiVersion": "kustomize.config.k8s.io/v1alpha1", "kind": "Component"}, Source("a/b/kustomization.yaml")),
            ({"apiVersion": "example.com/v1", "kind": "Kustomization"}, Source("c/kustomization.yaml")),
            ({"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"}, Source("kustomization.yaml"))]
    assert kustomization_dirs(objs) == ["a/b", "."]
    assert kustomize_hint(["a/b", "."]).startswith("a/b (and 1 more) is a kustomization")
    assert kustomize_hint([]) == ""
