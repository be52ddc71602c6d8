"""A stand-in kube-apiserver for the live-mode tests: `http.server` in a thread on 127.0.0.1
(random port) serving recorded API responses from tests/data/live/.

It answers as a real API server does, for what kexplain asks: collection lists (paged with
`limit` and `continue` tokens, `remainingItemCount`, `fieldSelector` on fields such as
`status.phase`), a get of one pod (or of an object a test puts in `objects`), /version (the
recorded one, or the gitVersion a test chooses), and the API group list of /apis (the groups of
the recorded collections; a test adds more with `add_collections`); 404 Status bodies for
anything else. Tests inject the recorded failures: 401 for every request, 403 on one path, 410
Expired on the next continue request of a path, a delay.
Every request is recorded (method, path, query, headers), so a test can assert that only GETs
were made and what was sent.
"""
from __future__ import annotations

import base64
import json
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from contextlib import contextmanager
from typing import Any, Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from kexplain.cli.app import main
from tests.support.paths import DATA

DATA = DATA / "live"
ERRORS = DATA / "errors"
TOKEN = "t0ken-DO-NOT-PRINT"        # the recorded cluster's bearer token, never to be printed
POD_PATH = "/api/v1/pods"
APIS_PATH = "/apis"


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]


# What a namespace's `view`/`edit` RoleBinding lets a user read there (namespaced kinds).
NAMESPACE_VIEW = frozenset({"pods", "events", "persistentvolumeclaims", "services", "replicasets", "statefulsets",
                            "replicationcontrollers", "poddisruptionbudgets", "resourceclaims",
                            "resourceclaimtemplates", "namespaces", "limitranges", "resourcequotas",
                            "horizontalpodautoscalers"})


@dataclass
class Rbac:
    """What one user may read, as kube-apiserver's RBAC authorizer decides: `cluster` the
    resources (plural names) it may get and list at the cluster scope (every namespace),
    `namespaced` those it may read in each of `namespaces` (a RoleBinding there; `namespaces`
    in it allows the get of that namespace itself)."""

    user: str = "alice@example.com"
    cluster: frozenset[str] = frozenset()
    namespaced: frozenset[str] = NAMESPACE_VIEW
    namespaces: frozenset[str] = frozenset({"shop"})

    def refusal(self, path: str) -> dict[str, Any] | None:
        """The 403 Status body RBAC answers a GET of `path` with, None when it is allowed."""
        parts = path.strip("/").split("/")
        if parts[:1] == ["api"]:
            group, rest = "", parts[2:]
        elif parts[:1] == ["apis"] and len(parts) > 3:
            group, rest = parts[1], parts[3:]
        else:
            return None                               # /version and the like: anyone
        namespace = name = None
        if len(rest) >= 3 and rest[0] == "namespaces":
            namespace, rest = rest[1], rest[2:]
        elif len(rest) == 2 and rest[0] == "namespaces":   # GET of a namespace: checked in it
            namespace, rest = rest[1], rest[:1]
            name = namespace
        plural = rest[0] if rest else ""
        if len(rest) > 1:
            name = rest[1]
        verb = "get" if name else "list"
        if plural in self.cluster or (namespace in self.namespaces and plural in self.namespaced):
            return None
        what = f"{plural}.{group}" if group else plural
        subject = f'{what} "{name}"' if name else what
        scope = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
        details: dict[str, Any] = {"kind": plural, **({"group": group} if group else {}),
                                   **({"name": name} if name else {})}
        return {**_status(403, "Forbidden", f'{subject} is forbidden: User "{self.user}" cannot {verb} resource '
                                            f'"{plural}" in API group "{group}" {scope}'), "details": details}


@dataclass
class Faults:
    unauthorized: bool = False
    rbac: Rbac | None = None           # a user RBAC lets read only part of the cluster
    forbidden: dict[str, str] = field(default_factory=dict)    # path -> recorded error file
    expire: dict[str, int] = field(default_factory=dict)       # path -> continue requests to refuse (410)
    delay: dict[str, float] = field(default_factory=dict)      # path -> seconds before answering


