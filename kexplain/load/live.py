"""Reading a live cluster: the pod to explain and every object the scheduler's plugins read.

Through the official `kubernetes` client with `get` and `list` only (deploy/rbac.yaml), bodies parsed
from the raw JSON so objects keep the API's own field names; they were stored by the API server, so
admission must not run on them again (`stored=True`). A failure a user can act on becomes one
`LiveError` line, never a credential. What is read and how: docs/internals/load.md.
"""
from __future__ import annotations

import json
import functools
import os
import queue
import re
import threading
from contextlib import contextmanager
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any, Callable, Iterable, Iterator
from urllib.parse import quote, urlsplit, urlunsplit

from kexplain.apimachinery import columns
from kexplain.errors import KexplainError, Source
from kexplain.apimachinery import pod_lists, stored_pods
from kexplain.load import json_parse
from kexplain.load.client_errors import ApiStatus, ClientConfigError, Unreachable
from kexplain.load.gcpolicy import bulk_load

DEFAULT_CHUNK_SIZE = 500          # kubectl's --chunk-size
DEFAULT_TIMEOUT = 30.0            # seconds per request
MAX_RELISTS = 3                   # a list whose continue token keeps expiring
POD_FIELD_SELECTOR = "status.phase!=Succeeded,status.phase!=Failed"   # as kube-scheduler's informer
SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
SERVICE_HOST_ENV = "KUBERNETES_SERVICE_HOST"

Obj = dict[str, Any]
Progress = Callable[[str, int, "int | None"], None]   # (resource, items read, total when known)


class _Expired(Exception):
    """A continue token the API server no longer honours (410): list again from the start."""


_UNASKED = object()      # the API group list, before it is read


class _NotServed(Exception):
    """An optional kind at a version the API server does not serve (404): try the next one."""


class LiveError(KexplainError):
    """The cluster could not be read: no kubeconfig, refused credentials, no permission,
    unreachable, too slow. One line, exit code 2."""


class Forbidden(LiveError):
    """A 403: RBAC refused one read. Fatal where the read is needed; `read_allowed` records it
    as a `Refusal` and goes on with what is readable."""

    def __init__(self, message: str, refusal: "Refusal") -> None:
        super().__init__(message)
        self.refusal = refusal


@dataclass(frozen=True)
class Refusal:
    """One read RBAC refused: the verb, the resource, where (None: the cluster scope), and the
    API server's own words."""

    resource: "Resource"
    verb: str
    namespace: str | None = None
    said: str = ""

    @property
    def scope(self) -> str:
        return f'in the namespace "{self.namespace}"' if self.namespace else "at the cluster scope"

    def to_json(self) -> Obj:
        res = self.resource
        return {"verb": self.verb, "resource": res.plural, "apiGroup": res.group, "namespace": self.namespace,
                "adds": res.adds, "rule": {"apiGroups": [res.group], "resources": [res.plural],
                                           "verbs": ["get", "list"]},
                "roleKind": "Role" if self.namespace else "ClusterRole", "message": self.said}


@dataclass(frozen=True)
class Resource:
    """One kind kexplain reads, how the client lists it, and what RBAC must allow."""

    kind: str
    plural: str        # the RBAC resource name
    group: str         # the API group ("" = core)
    version: str
    fallbacks: tuple[str, ...] = ()    # versions to read when `version` is not served (404)
    optional: bool = False             # a cluster that serves no version has none of them
    namespaced: bool = False           # listed in one namespace when the cluster scope is refused
    adds: str = ""                     # what reading it adds to an answer (said when it is refused)

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def path(self) -> str:
        """The cluster-wide collection (every namespace for namespaced kinds)."""
        root = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        return f"{root}/{self.plural}"

    def path_in(self, namespace: str) -> str:
        """The collection of one namespace (a namespaced kind)."""
        root = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        return f"{root}/namespaces/{quote(namespace, safe='')}/{self.plural}"

    @property
    def group_label(self) -> str:
        return f'API group "{self.group}"'


def _resources() -> dict[str, tuple[Resource, ...]]:
    """The kinds kexplain reads, by group (data/resources.json), each in the order it is read."""
    raw = json.loads(resources.files(__package__).joinpath("data", "resources.json").read_text(encoding="utf-8"))
    return {group: tuple(Resource(**{**entry, "fallbacks": tuple(entry.get("fallbacks", ()))}) for entry in entries)
            for group, entries in raw.items()}


_READ = _resources()
# Everything the pipeline reads, in the order it is read and written to a snapshot.
RESOURCES: tuple[Resource, ...] = _READ["RESOURCES"]
PODS = next(r for r in RESOURCES if r.plural == "pods")
NAMESPACES = RESOURCES[0]
# Outside RESOURCES, so that a refusal is said, never a partial read of the cluster: the DaemonSets
# (only the Cluster Autoscaler's template nodes read them), the events (for a user who cannot read
# the cluster), Karpenter's and Kueue's kinds (read when the API group list shows their group:
# `ClusterReader.read_karpenter`, `read_kueue`) and the namespaces' policies and HPAs (read for
# `kexplain snapshot` only: a stored pod has met them already; `ClusterReader.read_policies`).
DAEMONSETS, = _READ["DAEMONSETS"]
EVENTS, = _READ["EVENTS"]
KARPENTER: tuple[Resource, ...] = _READ["KARPENTER"]
KUEUE: tuple[Resource, ...] = _READ["KUEUE"]
KUEUE_CONFIG, = _READ["KUEUE_CONFIG"]
KUEUE_NAMESPACE = "kueue-system"          # where Kueue's manifests install it
KUEUE_CONFIG_MAP = "kueue-manager-config"  # its manager's --config, key controller_manager_config.yaml
POLICIES: tuple[Resource, ...] = _READ["POLICIES"]
VOLCANO: tuple[Resource, ...] = _READ["VOLCANO"]     # read when /apis shows their groups: `read_volcano`
VOLCANO_CONFIG, = _READ["VOLCANO_CONFIG"]
VOLCANO_NAMESPACE = "volcano-system"                  # where Volcano's chart installs its scheduler
VOLCANO_CONFIG_MAP = "volcano-scheduler-configmap"    # its --scheduler-conf, key volcano-scheduler.conf
KARPENTER_SOURCE = "karpenter"    # the component of Karpenter's event recorder (operator.AppName)
APIS_PATH = "/apis"       # the API group list (discovery, readable by every authenticated user)


