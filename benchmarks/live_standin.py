"""A stand-in kube-apiserver for live-mode benchmarks: the generated snapshot, plus pending pods.

Serves `generate.py`'s cluster.json on 127.0.0.1 as a real API server answers kexplain's
requests (the paths of `kexplain.load.live.RESOURCES` and `POLICIES`, paged with `limit` and
`continue` tokens and `remainingItemCount`, the scheduler's `fieldSelector` on pods, a get of
one pod, /version), with `--pending` pending pods of `--shapes` shapes added (Pending, PodScheduled
False: what `kexplain pod --pending -A` explains), and writes a kubeconfig for it. Each item
is serialised once at start-up and pages are joined from those bytes, so the server (another
process) costs kexplain's run little; it holds about the file's size in memory.

    .venv/bin/python benchmarks/live_standin.py CLUSTER.json --kubeconfig OUT [--port 0]
        [--pending 500] [--shapes 20]

It prints `ready <url>` once it listens, and serves until killed (SIGTERM or Ctrl-C).
"""
from __future__ import annotations

import argparse
import base64
import bisect
import copy
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from generate import pending_pod, plain_pod  # noqa: E402  (benchmarks/, beside this file)
from kexplain.load.live import POD_FIELD_SELECTOR, POLICIES, RESOURCES  # noqa: E402

VERSION = {"major": "1", "minor": "35", "gitVersion": "v1.35.4", "platform": "linux/amd64"}
CONDITION = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
             "lastTransitionTime": "2026-01-01T00:05:00Z",
             "message": "0/5000 nodes are available: see kexplain"}


def pending_pods(count: int, shapes: int) -> list[dict[str, Any]]:
    """`count` pending pods of `shapes` shapes, round robin: the benchmark's pending pod (it
    fits) and its unschedulable variant with other CPU requests, and the plain pod with other
    requests and pools; each Pending with PodScheduled False, as the scheduler leaves them."""
    kinds: list[dict[str, Any]] = []
    for s in range(shapes):
        if s % 3 == 2:
            pod = plain_pod()
            pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = f"{250 + 50 * s}m"
            pod["spec"]["nodeSelector"] = {"pool": ("general", "batch", "gpu")[s % 3]}
        else:
            pod = pending_pod(unschedulable=s % 3 == 1)
            if s % 3 == 0:
                pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = f"{500 + 100 * s}m"
        kinds.append(pod)
    out = []
    for i in range(count):
        pod = copy.deepcopy(kinds[i % shapes])
        meta = pod["metadata"]
        meta.update(name=f"{meta['name']}-{i:04d}", uid=f"00000000-0000-4000-9000-{i:012d}",
                    resourceVersion=str(900000 + i), creationTimestamp="2026-01-01T00:04:00Z")
        meta["labels"] = {**meta.get("labels", {}), "shape": f"s{i % shapes:02d}"}
        pod["spec"].setdefault("schedulerName", "default-scheduler")
        pod["spec"].setdefault("priority", 100000 if pod["spec"].get("priorityClassName") else 0)
        pod["status"] = {"phase": "Pending", "conditions": [dict(CONDITION)]}
        out.append(pod)
    return out