class RecordedApiServer:
    """`with RecordedApiServer() as api:` ... `api.url`, `api.requests`, `api.faults`."""

    def __init__(self, scenario: str = "cluster", token: str | None = None,
                 tls: ssl.SSLContext | None = None, git_version: str | None = None) -> None:
        root = DATA / scenario
        self.collections: dict[str, dict[str, Any]] = {
            "/" + str(p.relative_to(root).with_suffix("")): json.loads(p.read_text())
            for p in root.rglob("*.json") if p.name != "version.json"}
        self.version = json.loads((root / "version.json").read_text())
        self.objects: dict[str, dict[str, Any]] = {}      # path -> one object a test serves to a get
        if git_version is not None:
            self.serve_version(git_version)
        self.token = token
        self.faults = Faults()
        self.requests: list[Seen] = []
        self._lock = threading.Lock()
        self._tls = tls
        self._server: ThreadingHTTPServer | None = None

    # -- lifecycle ---------------------------------------------------------------------
    def __enter__(self) -> "RecordedApiServer":
        handler = type("Handler", (_Handler,), {"api": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        if self._tls is not None:
            self._server.socket = self._tls.wrap_socket(self._server.socket, server_side=True)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"{'https' if self._tls else 'http'}://127.0.0.1:{self.port}"

    def add_collections(self, scenario: str) -> None:
        """Serve the collections of tests/data/live/`scenario` too (say, Karpenter's kinds and
        the DaemonSets beside the recorded cluster's)."""
        root = DATA / scenario
        self.collections.update({"/" + str(p.relative_to(root).with_suffix("")): json.loads(p.read_text())
                                 for p in root.rglob("*.json") if p.name != "version.json"})

    def serve_version(self, git_version: str) -> None:
        """Answer /version as an API server of `git_version` ("v1.36.3", "v1.30.0-gke.1")
        would: its gitVersion, and the major and minor it starts with."""
        major, _, rest = git_version.lstrip("v").partition(".")
        minor = rest.split(".")[0]
        self.version = {**self.version, "major": major, "minor": minor, "emulationMajor": major,
                        "emulationMinor": minor, "gitVersion": git_version}

    # -- what was asked ------------------------------------------------------------------
    def record(self, seen: Seen) -> None:
        with self._lock:
            self.requests.append(seen)

    @property
    def methods(self) -> set[str]:
        return {r.method for r in self.requests}

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]

    # -- answers ---------------------------------------------------------------------------
    def answer(self, seen: Seen) -> tuple[int, dict[str, Any]]:
        if seen.method != "GET":
            return 405, _status(405, "MethodNotAllowed",
                                "the server does not allow this method on the requested resource")
        auth = seen.headers.get("authorization")
        if self.faults.unauthorized or (self.token and not _bearer_is(auth, self.token)):
            return 401, _recorded("unauthorized.json")
        if seen.path in self.faults.delay:
            time.sleep(self.faults.delay[seen.path])
        if seen.path in self.faults.forbidden:
            return 403, _recorded(self.faults.forbidden[seen.path])
        refused = self.faults.rbac.refusal(seen.path) if self.faults.rbac is not None else None
        if refused is not None:
            return 403, refused
        if seen.path in ("/version", "/version/"):
            return 200, self.version
        if seen.path == APIS_PATH and APIS_PATH not in self.collections:
            return 200, self.api_groups()
        if seen.path in self.collections:
            return self._list(seen, seen.path)
        if seen.path in self.objects:
            return 200, self.objects[seen.path]
        parts = seen.path.strip("/").split("/")
        if len(parts) == 6 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "pods":
            return self._get_pod(parts[3], parts[5])
        if len(parts) == 4 and parts[:3] == ["api", "v1", "namespaces"]:
            return self._get_namespace(parts[3])
        scoped = _namespaced(seen.path)
        if scoped is not None and scoped[0] in self.collections:
            return self._list(seen, scoped[0], scoped[1])
        return 404, _status(404, "NotFound", "the server could not find the requested resource")

    def api_groups(self) -> dict[str, Any]:
        """The APIGroupList of GET /apis (the discovery every authenticated user may read): each
        group of the recorded collections (`/apis/GROUP/VERSION/...`) with its versions, the
        first one the preferred, as kube-apiserver answers a plain `Accept: application/json`."""
        versions: dict[str, list[str]] = {}
        for path in self.collections:
            parts = path.strip("/").split("/")
            if parts[0] == "apis" and len(parts) >= 4 and parts[2] not in versions.setdefault(parts[1], []):
                versions[parts[1]].append(parts[2])
        groups = [{"name": group, "versions": [{"groupVersion": f"{group}/{v}", "version": v} for v in found],
                   "preferredVersion": {"groupVersion": f"{group}/{found[0]}", "version": found[0]}}
                  for group, found in versions.items()]
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}

    def _get_namespace(self, name: str) -> tuple[int, dict[str, Any]]:
        for item in self.collections["/api/v1/namespaces"]["items"]:
            if item["metadata"]["name"] == name:
                return 200, {"kind": "Namespace", "apiVersion": "v1", **item}
        return 404, {**_status(404, "NotFound", f'namespaces "{name}" not found'),
                     "details": {"name": name, "kind": "namespaces"}}

    def _list(self, seen: Seen, collection: str, namespace: str | None = None) -> tuple[int, dict[str, Any]]:
        body = self.collections[collection]
        items = [i for i in body["items"] if _fields_match(i, seen.query.get("fieldSelector", [""])[0])
                 and (namespace is None or i["metadata"].get("namespace") == namespace)]
        token = seen.query.get("continue", [""])[0]
        start = 0
        if token:
            with self._lock:
                left = self.faults.expire.get(seen.path, 0)
                if left:
                    self.faults.expire[seen.path] = left - 1
                    return 410, _recorded("expired.json")
            after = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))["start"].rstrip("\x00")
            start = next((n for n, i in enumerate(items) if _key(i) > after), len(items))
        limit = int(seen.query.get("limit", ["0"])[0] or 0)
        page = items[start:start + limit] if limit else items[start:]
        meta: dict[str, Any] = {"resourceVersion": body["metadata"]["resourceVersion"]}
        rest = len(items) - start - len(page)
        if rest > 0:
            start_key = _key(page[-1]) + "\x00"
            raw = json.dumps({"v": "meta.k8s.io/v1", "rv": int(meta["resourceVersion"]), "start": start_key})
            meta["continue"] = base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")
            meta["remainingItemCount"] = rest
        return 200, {"kind": body["kind"], "apiVersion": body["apiVersion"], "metadata": meta, "items": page}

    def _get_pod(self, namespace: str, name: str) -> tuple[int, dict[str, Any]]:
        for item in self.collections[POD_PATH]["items"]:
            meta = item["metadata"]
            if meta.get("namespace") == namespace and meta.get("name") == name:
                return 200, {"kind": "Pod", "apiVersion": "v1", **item}
        status = _status(404, "NotFound", f'pods "{name}" not found')
        return 404, {**status, "details": {"name": name, "kind": "pods"}}