def is_karpenter_event(event: Obj) -> bool:
    """An Event Karpenter's recorder wrote (its source component, or the reporting one of events.k8s.io)."""
    source = event.get("source")
    component = source.get("component") if isinstance(source, dict) else None
    return KARPENTER_SOURCE in (component, event.get("reportingComponent"))


@dataclass(frozen=True)
class PolicyRead:
    """What reading POLICIES learnt: the refused reads and notes (a kind read in one namespace, or not)."""

    refusals: tuple[Refusal, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class KarpenterRead:
    """What reading Karpenter's kinds learnt: whether karpenter.sh/v1 is served, the refused reads, notes
    (Kueue's read says the same of kueue.x-k8s.io/v1beta2), and the kinds not served at the version
    kexplain reads, each with the versions its group is served at instead (none: not at all)."""

    installed: bool = False
    refusals: tuple[Refusal, ...] = ()
    notes: tuple[str, ...] = ()
    unserved: tuple[tuple[Resource, tuple[str, ...]], ...] = ()

    def require(self, plurals: Iterable[str], where: str, served: Iterable[str] = ()) -> None:
        """For a command that cannot answer without these kinds (`kexplain karpenter --disruption`
        live): a refused read of one of `plurals` ends it as a refused list of RESOURCES ends
        `read_cluster` (`refused_error`: every such read, the rules that grant them), and so does one
        of `served` the API server does not serve at the version read (404, or not in the group list)."""
        needed = set(plurals)
        refused = [r for r in self.refusals if r.resource.plural in needed]
        if refused:
            raise refused_error(refused)
        missing = [(res, versions) for res, versions in self.unserved if res.plural in set(served)]
        if missing:
            raise unserved_error(missing, where)


# --- connecting -----------------------------------------------------------------------------

@dataclass
class Connection:
    """An API client and where it points; `namespace` is the context's (or the pod's own
    service account namespace in a cluster), `default` when neither says."""

    api_client: Any
    server: str
    namespace: str
    context: str | None = None     # None: in-cluster configuration

    @property
    def where(self) -> str:
        who = f'context "{self.context}"' if self.context is not None else "in-cluster configuration"
        return f"{self.server} ({who})"


def safe_url(url: str) -> str:
    """The server URL without any user:password part."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "the API server"
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def kubeconfig_paths(explicit: str | None) -> tuple[list[str], str]:
    """The kubeconfig files to read (existing ones) and how they were chosen, for messages."""
    if explicit:
        return ([explicit] if os.path.exists(os.path.expanduser(explicit)) else []), f"--kubeconfig {explicit}"
    env = os.environ.get("KUBECONFIG")
    if env:
        paths = [p for p in env.split(os.pathsep) if p]
        return [p for p in paths if os.path.exists(os.path.expanduser(p))], f"KUBECONFIG={env}"
    default = os.path.join(os.path.expanduser("~"), ".kube", "config")
    return ([default] if os.path.exists(default) else []), default


def in_cluster() -> bool:
    return bool(os.environ.get(SERVICE_HOST_ENV)) and os.path.exists(os.path.join(SA_DIR, "token"))


def _client() -> Any:
    """The `kubernetes` client's calls (`load.kube_client`), imported on first connect: the client costs
    about 0.2 s, which a run on files never pays."""
    from kexplain.load import kube_client
    return kube_client


def connect(kubeconfig: str | None = None, context: str | None = None) -> Connection:
    """A client from the kubeconfig (--kubeconfig, $KUBECONFIG, ~/.kube/config) or, when there
    is none and kexplain runs in a pod, from the pod's service account."""
    client = _client()
    cfg = client.configuration()
    paths, chosen = kubeconfig_paths(kubeconfig)
    if paths:
        context, namespace = _load_kubeconfig(cfg, paths, chosen, context)
    elif kubeconfig or os.environ.get("KUBECONFIG"):
        raise LiveError(f"kubeconfig not found: {chosen} does not exist")
    elif context is None and in_cluster():
        namespace = _load_in_cluster(cfg)
    else:
        extra = f' (asked for context "{context}")' if context else ""
        raise LiveError(f"no kubeconfig: {chosen} does not exist, KUBECONFIG is not set{extra} and "
                        "kexplain is not running in a cluster; pass --kubeconfig FILE")
    return Connection(client.api_client(cfg), safe_url(cfg.host), namespace or "default", context)


def _load_kubeconfig(cfg: Any, paths: list[str], chosen: str,
                     context: str | None) -> tuple[str, str]:
    joined = os.pathsep.join(paths)
    try:
        contexts, current = _client().list_contexts(joined)
    except ClientConfigError as err:
        raise LiveError(f"cannot read the kubeconfig {chosen}: {_first_line(err.error)}") from None
    names = [c.get("name") for c in contexts or []]
    name = context or (current or {}).get("name")
    if not name:
        raise LiveError(f"the kubeconfig {chosen} has no current context; pass --context "
                        f"(one of: {', '.join(map(str, names)) or 'none'})")
    if name not in names:
        raise LiveError(f'context "{name}" not found in the kubeconfig {chosen} '
                        f"(it has: {', '.join(map(str, names)) or 'none'})")
    entry = next(c for c in contexts if c.get("name") == name)
    namespace = ((entry.get("context") or {}).get("namespace")) or "default"
    try:
        _client().load_kubeconfig(cfg, joined, name)
    except ClientConfigError as err:
        raise LiveError(f'cannot use context "{name}" of the kubeconfig {chosen}: {_first_line(err.error)}') from None
    return name, namespace


def _load_in_cluster(cfg: Any) -> str:
    try:
        _client().load_in_cluster(cfg, os.path.join(SA_DIR, "token"), os.path.join(SA_DIR, "ca.crt"))
    except ClientConfigError as err:
        raise LiveError(f"cannot use the in-cluster configuration: {_first_line(err.error)}") from None
    try:
        with open(os.path.join(SA_DIR, "namespace"), encoding="utf-8") as fh:
            return fh.read().strip() or "default"
    except OSError:
        return "default"


def _and(words: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _first_line(err: BaseException) -> str:
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0]


# --- reading ----------------------------------------------------------------------------------

class ClusterReader:
    """get and list against one API server, paged, with errors turned into one line."""

    def __init__(self, conn: Connection, chunk_size: int = DEFAULT_CHUNK_SIZE,
                 timeout: float = DEFAULT_TIMEOUT, progress: Progress | None = None, finished: bool = False) -> None:
        self.conn = conn
        self.chunk_size = max(1, chunk_size)
        self.timeout = timeout
        self.progress = progress
        self._groups: object = _UNASKED
        # The pods listed: the scheduler's informer's (unfinished), or with `finished` every pod, as
        # Karpenter's informer holds them (its disruption cost counts Succeeded and Failed pods too).
        self.pod_fields = "" if finished else POD_FIELD_SELECTOR

    def get_pod(self, namespace: str, name: str) -> Obj:
        """The pod as stored, with its kind and apiVersion."""
        path = f"/api/v1/namespaces/{quote(namespace, safe='')}/pods/{quote(name, safe='')}"
        with self._errors("get", PODS, namespace=namespace, name=name):
            obj = self._get(path)
        return _stored(obj, PODS)

    def get_optional(self, res: Resource, namespace: str, name: str) -> Obj | None:
        """One object of a namespaced kind as stored, None when there is none (404: no such
        object, or the kind is not served); other failures as for `list`."""
        path = (f"{res.path.rsplit('/', 1)[0]}/namespaces/{quote(namespace, safe='')}/{res.plural}/"
                f"{quote(name, safe='')}")
        try:
            with self._errors("get", replace(res, optional=True), namespace=namespace, name=name):
                obj = self._get(path)
        except _NotServed:
            return None
        return _stored(obj, res)

    def list(self, res: Resource) -> list[Obj]:
        """Every object of a kind, cluster-wide, in the API server's order."""
        return self._collect(res, self._list_events(res))

    def list_served(self, res: Resource) -> list[Obj]:
        """`list`, at the first of the kind's versions the API server serves; for an optional
        kind no version served means no objects."""
        return self._collect(res, self._served_events(res))

    def api_groups(self) -> dict[str, tuple[str, ...]] | None:
        """The served API groups with their versions (GET /apis, once per reader); None when the server does
        not say (403, 404): then every optional kind is listed."""
        if self._groups is _UNASKED:
            self._groups = self._read_api_groups()
        return self._groups      # type: ignore[return-value]

    def serves_karpenter(self) -> bool:
        """Whether the API group list shows karpenter.sh at v1 (False when it does not say)."""
        groups = self.api_groups()
        return groups is not None and KARPENTER[0].version in groups.get(KARPENTER[0].group, ())

    def _read_api_groups(self) -> dict[str, tuple[str, ...]] | None:
        with self._errors("get", None, path=APIS_PATH):
            try:
                body = self._decoded(self._fetch(APIS_PATH), APIS_PATH)
            except ApiStatus as err:
                if err.status in (403, 404):
                    return None
                raise
        groups: dict[str, tuple[str, ...]] = {}
        for group in body.get("groups") or []:
            if isinstance(group, dict) and isinstance(group.get("name"), str):
                groups[group["name"]] = tuple(v["version"] for v in group.get("versions") or []
                                              if isinstance(v, dict) and isinstance(v.get("version"), str))
        return groups

    def _list_into(self, res: Resource, out: list[tuple[Obj, Source]], refusals: list[Refusal]) -> bool:
        """List `res` into `out`, each object with its source; a refused list (403) joins
        `refusals` instead of ending the read. False when no version of an optional kind is served."""
        try:
            items = self.list_served(res) if not res.optional else self._served_or_none(res)
        except Forbidden as err:
            refusals.append(err.refusal)
            return True
        if items is None:
            return False
        src = Source(f"{self.conn.server}{res.path}")
        out.extend((obj, src) for obj in items)
        return True

    def _served_or_none(self, res: Resource) -> list[Obj] | None:
        """`list_served` of an optional kind, None when the API server serves none of its versions."""
        served: list[bool] = []

        def events() -> Iterator[_Event]:
            for event in self._served_events(res):
                served.append(event[0] != "restart")
                yield event
        items = self._collect(res, events())
        return items if any(served) or not served else None

    def read_karpenter(self) -> tuple[list[tuple[Obj, Source]], KarpenterRead]:
        """Karpenter's kinds (KARPENTER), listed only when the API group list shows their group at v1;
        a refusal (403) is kept as a `Refusal`, an older served version is a note."""
        groups = self.api_groups()
        out: list[tuple[Obj, Source]] = []
        refusals: list[Refusal] = []
        notes: list[str] = []
        unserved: list[tuple[Resource, tuple[str, ...]]] = []
        for res in KARPENTER:
            versions = groups.get(res.group) if groups is not None else (res.version,)
            if not versions:
                unserved.append((res, ()))
                continue
            if res.version not in versions:
                note = (f"{res.group} is served at {', '.join(versions)} only, not {res.version} (Karpenter before "
                        f"v1.0): its objects are not read, kexplain reads {res.api_version}")
                if note not in notes:
                    notes.append(note)
                unserved.append((res, tuple(versions)))
                continue
            if not self._list_into(res, out, refusals):      # 404: its CRD is not installed
                unserved.append((res, ()))
        if groups is not None:
            installed = KARPENTER[0].version in groups.get(KARPENTER[0].group, ())
        else:       # no group list: only what was read says so (RBAC refuses a kind that does not exist too)
            installed = bool(out)
        return out, KarpenterRead(installed, tuple(refusals), tuple(notes), tuple(unserved))

    def read_kueue(self) -> tuple[list[tuple[Obj, Source]], KarpenterRead]:
        """Kueue's objects (KUEUE), listed when the API group list shows kueue.x-k8s.io at v1beta2, and its
        manager ConfigMap (KUEUE_CONFIG, got in KUEUE_NAMESPACE: the Configuration); as `read_karpenter`
        for refusals and older versions. A kind of a served group that is not served (its CRD missing) is
        a note; one of a group not served at all (no ProvisioningRequest CRD) is not asked."""
        groups = self.api_groups()
        versions = groups.get(KUEUE[0].group) if groups is not None else (KUEUE[0].version,)
        if not versions:
            return [], KarpenterRead()
        if KUEUE[0].version not in versions:
            return [], KarpenterRead(notes=(f"{KUEUE[0].group} is served at {', '.join(versions)} only, not "
                                            f"{KUEUE[0].version}: its objects are not read, kexplain reads "
                                            f"{KUEUE[0].api_version}",))
        out: list[tuple[Obj, Source]] = []
        refusals: list[Refusal] = []
        notes: list[str] = []
        for res in KUEUE:
            if groups is not None and res.group not in groups:
                continue
            if not self._list_into(res, out, refusals):
                served = ", ".join(f"{res.group}/{v}" for v in (res.version, *res.fallbacks))
                notes.append(f"{res.plural} are not served ({served}: the {res.kind} CRD is not installed): "
                             "none read")
        self._config_into((KUEUE_CONFIG, KUEUE_NAMESPACE, KUEUE_CONFIG_MAP), out, refusals, notes,
                          "Kueue's Configuration is taken as its defaults (no fair sharing)")
        return out, KarpenterRead(groups is not None or bool(out), tuple(refusals), tuple(notes))

    def read_volcano(self) -> tuple[list[tuple[Obj, Source]], KarpenterRead]:
        """Volcano's Queues, PodGroups and Jobs (VOLCANO), each listed when the API group list shows its
        group (a cluster without Volcano's CRDs is asked nothing), and, when `installed` (scheduling.volcano.sh
        served), its scheduler's ConfigMap (VOLCANO_CONFIG, got in VOLCANO_NAMESPACE: `volcano.conf.chosen`
        reads it); a refusal (403) kept, as `read_kueue`."""
        groups = self.api_groups()
        out: list[tuple[Obj, Source]] = []
        refusals: list[Refusal] = []
        notes: list[str] = []
        for res in VOLCANO:
            versions = groups.get(res.group) if groups is not None else (res.version,)
            if not versions:
                continue
            if res.version not in versions:
                notes.append(f"{res.group} is served at {', '.join(versions)} only, not {res.version}: its "
                             f"{res.plural} are not read, kexplain reads {res.api_version}")
                continue
            self._list_into(res, out, refusals)
        installed = VOLCANO[0].group in groups if groups is not None else bool(out)
        if installed:
            self._config_into((VOLCANO_CONFIG, VOLCANO_NAMESPACE, VOLCANO_CONFIG_MAP), out, refusals, notes,
                              "Volcano's scheduler configuration is taken as its default")
        return out, KarpenterRead(installed, tuple(refusals), tuple(notes))

    def _config_into(self, which: tuple[Resource, str, str], out: list[tuple[Obj, Source]],
                     refusals: list[Refusal], notes: list[str], without: str) -> None:
        """A component's ConfigMap (`which`: its resource, namespace and name), got alone (RBAC may grant
        that one name only), into `out`; a refusal kept, its absence a note ("no ConfigMap ...: `without`")."""
        res, namespace, name = which
        try:
            found = self.get_optional(res, namespace, name)
        except Forbidden as err:
            refusals.append(replace(err.refusal, verb="get"))
            return
        if found is None:
            notes.append(f"no ConfigMap {namespace}/{name}: {without}")
            return
        out.append((found, Source(f"{self.conn.server}{res.path_in(namespace)}/{name}")))

    def read_policies(self, namespace: str) -> tuple[list[tuple[Obj, Source]], PolicyRead]:
        """The namespaces' LimitRanges, ResourceQuotas and HPAs (POLICIES); a kind refused cluster-wide is
        read in `namespace`, and one refused there too left out with a note, not raised."""
        out: list[tuple[Obj, Source]] = []
        refusals: list[Refusal] = []
        partial: list[str] = []
        unread: list[str] = []
        for res in POLICIES:
            try:
                items, src = self.list_served(res), Source(f"{self.conn.server}{res.path}")
            except Forbidden as err:
                refusals.append(err.refusal)
                try:
                    items = self._collect(res, self._served_events(res, namespace))
                except Forbidden as again:
                    refusals.append(again.refusal)
                    unread.append(f"{res.kind}s")
                    continue
                src = Source(f"{self.conn.server}{res.path_in(namespace)}")
                partial.append(f"{res.kind}s")
            out.extend((obj, src) for obj in items)
        notes = []
        if partial:
            notes.append(f'{_and(partial)} were read in the namespace "{namespace}" only (RBAC refused the '
                         "cluster-wide list, 403): a set explained against this snapshot meets none of the other "
                         "namespaces'")
        if unread:
            notes.append(f"the namespaces' policies were not read: {_and(unread)} (RBAC refused, 403, at the cluster "
                         f'scope and in the namespace "{namespace}"); a set explained against this snapshot meets '
                         "none of them")
        return out, PolicyRead(tuple(refusals), tuple(notes))

    def read_cluster(self) -> list[tuple[Obj, Source]]:
        """Every object of every kind in RESOURCES, in that order: a thread fetches pages while this one
        decodes (`_Prefetch`); a failure is raised once the pages before it are read."""
        out: list[tuple[Obj, Source]] = []
        with _Prefetch(self) as events, bulk_load():
            for res in RESOURCES:
                src = Source(f"{self.conn.server}{res.path}")
                out.extend((obj, src) for obj in self._collect(res, events.of(res)))
        return out

    def read_allowed(self, namespace: str) -> tuple[list[tuple[Obj, Source]], list[Refusal]]:
        """`read_cluster` for a user RBAC lets read only part of the cluster: a refused namespaced list is
        read in `namespace`, Namespaces become a get of it, and what is still refused is recorded."""
        out: list[tuple[Obj, Source]] = []
        refusals: list[Refusal] = []
        with _Prefetch(self, lambda res: self._allowed_events(res, namespace)) as events, bulk_load():
            for res in RESOURCES:
                src = Source(f"{self.conn.server}{res.path}")
                out.extend((obj, src) for obj in self._collect(res, events.of(res), refusals))
        return out, refusals

    def _allowed_events(self, res: Resource, namespace: str) -> Iterator[_Event]:
        """The events of the kind's cluster-wide list, else of what `read_allowed` reads
        instead; ("refused", res, Refusal) for each read refused."""
        try:
            yield from self._served_events(res)
            return
        except Forbidden as err:
            yield ("restart", res, None)
            yield ("refused", res, err.refusal)
        try:
            if res.namespaced:
                yield from self._served_events(res, namespace)
            elif res is NAMESPACES:
                path = f"{res.path}/{quote(namespace, safe='')}"
                with self._errors("get", res, namespace=namespace, name=namespace):
                    obj = self._get(path)
                yield ("page", res, (path, {"items": [obj]}))
        except Forbidden as err:
            yield ("restart", res, None)
            yield ("refused", res, err.refusal)

    def list_events(self, namespace: str, kind: str, name: str | None = None) -> tuple[list[Obj], Refusal | None]:
        """The core/v1 Events of one object of `namespace` (of every object of the kind there without a
        name), or the refusal when RBAC does not allow listing them."""
        selector = f"involvedObject.kind={kind}" + (f",involvedObject.name={name}" if name else "")
        query: list[tuple[str, Any]] = [("fieldSelector", selector)]
        path = EVENTS.path_in(namespace)
        try:
            with self._errors("list", EVENTS, namespace=namespace):
                page = self._get(path, query)
        except Forbidden as err:
            return [], err.refusal
        items = page.get("items") or []
        return [i for i in items if isinstance(i, dict)], None

    def karpenter_events(self) -> tuple[list[Obj], Refusal | None]:
        """Karpenter's Events in every namespace (its recorder's source, `karpenter`: what it says of
        Nodes, NodeClaims, NodePools and the pods it moves), listed cluster-wide and paged; the
        refusal when RBAC does not allow the list (a 403 is said, not raised)."""
        try:
            items = self._collect(EVENTS, self._list_events(EVENTS, fields=f"source={KARPENTER_SOURCE}"))
        except Forbidden as err:
            return [], err.refusal
        return [i for i in items if isinstance(i, dict) and is_karpenter_event(i)], None

    # -- paging: events, produced by whichever thread fetches, consumed by `_collect` --------
    def _served_events(self, res: Resource, namespace: str | None = None) -> Iterator[_Event]:
        """The events of `list_served`: each version in turn until one is served; a version not
        served after some pages (404 on a continue request) starts the kind over."""
        for version in (res.version, *res.fallbacks):
            try:
                yield from self._list_events(res if version == res.version else replace(res, version=version),
                                             namespace)
                return
            except _NotServed:
                yield ("restart", res, None)
                continue

    def node_proxy(self, node: str, what: str, instead: str) -> Obj:
        """GET /api/v1/nodes/NODE/proxy/WHAT: the kubelet's own endpoint (stats/summary, configz)
        through the API server; a 403 names the missing `nodes/proxy` permission and `instead`,
        the option that reads the same from a file."""
        path = f"/api/v1/nodes/{quote(node, safe='')}/proxy/{what}"
        with self._errors("get", None, path=f"GET {path}"):
            try:
                return self._get(path)
            except ApiStatus as err:
                if err.status != 403:
                    raise
                said = _status_message(err.body)
                detail = f" (the API server said: {said})" if said else ""
                raise LiveError(f'forbidden (403): reading node {node}\'s {what} through the API server\'s node '
                                f'proxy needs "get" on resource "nodes/proxy" (a powerful permission: '
                                f"deploy/rbac.yaml's kexplain-node-stats){detail}; or pass {instead} "
                                f"(`kubectl get --raw {path}` by someone allowed)") from None

    def pods_on(self, node: str) -> list[Obj]:
        """Every pod bound to `node`, finished ones too, in the API server's order: the list
        `kubectl drain` reads (`fieldSelector=spec.nodeName=NODE`)."""
        return self._collect(PODS, self._list_events(PODS, fields=f"spec.nodeName={node}"))

    def _list_events(self, res: Resource, namespace: str | None = None,
                     fields: str | None = None) -> Iterator[_Event]:
        """("page", res, body) per page, ("restart", res, None) when a continue token expired; LiveError
        after MAX_RELISTS + 1 attempts. `namespace`: that collection only; `fields`: the field selector
        (for pods unless told, `pod_fields`: the scheduler's unfinished pods, or every pod)."""
        path = res.path_in(namespace) if namespace else res.path
        if fields is None:
            fields = self.pod_fields if res.plural == PODS.plural and res.group == PODS.group else ""
        for _ in range(MAX_RELISTS + 1):
            token: str | None = None
            while True:
                query: list[tuple[str, Any]] = [("limit", self.chunk_size)]
                if fields:
                    query.append(("fieldSelector", fields))
                if token:
                    query.append(("continue", token))
                try:
                    with self._errors("list", res, namespace=namespace, expirable=True):
                        data = self._fetch(path, query)
                except _Expired:
                    yield ("restart", res, None)
                    break
                body, meta = _page_metadata(data)
                yield ("page", res, (path, body))
                if meta is None:        # not a JSON object: `_collect` says so, nothing follows
                    return
                token = meta.get("continue") or None
                if not token:
                    return
        raise LiveError(f"the list of {res.plural} kept expiring (410 Gone) in all {MAX_RELISTS + 1} "
                        "attempts to page through it; retry, or raise --chunk-size")

    def _collect(self, res: Resource, events: Iterable[_Event],
                 refusals: list[Refusal] | None = None) -> list[Obj]:
        """The objects of one kind from its events: pages decoded (`_stored` items), progress
        reported, a restart forgetting what came before it, refusals added to `refusals`."""
        items: list[Obj] = []
        for what, served, payload in events:
            if what == "restart":
                items = []
                continue
            if what == "refused":
                if refusals is not None:
                    refusals.append(payload)
                continue
            path, body = payload
            listed = pod_lists.pod_list(body, functools.partial(_stored, res=served)) \
                if served.kind == "Pod" and type(body) is bytes else None
            page = listed if listed is not None else self._decoded(body, path)
            meta = page.get("metadata")
            meta = meta if isinstance(meta, dict) else {}
            found = page.get("items") or []
            if listed is not None:
                items.extend(found)     # (made standalone as they were read)
            else:
                if not isinstance(found, list) or not all(isinstance(item, dict) for item in found):
                    raise LiveError(f"the API server at {self.conn.where} answered GET {path} with a list "
                                    "whose items are not all JSON objects")
                items.extend(_stored_items(found, served))
            if self.progress is not None:
                token = meta.get("continue") or None
                remaining = meta.get("remainingItemCount")
                total = len(items) + remaining if isinstance(remaining, int) and token else (
                    None if token else len(items))
                self.progress(res.plural, len(items), total)
        return items

    def server_version(self) -> str | None:
        """The API server's gitVersion (GET /version, readable by anyone), None when unknown."""
        try:
            with self._errors("get", None, path="/version"):
                version = self._get("/version").get("gitVersion")
        except LiveError:
            return None
        return version if isinstance(version, str) else None

    def _get(self, path: str, query: list[tuple[str, Any]] | None = None) -> Obj:
        """GET through the client's ApiClient, the body parsed from raw JSON (the typed API classes would
        cost seconds to import and only build these same paths)."""
        return self._decoded(self._fetch(path, query), path)

    def _fetch(self, path: str, query: list[tuple[str, Any]] | None = None) -> bytes:
        """The raw body of a GET (`kube_client.fetch`); an error status raises ApiStatus."""
        return _client().fetch(self.conn.api_client, path, query or [], self.timeout)

    def _decoded(self, body: bytes | str | Obj, path: str) -> Obj:
        """A body as a JSON object (parsed here unless `_page_metadata` did it), else LiveError."""
        if not isinstance(body, dict):
            try:
                body = json_parse.loads(body)
            except ValueError:
                body = None
        if not isinstance(body, dict):
            raise LiveError(f"the API server at {self.conn.where} answered GET {path} with something "
                            "that is not a JSON object")
        return body

    @contextmanager
    def _errors(self, verb: str, res: Resource | None, namespace: str | None = None,
                name: str | None = None, path: str | None = None,
                expirable: bool = False) -> Iterator[None]:
        """The client's exceptions as one line each; with `expirable`, a 410 raises _Expired."""
        what = path or (f"{verb} {res.plural}" if res else verb)
        try:
            yield
        except ApiStatus as err:
            if expirable and err.status == 410:
                raise _Expired() from None
            if res is not None and res.optional and err.status == 404:
                raise _NotServed() from None
            raise self._api_error(err, verb, res, namespace, name, what) from None
        except Unreachable as err:
            raise self._transport_error(err, what) from None
        except OSError as err:
            raise self._transport_error(Unreachable.of_os_error(err), what) from None
        except ClientConfigError as err:   # e.g. an exec credential plugin that failed
            raise LiveError(f"cannot get credentials for {self.conn.where}: {_first_line(err.error)}") from None

    def _api_error(self, err: ApiStatus, verb: str, res: Resource | None, namespace: str | None,
                   name: str | None, what: str) -> LiveError:
        server = self.conn.where
        status = err.status or 0
        said = _status_message(err.body)
        if status == 0:   # the client reports TLS failures this way
            reason = (str(err.reason or "").splitlines() or ["TLS error"])[-1]
            return LiveError(f"TLS error talking to the API server at {server}: {reason}")
        if status == 401:
            return LiveError(f"unauthorized (401): the API server at {server} refused the credentials "
                             "(expired or revoked?); log in again, e.g. check that `kubectl get nodes` works")
        if status == 403 and res is not None:
            return refused_error([Refusal(res, verb, namespace, said)])
        if status == 404 and res is PODS and name:
            return LiveError(f'pod "{name}" not found in namespace "{namespace}" ({server})')
        if status == 404 and res is not None:
            return LiveError(f"the API server at {server} does not serve {res.plural} "
                             f"({res.api_version}, 404); kexplain needs Kubernetes v1.21 or newer")
        detail = f": {said}" if said else ""
        return LiveError(f"the API server at {server} answered {status} {err.reason or ''} to "
                         f"{what}{detail}".replace("  ", " "))

    def _transport_error(self, err: Unreachable, what: str) -> LiveError:
        server = self.conn.where
        if err.kind == "timeout":
            return LiveError(f"timed out after {self.timeout:g}s waiting for the API server at {server} "
                             f"({what}); is it overloaded? raise --request-timeout")
        if err.kind == "tls":
            return LiveError(f"TLS error talking to the API server at {server}: {_first_line(err.error)}")
        return LiveError(f"cannot reach the API server at {server}: {_connection_reason(err.error)}")


def refused_error(refusals: list[Refusal]) -> Forbidden:
    """The one error of reads RBAC refused (403) that a command cannot answer without: each read
    with its scope and the API server's words, then the rule of deploy/rbac.yaml that grants
    them. A refused list of RESOURCES ends every command with it; Karpenter's kinds end the
    disruption pass (`KarpenterRead.require`)."""
    reads = []
    for r in refusals:
        detail = f" (the API server said: {r.said})" if r.said else ""
        reads.append(f'"{r.verb}" on resource "{r.resource.plural}" in {r.resource.group_label} {r.scope}{detail}')
    rules: dict[tuple[str, str], list[str]] = {}
    for r in refusals:
        where = f'a Role in the namespace "{r.namespace}"' if r.namespace else "a ClusterRole"
        plurals = rules.setdefault((where, r.resource.group), [])
        if r.resource.plural not in plurals:
            plurals.append(r.resource.plural)
    granted = "; ".join(f'{where}: {{apiGroups: ["{group}"], resources: [{", ".join(plurals)}], verbs: [get, list]}}'
                        for (where, group), plurals in rules.items())
    return Forbidden(f"forbidden (403): kexplain needs {_and(reads)}; grant the read-only ClusterRole of "
                     f"deploy/rbac.yaml ({granted})", refusals[0])


def unserved_error(missing: list[tuple[Resource, tuple[str, ...]]], where: str) -> LiveError:
    """Karpenter's kinds a command cannot answer without that the API server does not serve at the
    version kexplain reads (as a 404 on a list of RESOURCES is said), with the versions served instead."""
    res, versions = missing[0]
    kinds = _and([r.plural for r, _ in missing])
    if versions:
        why = (f"{res.group} is served at {', '.join(versions)} only (Karpenter before v1.0); kexplain reads "
               f"{res.api_version}")
    else:
        why = f"{res.group} is not served at {res.version}: is Karpenter v1 installed?"
    return LiveError(f"the API server at {where} does not serve {kinds} ({res.api_version}, 404): {why}")


def _connection_reason(err: BaseException) -> str:
    """"connection refused", "name or service not known", ... without urllib3's object reprs."""
    seen: set[int] = set()
    cur: BaseException | None = err
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, OSError) and cur.strerror:
            return cur.strerror.lower()
        cur = cur.__cause__ or cur.__context__
    text = re.sub(r"^<[^>]*>: ", "", _first_line(err))      # "<...HTTPConnection object at 0x..>: "
    text = re.sub(r"\[Errno -?\d+\] ", "", text)
    return text.rstrip(".") or type(err).__name__


