"""Live mode only reads, and never shows a credential.

Every live-mode code path (`kexplain pod` NAME / --pending / -A / --details, a bound pod,
`kexplain snapshot` with and without a pod and --redact, `kubectl kexplain`, paging, a
continue token that expired) and every failure (401, 403, 404, a list that keeps expiring,
a timeout, an unreachable server, a missing or unknown context) runs against the recorded
API server of tests/live_server.py, and:

- the client asked only for GET, seen from both sides: every HTTP request urllib3 sent in
  this process, and every request the server received;
- each request maps to an RBAC `list` (a collection) or `get` (one pod, /version) that the
  read-only ClusterRole of deploy/rbac.yaml grants;
- no credential of the kubeconfig (a bearer token, a client key, a password, the Basic
  authorization header made of it) appears in stdout, stderr or any file kexplain wrote.

The source of live mode is also checked: no HTTP verb but GET, and no call of the typed
API's create/patch/replace/delete methods.
"""
from __future__ import annotations

import ast
import base64
import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest
import urllib3
import yaml

from kexplain.cli import app as cli
from kexplain.cli.app import main
from kexplain.autoscaler.cloudprovider.live import ACCESS, CLUSTER_API, STATUS_PATH
from kexplain.load.live import APIS_PATH, DAEMONSETS, KARPENTER, KUEUE, POLICIES, RESOURCES
from tests.support.live_server import NAMESPACE_VIEW, RecordedApiServer, Rbac, isolate
from tests.support.paths import ROOT

CHECKOUT = "checkout-6b8d9f7c4-lm3np"
DB_BOUND = "db-0"
TOKEN = "t0ken-SECRET-4f9a2c"
PASSWORD = "pa55word-SECRET-77d1"
LIVE_SOURCES = [ROOT / "kexplain" / "load" / "kube_client.py", ROOT / "kexplain" / "load" / "live.py",
                ROOT / "kexplain" / "cli" / "live.py",
                ROOT / "kexplain" / "cli" / "snapshot.py", ROOT / "kexplain" / "load" / "redact.py"]


# --- credentials -----------------------------------------------------------------------------------