class _Handler(BaseHTTPRequestHandler):
    api: RecordedApiServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True     # headers and body leave at once (no 40 ms delayed-ACK stalls)

    def _serve(self) -> None:
        url = urlsplit(self.path)
        seen = Seen(self.command, url.path, parse_qs(url.query),
                    {k.lower(): v for k, v in self.headers.items()})
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self.api.record(seen)
        code, body = self.api.answer(seen)
        data = json.dumps(body).encode()
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Audit-Id", "3f2c1b0a-0000-4000-8000-000000000000")
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):   # the client gave up (timeout tests)
            pass

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

    def log_message(self, *args: object) -> None:
        pass


def _namespaced(path: str) -> tuple[str, str] | None:
    """(the cluster-wide collection, the namespace) of a namespaced list path."""
    parts = path.strip("/").split("/")
    at = 2 if parts[:1] == ["api"] else 3
    if len(parts) == at + 3 and parts[at] == "namespaces":
        return "/" + "/".join(parts[:at] + parts[at + 2:]), parts[at + 1]
    return None


def _bearer_is(header: str | None, token: str) -> bool:
    """`Authorization: Bearer <token>`, the scheme case-insensitive as the API server reads it."""
    scheme, _, value = (header or "").partition(" ")
    return scheme.lower() == "bearer" and value.strip() == token