def _status_message(body: Any) -> str:
    """The message of a metav1.Status body, on one line."""
    if not body:
        return ""
    try:
        status = json.loads(body)
    except (TypeError, ValueError):
        return ""
    msg = status.get("message") if isinstance(status, dict) else None
    return " ".join(str(msg).split()) if msg else ""


def _stored(item: Obj, res: Resource) -> Obj:
    """A list item as a standalone object: kind and apiVersion first, no managedFields."""
    out = {"apiVersion": res.api_version, "kind": res.kind, **item}
    if "apiVersion" in item or "kind" in item:       # the list's, in their places first
        out["apiVersion"], out["kind"] = res.api_version, res.kind
    meta = out.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        out["metadata"] = {k: v for k, v in meta.items() if k != "managedFields"}
    return out


def _stored_items(items: Iterable[Any], res: Resource) -> list[Obj]:
    """`_stored` of a page's items (the loop of 150,000 pods, kept tight)."""
    api_version, kind = res.api_version, res.kind
    out = []
    for item in items:
        if type(item) is not dict or "apiVersion" in item or "kind" in item:
            out.append(_stored(item, res))
            continue
        obj = {"apiVersion": api_version, "kind": kind, **item}
        meta = item.get("metadata")
        if type(meta) is dict and "managedFields" in meta:
            obj["metadata"] = {k: v for k, v in meta.items() if k != "managedFields"}
        out.append(obj)
    return out