def client_key_pair(tmp: Path) -> tuple[str, str]:
    """A PEM certificate and its private key (openssl when there is one, else a made-up PEM:
    over plain HTTP the client never loads it, it only must not print it)."""
    if shutil.which("openssl"):
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-keyout",
                        str(tmp / "key.pem"), "-out", str(tmp / "cert.pem"), "-subj", "/CN=alice"],
                       check=True, capture_output=True)
        return (tmp / "cert.pem").read_text(), (tmp / "key.pem").read_text()
    body = base64.b64encode(b"not a real key, but a secret all the same" * 4).decode()
    return (f"-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----\n",
            f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n")


class Credential:
    """A kubeconfig user, and every string that would give it away."""

    def __init__(self, name: str, user: dict[str, Any], secrets: list[str], server_token: str | None) -> None:
        self.name, self.user, self.secrets, self.server_token = name, user, secrets, server_token

    def kubeconfig(self, path: Path, server: str) -> str:
        doc = {"apiVersion": "v1", "kind": "Config", "current-context": "prod",
               "clusters": [{"name": "c", "cluster": {"server": server}}],
               "users": [{"name": "u", "user": self.user}],
               "contexts": [{"name": "prod", "context": {"cluster": "c", "user": "u", "namespace": "shop"}}]}
        path.write_text(yaml.safe_dump(doc))
        return str(path)


def credentials(tmp: Path) -> dict[str, Credential]:
    cert, key = client_key_pair(tmp)
    key_data = base64.b64encode(key.encode()).decode()
    key_lines = [line for line in key.splitlines() if line and not line.startswith("-----")]
    basic = base64.b64encode(f"alice:{PASSWORD}".encode()).decode()
    return {
        "token": Credential("token", {"token": TOKEN}, [TOKEN], TOKEN),
        "client key": Credential("client key", {
            "client-certificate-data": base64.b64encode(cert.encode()).decode(), "client-key-data": key_data},
            [key_data, *key_lines[:3], key_lines[-1]], None),
        "password": Credential("password", {"username": "alice", "password": PASSWORD}, [PASSWORD, basic], None),
    }


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    isolate(monkeypatch, tmp_path / "home")


@pytest.fixture
def sent(monkeypatch) -> list[tuple[str, str]]:
    """Every HTTP request urllib3 sends from this process (method, URL), sent on as it is."""
    requests: list[tuple[str, str]] = []
    original = urllib3.connectionpool.HTTPConnectionPool.urlopen

    def urlopen(self, method, url, *args, **kwargs):
        requests.append((method, url))
        return original(self, method, url, *args, **kwargs)

    monkeypatch.setattr(urllib3.connectionpool.HTTPConnectionPool, "urlopen", urlopen)
    return requests


# --- what RBAC grants ------------------------------------------------------------------------------

def granted() -> set[tuple[str, str, str]]:
    """(verb, API group, resource) of the ClusterRole in deploy/rbac.yaml."""
    role = next(d for d in yaml.safe_load_all((ROOT / "deploy" / "rbac.yaml").read_text()) if d["kind"] == "ClusterRole")
    return {(verb, group, res) for rule in role["rules"] for verb in rule["verbs"]
            for group in rule["apiGroups"] for res in rule["resources"]}


COLLECTIONS = {r.path: (r.group, r.plural)      # DaemonSets: CA's templates
               for r in (*RESOURCES, *POLICIES, DAEMONSETS, *KARPENTER, *KUEUE)}
COLLECTIONS.update({f"/apis/{r.group}/{v}/{r.plural}": (r.group, r.plural)      # the autoscaler's node groups
                    for r in CLUSTER_API for v in (r.version, *r.fallbacks)})
COLLECTIONS["/api/v1/events"] = ("", "events")      # Karpenter's events (source=karpenter), every namespace


def rbac_verb(method: str, path: str) -> tuple[str, str, str] | None:
    """The RBAC (verb, group, resource) a request needs; None for /version and the API group
    list (readable by anyone: the system:discovery and system:public-info-viewer roles)."""
    assert method == "GET", f"{method} {path}"
    if path in ("/version", "/version/", APIS_PATH):
        return None
    if path in COLLECTIONS:
        return ("list", *COLLECTIONS[path])
    if path == STATUS_PATH:
        return ("get", "", "configmaps")
    parts = path.strip("/").split("/")
    assert len(parts) == 6 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "pods", path
    return ("get", "", "pods")


def namespace_verb(path: str) -> tuple[str, str, str] | None:
    """(verb, group, resource) of a request in one namespace (what a Role there grants): a list
    of a namespaced kind, its events, or the get of the namespace itself; None for another."""
    parts = path.strip("/").split("/")
    if parts[:1] not in (["api"], ["apis"]) or len(parts) < 3:
        return None
    at = 2 if parts[:1] == ["api"] else 3
    group = "" if at == 2 else parts[1]
    if len(parts) == at + 4 and parts[at + 2] == "pods":      # the get of the pod: rbac_verb's
        return None
    if len(parts) == at + 3 and parts[at] == "namespaces":
        return ("list", group, parts[at + 2])
    if len(parts) == at + 2 and parts[at] == "namespaces":
        return ("get", group, "namespaces")
    return None


# --- every code path -------------------------------------------------------------------------------

Scenario = Callable[[RecordedApiServer, Path], list[str]]


def fault(setup: Callable[[RecordedApiServer], None], args: list[str]) -> Scenario:
    def scenario(api: RecordedApiServer, tmp: Path) -> list[str]:
        setup(api)
        return args
    return scenario


def unreachable(api: RecordedApiServer, tmp: Path) -> list[str]:
    api.url_override = free_port_url()
    return ["pod", CHECKOUT]


def free_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def forbid(path: str, recorded: str) -> Callable[[RecordedApiServer], None]:
    return lambda api: api.faults.forbidden.__setitem__(path, recorded)


# name -> (args, expected exit code); args may name files in tmp ({tmp}).
SCENARIOS: dict[str, tuple[Scenario, int]] = {
    "pod NAME (table)": (lambda api, tmp: ["pod", CHECKOUT], 1),
    "pod NAME -o json, paged": (lambda api, tmp: ["pod", CHECKOUT, "-o", "json", "--chunk-size", "3"], 1),
    "pod NAME -o yaml, bound pod": (lambda api, tmp: ["pod", DB_BOUND, "-n", "shop", "-o", "yaml"], 0),
    "pod --pending --details": (lambda api, tmp: ["pod", "--pending", "-n", "shop", "--details"], 1),
    "pod -A -o json": (lambda api, tmp: ["pod", "-A", "-o", "json"], 1),
    "snapshot": (lambda api, tmp: ["snapshot", "-o", str(tmp / "c.json")], 0),
    "snapshot NAME --redact --redact-map": (lambda api, tmp: ["snapshot", CHECKOUT, "-o", str(tmp / "c.yaml"),
                                                              "--redact", "--redact-map", str(tmp / "key.json")], 0),
    "snapshot to stdout": (lambda api, tmp: ["snapshot", "-o", "-"], 0),
    "a continue token expires once": (fault(lambda api: api.faults.expire.__setitem__("/api/v1/pods", 1),
                                            ["pod", CHECKOUT, "--chunk-size", "3"]), 1),
    "a continue token keeps expiring": (fault(lambda api: api.faults.expire.__setitem__("/api/v1/nodes", 100),
                                              ["pod", CHECKOUT, "--chunk-size", "2"]), 2),
    "401": (fault(lambda api: setattr(api.faults, "unauthorized", True), ["pod", CHECKOUT]), 2),
    "403 on a list": (fault(forbid("/apis/storage.k8s.io/v1/csinodes", "forbidden-list-csinodes.json"),
                            ["pod", CHECKOUT]), 1),
    "403 on a list, snapshot": (fault(forbid("/apis/storage.k8s.io/v1/csinodes", "forbidden-list-csinodes.json"),
                                      ["snapshot", "-o", "{tmp}/c.json"]), 2),
    "a namespace's reader": (fault(lambda api: setattr(api.faults, "rbac", Rbac()), ["pod", CHECKOUT, "-o", "json"]),
                             1),
    "a namespace's reader, --pending": (fault(lambda api: setattr(api.faults, "rbac", Rbac()),
                                              ["pod", "--pending", "-n", "shop"]), 1),
    "403 on the get": (fault(forbid(f"/api/v1/namespaces/shop/pods/{CHECKOUT}", "forbidden-get-pods.json"),
                             ["snapshot", CHECKOUT, "-o", "{tmp}/c.json"]), 2),
    "404 pod": (lambda api, tmp: ["pod", "nope"], 2),
    "Karpenter installed, pod NAME -o json": (fault(lambda api: api.add_collections("karpenter"),
                                                    ["pod", CHECKOUT, "-o", "json"]), 1),
    "Karpenter installed, snapshot": (fault(lambda api: api.add_collections("karpenter"),
                                            ["snapshot", "-o", "{tmp}/c.json"]), 0),
    "Karpenter installed, a namespace's reader": (fault(lambda api: (api.add_collections("karpenter"),
                                                                     setattr(api.faults, "rbac", Rbac())),
                                                        ["pod", CHECKOUT]), 1),
    "timeout": (fault(lambda api: api.faults.delay.__setitem__("/api/v1/nodes", 3),
                      ["pod", "-A", "--request-timeout", "0.3"]), 2),
    "unreachable": (unreachable, 2),
    "unknown context": (lambda api, tmp: ["pod", CHECKOUT, "--context", "staging"], 2),
}


def run(capsys, args: list[str], *, kubectl: bool = False, monkeypatch=None) -> tuple[int, str, str]:
    if kubectl:
        monkeypatch.setattr(sys, "argv", ["kubectl-kexplain", *args])
        code = cli.kubectl_main()
    else:
        code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def check_read_only(api: RecordedApiServer, sent: list[tuple[str, str]]) -> None:
    assert sent, "no request was made"
    assert {m for m, _ in sent} == {"GET"}, sent
    assert api.methods <= {"GET"}, api.methods
    allowed = granted()
    for seen in api.requests:
        scoped = namespace_verb(seen.path)
        if scoped is not None:      # read in one namespace only after the cluster scope was refused
            assert scoped[2] in NAMESPACE_VIEW, f"{seen.path}: a namespace's view role does not grant {scoped}"
            continue
        need = rbac_verb(seen.method, seen.path)
        assert need is None or need in allowed, f"{seen.method} {seen.path} needs {need}, which RBAC does not grant"


def check_no_secret(cred: Credential, out: str, err: str, tmp: Path, kubeconfig: str) -> None:
    written = {p: p.read_text(errors="replace") for p in tmp.rglob("*")
               if p.is_file() and str(p) != kubeconfig and p.suffix in (".json", ".yaml", ".yml")}
    for secret in cred.secrets:
        assert secret not in out, f"{cred.name} credential on stdout"
        assert secret not in err, f"{cred.name} credential on stderr: {err}"
        for path, text in written.items():
            assert secret not in text, f"{cred.name} credential in {path}"


# Every scenario with a bearer token; the other credentials through the paths that print or
# write the most.
MOST_TALKATIVE = ("pod NAME (table)", "snapshot NAME --redact --redact-map", "401", "403 on a list", "timeout",
                  "unreachable", "unknown context")
CASES = [(name, "token") for name in sorted(SCENARIOS)] + [
    (name, cred) for cred in ("client key", "password") for name in MOST_TALKATIVE]


@pytest.mark.parametrize("name, cred_name", CASES)
def test_live_mode_only_reads_and_never_shows_a_credential(capsys, tmp_path, sent, name, cred_name):
    cred = credentials(tmp_path)[cred_name]
    build, expected = SCENARIOS[name]
    with RecordedApiServer(token=cred.server_token) as api:
        api.url_override = None
        args = [a.replace("{tmp}", str(tmp_path)) for a in build(api, tmp_path)]
        kubeconfig = cred.kubeconfig(tmp_path / "kubeconfig", api.url_override or api.url)
        code, out, err = run(capsys, [*args, "--kubeconfig", kubeconfig])
        if name == "unknown context":                # refused before any request
            assert sent == [] and api.requests == []
        elif name == "unreachable":                  # nothing arrives, and nothing but GET left
            assert {m for m, _ in sent} == {"GET"} and api.requests == []
        else:
            check_read_only(api, sent)
    assert code == expected, err
    if expected == 2:
        assert out == "" and err.count("\n") == 1 and err.startswith("error: "), err
    check_no_secret(cred, out, err, tmp_path, kubeconfig)


def test_kubectl_plugin_only_reads(capsys, tmp_path, sent, monkeypatch):
    cred = credentials(tmp_path)["token"]
    with RecordedApiServer(token=TOKEN) as api:
        kubeconfig = cred.kubeconfig(tmp_path / "kubeconfig", api.url)
        code, out, err = run(capsys, [CHECKOUT, "--kubeconfig", kubeconfig, "-o", "json"], kubectl=True,
                             monkeypatch=monkeypatch)
        check_read_only(api, sent)
    assert code == 1 and json.loads(out)["live"]["agrees"] is True
    check_no_secret(cred, out, err, tmp_path, kubeconfig)


@pytest.mark.parametrize("karpenter", [False, True])
def test_every_kind_read_is_listed_and_only_the_pod_is_got(capsys, tmp_path, sent, karpenter):
    """One `pod NAME` run reads each kind of RESOURCES with `list`, the pod with `get`, the
    autoscaler's node groups (CA's status ConfigMap, Cluster API) and DaemonSets, and on a
    cluster that serves them Karpenter's kinds: exactly what the ClusterRole grants, nothing
    more, nothing less."""
    cred = credentials(tmp_path)["token"]
    with RecordedApiServer(token=TOKEN) as api:
        if karpenter:
            api.add_collections("karpenter")
        kubeconfig = cred.kubeconfig(tmp_path / "kubeconfig", api.url)
        run(capsys, ["pod", CHECKOUT, "--kubeconfig", kubeconfig])
        needed = {rbac_verb(s.method, s.path) for s in api.requests} - {None}
    assert needed == ({("list", r.group, r.plural) for r in (*RESOURCES, DAEMONSETS, *(KARPENTER if karpenter else ()))}
                      | {("get", "", "pods")} | set(ACCESS))
    assert needed <= granted()


# --- the source --------------------------------------------------------------------------------------

WRITE_VERBS = {"POST", "PUT", "PATCH", "DELETE"}
WRITE_PREFIXES = ("create_", "patch_", "replace_", "delete_", "connect_post", "connect_put", "connect_patch",
                  "connect_delete")


@pytest.mark.parametrize("path", LIVE_SOURCES, ids=lambda p: p.name)
def test_live_source_never_writes(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            assert node.value.upper() not in WRITE_VERBS, f"{path.name}:{node.lineno}: {node.value!r}"
        if isinstance(node, ast.Attribute):
            assert not node.attr.startswith(WRITE_PREFIXES), f"{path.name}:{node.lineno}: .{node.attr}"
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("call_api", "param_serialize", "request"):
            verbs = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                     and a.value.isupper()]
            assert set(verbs) <= {"GET"}, f"{path.name}:{node.lineno}: {verbs}"


def test_the_client_is_asked_for_get_only():
    """Both ways kube_client.py (the one module that calls the API client) calls it (openapi-generator 7
    and older) name GET."""
    tree = ast.parse(LIVE_SOURCES[0].read_text())
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
             and getattr(n.func, "attr", "") in ("call_api", "param_serialize")]
    literal = [a.value for n in calls for a in n.args if isinstance(a, ast.Constant) and a.value in ("GET",)]
    assert len(literal) == 2, literal