def _recorded(name: str) -> dict[str, Any]:
    return json.loads((ERRORS / name).read_text())


def _status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code}


def _key(item: dict[str, Any]) -> str:
    meta = item["metadata"]
    return f"{meta.get('namespace', '')}/{meta['name']}"


# Field labels the API server maps to another field (an Event's `source` is its source's component).
FIELD_ALIASES = {"source": "source.component"}


def _fields_match(item: dict[str, Any], selector: str) -> bool:
    """`a.b=v`, `a.b==v`, `a.b!=v`, comma-separated, as the API server's field selectors."""
    for term in filter(None, selector.split(",")):
        negate = "!=" in term
        path, value = term.replace("!=", "=").replace("==", "=").split("=", 1)
        node: Any = item
        path = FIELD_ALIASES.get(path, path)
        for part in path.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if ((node or "") == value) == negate:
            return False
    return True


def write_kubeconfig(path: Path, server: str, *, token: str = TOKEN, namespace: str = "shop",
                     context: str = "prod", extra_contexts: tuple[str, ...] = ()) -> Path:
    """A kubeconfig with one cluster and a bearer-token user, current context `context`."""
    contexts = [{"name": name, "context": {"cluster": "c", "user": "u", "namespace": namespace}}
                for name in (context, *extra_contexts)]
    doc = {"apiVersion": "v1", "kind": "Config", "current-context": context,
           "clusters": [{"name": "c", "cluster": {"server": server}}],
           "users": [{"name": "u", "user": {"token": token}}],
           "contexts": contexts}
    path.write_text(json.dumps(doc))
    return path


CLUSTER_ENV = ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT")


def isolate(monkeypatch: Any, home: Path, *unset: str) -> None:
    """No real kubeconfig, no in-cluster environment, no colour: HOME is `home` (made here);
    `unset` names more variables to clear."""
    home.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    for name in (*CLUSTER_ENV, *unset):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_COLOR", "1")


@contextmanager
def recorded_api(folder: Path, token: str = TOKEN, scenario: str = "cluster", git_version: str | None = None, *,
                 collections: tuple[str, ...] = (), rbac: Rbac | None = None) -> Iterator[RecordedApiServer]:
    """The stand-in API server with a kubeconfig for it in `folder` (its path as `.kubeconfig`),
    serving the `collections` scenarios' too (`add_collections`), as `rbac` allows when given;
    on leaving, it asserts that only GETs were made."""
    with RecordedApiServer(scenario, token=token, git_version=git_version) as server:
        server.kubeconfig = str(write_kubeconfig(folder / "kubeconfig", server.url, token=token))
        for more in collections:
            server.add_collections(more)
        if rbac is not None:
            server.faults.rbac = rbac
        yield server
        assert server.methods <= {"GET"}, "kexplain must only read"


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`isolate` for every test of a module that imports this fixture (autouse there)."""
    isolate(monkeypatch, tmp_path / "home")


@pytest.fixture
def api(tmp_path: Path) -> Iterator[RecordedApiServer]:
    """The recorded cluster as it is (`recorded_api`)."""
    with recorded_api(tmp_path) as server:
        yield server


def run_cli(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    """`kexplain ARGS` in this process: exit code, stdout, stderr; the recorded cluster's token
    in neither."""
    code = main(list(args))
    out, err = capsys.readouterr()
    assert TOKEN not in out + err
    return code, out, err