_Event = tuple[str, Resource, Any]      # ("page", res, (path, body)) or ("restart", res, None)
_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_QUEUED_PAGES = 4        # pages fetched ahead: bounded, a page of pods is about a megabyte


def _page_metadata(data: bytes) -> tuple[bytes | str | Obj, Obj | None]:
    """(the body to decode, its metadata) of a list page, the metadata read alone when it comes before
    the items, so the fetching thread learns the continue token without decoding; None: not an object."""
    try:
        text = data.decode("utf-8")
        meta = _leading_metadata(text)
    except (UnicodeDecodeError, ValueError):
        text, meta = None, None
    if text is not None and meta is not None:
        return data, meta       # (the bytes: a page of pods is read from them, `pod_lists.pod_list`)
    try:
        body = json_parse.loads(data)
    except ValueError:
        return data, None
    if not isinstance(body, dict):
        return data, None
    found = body.get("metadata")
    return body, found if isinstance(found, dict) else {}


def _leading_metadata(text: str) -> Obj | None:
    """The value of "metadata" when it comes before "items" in the JSON object `text`, else None;
    ValueError for what is not JSON."""
    pos = _WS.match(text, 0).end()      # type: ignore[union-attr]
    if text[pos:pos + 1] != "{":
        return None
    pos += 1
    for _ in range(8):
        pos = _WS.match(text, pos).end()     # type: ignore[union-attr]
        key, pos = _DECODER.raw_decode(text, pos)
        pos = _WS.match(text, pos).end()     # type: ignore[union-attr]
        if not isinstance(key, str) or text[pos:pos + 1] != ":":
            return None
        pos = _WS.match(text, pos + 1).end()    # type: ignore[union-attr]
        if key == "items":
            return None
        value, pos = _DECODER.raw_decode(text, pos)
        if key == "metadata":
            return value if isinstance(value, dict) else {}
        pos = _WS.match(text, pos).end()     # type: ignore[union-attr]
        if text[pos:pos + 1] != ",":
            return None
        pos += 1
    return None