class Collections:
    """Each served path's items, serialised once (without the kind and apiVersion a list leaves
    out), with what a field selector reads and the key a continue token resumes after."""

    def __init__(self, objects: list[dict[str, Any]]) -> None:
        served = (*RESOURCES, *POLICIES)
        paths = {(r.api_version, r.kind): r.path for r in served}
        self.kinds = {r.path: (r.kind + "List", r.api_version) for r in served}
        self.items: dict[str, list[tuple[bytes, str, str]]] = {r.path: [] for r in served}
        self.pods: dict[tuple[str, str], bytes] = {}
        for obj in objects:
            path = paths.get((obj.get("apiVersion"), obj.get("kind")))
            if path is None:
                continue
            meta = obj.get("metadata") or {}
            item = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind")}
            phase = (obj.get("status") or {}).get("phase") or ""
            self.items[path].append((json.dumps(item, separators=(",", ":")).encode(), phase,
                                     f"{meta.get('namespace', '')}/{meta.get('name', '')}"))
            if obj.get("kind") == "Pod":
                self.pods[(meta.get("namespace", ""), meta.get("name", ""))] = json.dumps(
                    obj, separators=(",", ":")).encode()
        for entries in self.items.values():
            entries.sort(key=lambda e: e[2])      # etcd's order: by key
        self.version = str(1_000_000 + len(objects))
        # per (path, field selector): the entries and their keys, for a continue token's bisect
        self.selected: dict[tuple[str, str], tuple[list[tuple[bytes, str, str]], list[str]]] = {}
        for path, entries in self.items.items():
            self.selected[(path, "")] = entries, [e[2] for e in entries]
            running = [e for e in entries if e[1] not in ("Succeeded", "Failed")]
            self.selected[(path, POD_FIELD_SELECTOR)] = running, [e[2] for e in running]

    def page(self, path: str, query: dict[str, list[str]]) -> bytes:
        selector = query.get("fieldSelector", [""])[0]
        if (path, selector) not in self.selected:
            raise ValueError(f"unsupported field selector {selector!r}")
        entries, keys = self.selected[(path, selector)]
        start = 0
        token = query.get("continue", [""])[0]
        if token:
            after = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))["start"]
            start = bisect.bisect_right(keys, after)
        limit = int(query.get("limit", ["0"])[0] or 0)
        chosen = entries[start:start + limit] if limit else entries[start:]
        meta: dict[str, Any] = {"resourceVersion": self.version}
        rest = len(entries) - start - len(chosen)
        if rest > 0:
            raw = json.dumps({"v": "meta.k8s.io/v1", "rv": int(self.version), "start": chosen[-1][2]})
            meta["continue"] = base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")
            meta["remainingItemCount"] = rest
        kind, api_version = self.kinds[path]
        head = json.dumps({"kind": kind, "apiVersion": api_version, "metadata": meta}, separators=(",", ":"))
        return head[:-1].encode() + b',"items":[' + b",".join(e[0] for e in chosen) + b"]}"


def _status(code: int, reason: str, message: str) -> bytes:
    return json.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                       "message": message, "reason": reason, "code": code}).encode()


def handler(collections: Collections) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def do_GET(self) -> None:   # noqa: N802 (http.server's name)
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            code, body = 200, b""
            parts = url.path.strip("/").split("/")
            if url.path in ("/version", "/version/"):
                body = json.dumps(VERSION).encode()
            elif url.path in collections.items:
                body = collections.page(url.path, query)
            elif len(parts) == 6 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "pods" \
                    and (parts[3], parts[5]) in collections.pods:
                body = collections.pods[(parts[3], parts[5])]
            else:
                code, body = 404, _status(404, "NotFound", "the server could not find the requested resource")
            try:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args: object) -> None:
            pass
    return Handler


def write_kubeconfig(path: Path, server: str) -> None:
    doc = {"apiVersion": "v1", "kind": "Config", "current-context": "bench",
           "clusters": [{"name": "bench", "cluster": {"server": server}}],
           "users": [{"name": "bench", "user": {"token": "bench-token"}}],
           "contexts": [{"name": "bench", "context": {"cluster": "bench", "user": "bench", "namespace": "team-00"}}]}
    path.write_text(json.dumps(doc), encoding="utf-8")


def serve(cluster: Path, kubeconfig: Path, port: int = 0, pending: int = 500, shapes: int = 20) -> None:
    with open(cluster, encoding="utf-8") as fh:
        objects = json.load(fh)["items"]
    objects += pending_pods(pending, shapes) if pending else []
    collections = Collections(objects)
    del objects
    server = ThreadingHTTPServer(("127.0.0.1", port), handler(collections))
    server.daemon_threads = True
    url = f"http://127.0.0.1:{server.server_address[1]}"
    write_kubeconfig(kubeconfig, url)
    print(f"ready {url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cluster", type=Path)
    parser.add_argument("--kubeconfig", type=Path, required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--pending", type=int, default=500)
    parser.add_argument("--shapes", type=int, default=20)
    args = parser.parse_args(argv)
    import signal
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    serve(args.cluster, args.kubeconfig, args.port, args.pending, args.shapes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
