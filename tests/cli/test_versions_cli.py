"""--kubernetes-version, --feature-gates, $KEXPLAIN_KUBERNETES_VERSION and --compare-versions
through the command line: every command that schedules takes them, and bad values are one
line and exit 2 on each (explain, a snapshot's replay, kexplain pod, kexplain pod --pending)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.cli.app import main
from kexplain.features import SUPPORTED
from tests.support.cli_helpers import TestEnvironment
from tests.support.live_server import RecordedApiServer, write_kubeconfig
from tests.support.paths import ROOT

DATA = ROOT / "tests" / "data" / "versions"
BALANCED = DATA / "balanced-allocation"
TIE = DATA / "tie"
ENV = "KEXPLAIN_KUBERNETES_VERSION"


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    monkeypatch.delenv(ENV, raising=False)
    for name in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))


def kexplain(*args: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(list(args), env=env)
    return code, env.out, env.err


def case_args(case) -> list[str]:
    return [str(case / "pod.yaml"), "--nodes", str(case / "cluster.yaml")]


# --- bad values: one line, exit 2, on every command ----------------------------------------------

BAD = [
    (["--kubernetes-version", "latest"], "error: Kubernetes version 'latest' is not a version: write a minor such "
                                         f"as {SUPPORTED[-1]} (supported: {', '.join(SUPPORTED)})"),
    (["--kubernetes-version", "2.1"], "error: Kubernetes version '2.1' is not a version"),
    (["--kubernetes-version", "1.32"], "error: Kubernetes 1.32 is not supported: kexplain follows "
                                       f"{', '.join(SUPPORTED)} (the oldest is {SUPPORTED[0]})"),
    (["--feature-gates", "NoSuchGate=true"], 'error: invalid argument "NoSuchGate=true" for "--feature-gates" flag: '
                                             "unrecognized feature gate: NoSuchGate"),
    (["--feature-gates", "AnyVolumeDataSource=false"], 'error: invalid argument "AnyVolumeDataSource=false" for '
                                                       '"--feature-gates" flag: cannot set feature gate '
                                                       "AnyVolumeDataSource to false, feature is locked to true"),
    (["--feature-gates", "DRADeviceTaints=maybe"], 'error: invalid argument "DRADeviceTaints=maybe" for '
                                                   '"--feature-gates" flag: invalid value of DRADeviceTaints=maybe'),
    (["--kubernetes-version", "1.33", "--feature-gates", "NodeDeclaredFeatures=true"],
     'error: invalid argument "NodeDeclaredFeatures=true" for "--feature-gates" flag: unrecognized feature gate: '
     "NodeDeclaredFeatures"),       # a gate of 1.35 on, unknown to 1.33
]


def one_line_error(code: int, out: str, err: str, expected: str) -> None:
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith(expected), err


@pytest.mark.parametrize("flags, expected", BAD, ids=[" ".join(f) for f, _ in BAD])
def test_bad_versions_and_gates_explaining_manifests(flags, expected):
    one_line_error(*kexplain(*case_args(TIE), *flags), expected)


@pytest.mark.parametrize("flags, expected", BAD, ids=[" ".join(f) for f, _ in BAD])
def test_bad_versions_and_gates_replaying_a_snapshot(tmp_path, flags, expected):
    snapshot = tmp_path / "cluster.json"
    nodes = [o for o in json.loads(json.dumps(_yaml_objects(TIE / "cluster.yaml")))]
    record = {"apiVersion": "kexplain/v1", "kind": "ServerVersion", "metadata": {},
              "gitVersion": "v1.36.3"}
    snapshot.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [record, *nodes]}))
    one_line_error(*kexplain(str(TIE / "pod.yaml"), "--nodes", str(snapshot), "--stored", *flags), expected)


@pytest.fixture
def api(tmp_path):
    with RecordedApiServer(token="t") as server:
        server.kubeconfig = str(write_kubeconfig(tmp_path / "kubeconfig", server.url, token="t"))
        yield server


@pytest.mark.parametrize("pending", [False, True], ids=["pod NAME", "pod --pending"])
@pytest.mark.parametrize("flags, expected", BAD, ids=[" ".join(f) for f, _ in BAD])
def test_bad_versions_and_gates_in_live_mode(api, flags, expected, pending):
    which = ["--pending"] if pending else ["checkout-6b8d9f7c4-lm3np"]
    one_line_error(*kexplain("pod", *which, "-n", "shop", "--kubeconfig", api.kubeconfig, *flags), expected)


def test_a_bad_version_in_the_environment(monkeypatch):
    monkeypatch.setenv(ENV, "1.x")
    one_line_error(*kexplain(*case_args(TIE)), "error: Kubernetes version '1.x' is not a version")
    code, out, _ = kexplain(*case_args(TIE), "--kubernetes-version", "1.34", "-o", "json")
    assert code == 0 and json.loads(out)["kubernetesVersion"]["minor"] == "1.34"   # the flag wins


def test_the_environment_chooses_the_version(monkeypatch):
    monkeypatch.setenv(ENV, "1.36")
    code, out, _ = kexplain(*case_args(TIE), "-o", "json")
    assert json.loads(out)["kubernetesVersion"] == {"minor": "1.36", "scheduler": "v1.36.3"}


def test_every_supported_minor_takes_feature_gates():
    """A gate set to its own default changes nothing, and every dependency still holds."""
    for minor in SUPPORTED:
        code, out, err = kexplain(*case_args(TIE), "--kubernetes-version", minor, "--feature-gates",
                                  "SchedulerQueueingHints=true", "-o", "json")
        assert code == 0, (minor, err)
        assert json.loads(out)["kubernetesVersion"] == {"minor": minor, "scheduler": f"v{minor}." +
                                                        json.loads(out)["kubernetesVersion"]["scheduler"].split(".")[2]}


# --- --compare-versions ------------------------------------------------------------------------

def test_compare_versions_shows_only_what_changes():
    code, out, err = kexplain(*case_args(BALANCED), "--compare-versions", "1.35,1.36")
    assert code == 0 and err == ""
    lines = [" ".join(line.split()) for line in out.splitlines()]
    assert lines[:3] == ["Pod payments/search-npz8khdknq-5grjm: what changes from Kubernetes 1.35 to 1.36",
                         "Kubernetes 1.35 (kube-scheduler v1.35.4): Scheduled on node-3",
                         "Kubernetes 1.36 (kube-scheduler v1.36.3): Scheduled on node-1"]
    assert "chosen node node-3 node-1" in lines
    scores = lines[lines.index("Scores that change (weighted, as the total adds them)"):]
    assert scores[3:7] == ["node-1 NodeResourcesBalancedAllocation 78 74", "node-1 total 456 452",
                           "node-3 NodeResourcesBalancedAllocation 99 78", "node-3 total 472 451"]
    assert "verdict" not in " ".join(lines) and "NodeResourcesFit" not in out     # unchanged: not shown


def test_compare_versions_as_json():
    code, out, _ = kexplain(*case_args(BALANCED), "--compare-versions", "1.35,1.36", "-o", "json")
    doc = json.loads(out)
    assert (doc["apiVersion"], doc["kind"], doc["same"]) == ("kexplain/v1", "VersionComparison", False)
    assert doc["versions"] == [{"minor": "1.35", "scheduler": "v1.35.4"}, {"minor": "1.36", "scheduler": "v1.36.3"}]
    assert doc["changes"][0] == {"what": "node", "values": {"1.35": "node-3", "1.36": "node-1"}}
    assert {c["what"] for c in doc["changes"][1:]} == {"score"}


def test_compare_versions_saves_its_view_as_svg_and_refuses_html(tmp_path):
    svg = tmp_path / "compared.svg"
    code, out, err = kexplain(*case_args(BALANCED), "--compare-versions", "1.35,1.36", "--svg", str(svg))
    assert code == 0 and err == ""
    assert "what changes from Kubernetes 1.35 to 1.36" in out
    assert svg.read_text().startswith("<svg") and "Kubernetes&#160;1.35" in svg.read_text()
    page = tmp_path / "compared.html"
    code, out, err = kexplain(*case_args(BALANCED), "--compare-versions", "1.35,1.36", "--html", str(page))
    one_line_error(code, out, err, "error: --html shows one version's explanation")
    assert not page.exists()


def test_compare_versions_with_nothing_to_show():
    code, out, _ = kexplain(*case_args(BALANCED), "--compare-versions", "1.33,1.35")
    assert code == 0
    assert " ".join(out.split()).endswith("Nothing changes: the same verdict, the same Filter reasons on every node "
                                          "and the same scores under 1.33 and 1.35.")


def test_compare_versions_refused_under_one_version(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)         # a short path: a long one would be wrapped inside the message
    config = Path("c.yaml")
    config.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
                      "- plugins:\n    score:\n      enabled: [{name: DynamicResources, weight: 3}]\n")
    code, out, _ = kexplain(*case_args(TIE), "--config", str(config), "--compare-versions", "1.34,1.35")
    assert code == 2        # the worst of the verdicts: an input one of the versions refuses
    text = " ".join(out.split())
    assert text.startswith(f"Pod default/api: what changes from Kubernetes 1.34 to 1.35 Kubernetes 1.34 "
                           f"(kube-scheduler v1.34.7): Refused (the input): {config}: document 1: profiles[0]: "
                           "creating profile for scheduler name default-scheduler: plugin \"DynamicResources\" does "
                           "not extend ScorePlugin plugin Kubernetes 1.35 (kube-scheduler v1.35.4): Scheduled on twin-a")
    assert "What changes" not in text       # nothing else to compare with an input refused


@pytest.mark.parametrize("flags, expected", [
    (["--compare-versions", "1.35"], "error: --compare-versions '1.35': give two versions or more, such as 1.35,1.36"),
    (["--compare-versions", "1.35,,1.36"], "error: --compare-versions '1.35,,1.36': give versions separated by commas"),
    (["--compare-versions", "1.36,v1.36.2"], "error: --compare-versions '1.36,v1.36.2': Kubernetes 1.36 is given twice"),
    (["--compare-versions", "1.35,1.31"], "error: Kubernetes 1.31 is not supported"),
    (["--compare-versions", "1.35,1.36", "--kubernetes-version", "1.35"],
     "error: --compare-versions chooses the versions: drop --kubernetes-version"),
    (["--compare-versions", "1.35,1.36", "--node", "twin-a"], "error: --node shows one version's verdict"),
    (["--compare-versions", "1.33,1.36", "--feature-gates", "NodeDeclaredFeatures=false"],
     'error: invalid argument "NodeDeclaredFeatures=false" for "--feature-gates" flag: unrecognized feature gate'),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_bad_compare_versions(flags, expected):
    one_line_error(*kexplain(*case_args(TIE), *flags), expected)


def test_compare_versions_overrides_the_environment(monkeypatch):
    monkeypatch.setenv(ENV, "1.33")
    code, out, _ = kexplain(*case_args(BALANCED), "--compare-versions", "1.35,1.36", "-o", "json")
    assert code == 0 and [v["minor"] for v in json.loads(out)["versions"]] == ["1.35", "1.36"]


def test_a_newer_minor_in_compare_versions_is_warned_of():
    code, out, err = kexplain(*case_args(TIE), "--compare-versions", "1.35,1.37", "-o", "json")
    assert code == 0 and err.startswith("warning: Kubernetes 1.37 is newer than the newest version kexplain follows")
    assert [v["minor"] for v in json.loads(out)["versions"]] == ["1.35", "1.36"]


def _yaml_objects(path) -> list[dict]:
    import yaml
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


# --- the documentation says which versions are supported ----------------------------------------

def test_the_docs_and_the_man_page_name_the_supported_versions_and_the_default():
    from kexplain.features import DEFAULT_MINOR, RELEASES
    page = (ROOT / "docs" / "versions.md").read_text()
    rows = [line.split("|")[1:4] for line in page.splitlines() if line.startswith("| 1.")]
    assert [(m.strip(), r.strip()) for m, r, _ in rows] == list(RELEASES.items())
    assert [m.strip() for m, _, note in rows if "default" in note] == [DEFAULT_MINOR]
    assert f"4. the default, {DEFAULT_MINOR}." in page
    man = " ".join((ROOT / "man" / "kexplain.1").read_text().split())
    assert f"{', '.join(list(RELEASES)[:-1])} or {list(RELEASES)[-1]} (default {DEFAULT_MINOR})" in man
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert f"Kubernetes **{list(RELEASES)[0]} to {list(RELEASES)[-1]}**" in readme
    assert f"{RELEASES[DEFAULT_MINOR]} by default" in readme