class _Prefetch:
    """The pages of every kind of RESOURCES fetched in order by a thread, through a bounded queue; `of(res)`
    gives one kind's events and raises the thread's exception. Leaving the `with` stops the thread."""

    def __init__(self, reader: "ClusterReader",
                 events_of: "Callable[[Resource], Iterator[_Event]] | None" = None) -> None:
        self._events_of = events_of or reader._served_events
        self._queue: queue.Queue[tuple[str, Any, Any]] = queue.Queue(_QUEUED_PAGES)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kexplain-list", daemon=True)

    def __enter__(self) -> "_Prefetch":
        self._thread.start()
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        self._stop.set()
        if kind is not None:        # a failure or Ctrl-C: not waiting for a request in flight (up to
            return                  # --request-timeout); the daemon thread stops at its next step
        while self._thread.is_alive():          # unblock a full queue, then let it end
            try:
                self._queue.get(timeout=0.05)
            except queue.Empty:
                pass
        self._thread.join()

    def _put(self, item: tuple[str, Any, Any]) -> None:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def _run(self) -> None:
        try:
            for res in RESOURCES:
                for event in self._events_of(res):
                    if self._stop.is_set():
                        return
                    self._put(event)
                self._put(("end", res, None))
        except BaseException as err:     # noqa: BLE001 - handed to the reading thread, raised there
            self._put(("error", None, err))

    def of(self, res: Resource) -> Iterator[_Event]:
        while True:
            what, served, payload = self._queue.get()
            if what == "error":
                raise payload
            if what == "end":
                return
            yield what, served, payload


# --- what was read ----------------------------------------------------------------------------

def is_pending_unschedulable(pod: Obj) -> bool:
    """Pending, not bound, and the scheduler reported PodScheduled=False."""
    if type(pod) is stored_pods.StoredPod:      # (read so only when bound)
        return False
    if (pod.get("status") or {}).get("phase", "Pending") != "Pending":
        return False
    if (pod.get("spec") or {}).get("nodeName"):
        return False
    cond = pod_scheduled_condition(pod)
    return cond is not None and cond.get("status") == "False"


def pod_scheduled_condition(pod: Obj) -> Obj | None:
    for cond in (pod.get("status") or {}).get("conditions") or []:
        if isinstance(cond, dict) and cond.get("type") == "PodScheduled":
            return cond
    return None


def same_pod(a: Obj, b: Obj) -> bool:
    ma, mb = a.get("metadata") or {}, b.get("metadata") or {}
    if ma.get("uid") and mb.get("uid"):
        return ma["uid"] == mb["uid"]
    return (ma.get("namespace"), ma.get("name")) == (mb.get("namespace"), mb.get("name"))


def as_pending(pod: Obj, cluster: list[tuple[Obj, Source]]) -> tuple[Obj, list[tuple[Obj, Source]], str | None]:
    """The pod to explain and the cluster to explain it against; a bound pod is explained as if pending
    now (without its binding, nor itself on its node), and the note says so."""
    node = (pod.get("spec") or {}).get("nodeName")
    if not node:
        return pod, cluster, None
    spec = {k: v for k, v in pod["spec"].items() if k != "nodeName"}
    status = {k: v for k, v in (pod.get("status") or {}).items() if k != "nominatedNodeName"}
    unbound = {**pod, "spec": spec, "status": status}
    rest = [(o, s) for o, s in cluster if not (o.get("kind") == "Pod" and same_pod(o, pod))]
    meta = pod.get("metadata") or {}
    note = (f"pod {meta.get('namespace')}/{meta.get('name')} is already bound to node {node}; "
            "explaining where the scheduler would place it now, without it")
    return unbound, rest, note


# --- the server's version, recorded in a snapshot ----------------------------------------------
# `kexplain snapshot` records the API server's /version as one item of its List, so that a
# replay follows the version the cluster ran (unless told another). Nothing that reads a
# cluster reads this kind: it is not an object of the cluster.
VERSION_API_VERSION, VERSION_KIND = "kexplain/v1", "ServerVersion"


def version_record(git_version: str) -> Obj:
    """The List item recording the API server's /version; nameless, as it names no object of the cluster."""
    return {"apiVersion": VERSION_API_VERSION, "kind": VERSION_KIND, "metadata": {}, "gitVersion": git_version}


def recorded_version(objects: Iterable[tuple[Obj, Source]]) -> tuple[str, Source] | None:
    """The version a snapshot among `objects` recorded, and where (None: none did). Snapshots
    that record different versions are refused: which one to follow is the user's choice."""
    rows = columns.rows_of(objects)
    if rows is not None and VERSION_KIND not in rows.kinds:      # a dump of 150,000 objects
        return None
    found: tuple[str, Source] | None = None
    for obj, src in objects:
        if obj.get("kind") != VERSION_KIND or obj.get("apiVersion") != VERSION_API_VERSION:
            continue
        version = obj.get("gitVersion")
        if not isinstance(version, str) or not version:
            raise KexplainError("a string such as v1.35.4 is required", source=src, obj=obj, field="gitVersion")
        if found is not None and found[0] != version:
            raise KexplainError(f"{found[1]} and {src} record different Kubernetes versions ({found[0]}, {version}): "
                                "choose the one to follow with --kubernetes-version")
        found = found or (version, src)
    return found
