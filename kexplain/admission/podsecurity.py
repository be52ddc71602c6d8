"""Pod Security admission (k8s.io/pod-security-admission v0.35.4 / v0.36.2, default configuration)
from the pod's Namespace's `pod-security.kubernetes.io/{enforce,warn,audit}` labels and versions.

The enforce level refuses a pod, warn admits it with a warning, audit is kept as a note; a workload
is never refused (its template gets the warn level). Levels, versions and order of the checks:
docs/internals/admission.md.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from kexplain.apimachinery import columns
from kexplain.apimachinery.fielderrors import FieldError, go_quote, invalid, invalid_message
from kexplain.apimachinery.identity import as_dict

PREFIX = "pod-security.kubernetes.io/"
PRIVILEGED, BASELINE, RESTRICTED = "privileged", "baseline", "restricted"
_LEVELS = (PRIVILEGED, BASELINE, RESTRICTED)
LATEST = "latest"


@dataclass(frozen=True)
class LevelVersion:
    level: str
    version: str = LATEST          # "latest" or "v1.N" as the label gives it

    def __str__(self) -> str:
        return f"{self.level}:{self.version}"

    def minor(self, server_minor: int) -> int:
        """The policy version evaluated: the label's, at most the API server's minor."""
        if self.version == LATEST:
            return server_minor
        return min(int(self.version.split(".")[1]), server_minor)


@dataclass(frozen=True)
class Policy:
    enforce: LevelVersion = LevelVersion(PRIVILEGED)
    audit: LevelVersion = LevelVersion(PRIVILEGED)
    warn: LevelVersion = LevelVersion(PRIVILEGED)

    @property
    def privileged(self) -> bool:
        return all(lv.level == PRIVILEGED for lv in (self.enforce, self.audit, self.warn))


_INT_MAX = 2 ** 63 - 1         # strconv.Atoi's range (a 64-bit int)


def _version_ok(text: str) -> bool:
    """ParseVersion's test: "latest", or `v1.N` (N: 0, or digits without a leading zero) with a
    number Atoi takes."""
    if text == LATEST:
        return True
    number = text[3:]
    return (text.startswith("v1.") and number.isascii() and number.isdigit()
            and (number == "0" or not number.startswith("0")) and int(number) <= _INT_MAX)


def _version(text: str) -> str:
    """ParseVersion: "latest" or "v1.N"; anything else is latest (and a parse error)."""
    return text if _version_ok(text) else LATEST


# PolicyToEvaluate's labels, in the order it reads them: (label, a level or a version)
_LABELS = (("enforce", True), ("enforce-version", False), ("audit", True), ("audit-version", False),
           ("warn", True), ("warn-version", False))


def label_errors(labels: dict[str, Any] | None) -> list[FieldError]:
    """PolicyToEvaluate's errors: each Pod Security label whose value is no level or no version, as
    field.Invalid at `metadata.labels[<label>]`, in its order."""
    errs: list[FieldError] = []
    for suffix, is_level in _LABELS:
        label = PREFIX + suffix
        if not isinstance(labels, dict) or label not in labels:
            continue
        value = labels[label]
        text = value if isinstance(value, str) else str(value)
        if is_level and text not in _LEVELS:
            errs.append(invalid(f"metadata.labels[{label}]", text, "must be one of " + ", ".join(_LEVELS)))
        elif not is_level and not _version_ok(text):
            errs.append(invalid(f"metadata.labels[{label}]", text, 'must be "latest" or "v1.x"'))
    return errs


def namespace_refusal(namespace: dict[str, Any]) -> str:
    """ValidateNamespace on create: the refusal (apierrors.NewInvalid's words) of a Namespace whose
    Pod Security labels do not parse; "" when they parse."""
    meta = as_dict(namespace.get("metadata"))
    errs = label_errors(as_dict(meta.get("labels")))
    return invalid_message("Namespace", str(meta.get("name") or ""), errs) if errs else ""


def refused_namespaces(objects: Iterable[tuple[dict[str, Any], Any]]) -> frozenset[str]:
    """The Namespaces among `objects` (not stored ones) refused for their Pod Security labels."""
    rows = columns.rows_of(objects)
    if rows is not None:        # a dump's 150,000 objects: its Namespaces, by the kinds of its rows
        objects = columns.of_kind(objects, rows, "Namespace")      # type: ignore[arg-type]
    out = set()
    for obj, _ in objects:
        if isinstance(obj, dict) and obj.get("kind") == "Namespace":
            meta = as_dict(obj.get("metadata"))
            if not meta.get("resourceVersion") and labelled(as_dict(meta.get("labels"))) and namespace_refusal(obj):
                out.add(str(meta.get("name") or ""))
    return frozenset(out)


def policy_of(labels: dict[str, str]) -> Policy:
    """PolicyToEvaluate with the default policy (privileged:latest everywhere). An invalid enforce
    level is restricted (fail closed); an invalid audit or warn level privileged (fail open)."""
    if not labels:
        return Policy()
    read: dict[str, LevelVersion] = {}
    for mode, fallback in (("enforce", RESTRICTED), ("audit", PRIVILEGED), ("warn", PRIVILEGED)):
        level = labels.get(PREFIX + mode, PRIVILEGED)
        read[mode] = LevelVersion(level if level in _LEVELS else fallback)
        if PREFIX + mode + "-version" in labels:
            read[mode] = LevelVersion(read[mode].level, _version(labels[PREFIX + mode + "-version"]))
    enforce, audit, warn = read["enforce"], read["audit"], read["warn"]
    has_enforce = labels.get(PREFIX + "enforce") in _LEVELS
    if PREFIX + "warn" not in labels and has_enforce and _LEVELS.index(enforce.level) > _LEVELS.index(warn.level):
        version = warn.version if PREFIX + "warn-version" in labels else enforce.version
        warn = LevelVersion(enforce.level, version)
    return Policy(enforce, audit, warn)


# -- the checks --------------------------------------------------------------------------------
Result = tuple[str, str] | None       # (forbidden reason, detail), None when allowed
Spec = dict[str, Any]


def _containers(spec: Spec) -> list[dict[str, Any]]:
    """visitContainers: init containers, containers, ephemeral containers."""
    return [c for key in ("initContainers", "containers", "ephemeralContainers")
            for c in spec.get(key) or () if isinstance(c, dict)]


def _sc(owner: dict[str, Any]) -> dict[str, Any]:
    """The securityContext of a container or of the pod's spec ({} without one)."""
    return as_dict(owner.get("securityContext"))


def _plural(one: str, many: str, n: int) -> str:
    return one if n == 1 else many


def _quote(items: list[str]) -> str:
    return '"' + '", "'.join(items) + '"' if items else ""


def _who(containers: list[str]) -> str:
    return f"{_plural('container', 'containers', len(containers))} {_quote(containers)}"


def _setters(pod: bool, containers: list[str]) -> list[str]:
    """Who sets a forbidden value, in Go's words: the pod, then the containers named."""
    return (["pod"] if pod else []) + ([_who(containers)] if containers else [])


def _windows(spec: Spec) -> bool:
    return as_dict(spec.get("os")).get("name") == "windows"


def _user_namespace(spec: Spec) -> bool:
    return spec.get("hostUsers") is False


def _privileged(meta: dict, spec: Spec, minor: int) -> Result:
    bad = [c.get("name", "") for c in _containers(spec) if _sc(c).get("privileged") is True]
    return ("privileged", f"{_who(bad)} must not set securityContext.privileged=true") if bad else None


def _forbidden_app_armor(owner: dict[str, Any], values: set[str]) -> bool:
    """Whether the pod's or a container's AppArmor profile is of a forbidden type (added to `values`)."""
    profile = _sc(owner).get("appArmorProfile")
    if isinstance(profile, dict) and profile.get("type") not in ("RuntimeDefault", "Localhost"):
        values.add(str(profile.get("type") or ""))
        return True
    return False


def _app_armor(meta: dict, spec: Spec, minor: int) -> Result:
    values: set[str] = set()
    pod = _forbidden_app_armor(spec, values)
    setters = _setters(pod, [c.get("name", "") for c in _containers(spec) if _forbidden_app_armor(c, values)])
    annotations = sorted(f"{k}={go_quote(str(v))}" for k, v in as_dict(meta.get("annotations")).items()
                         if k.startswith("container.apparmor.security.beta.kubernetes.io/")
                         and not (not v or v == "runtime/default" or str(v).startswith("localhost/")))
    value_list = sorted(values) + annotations
    if annotations:
        setters.append(_plural("annotation", "annotations", len(annotations)))
    if setters:
        return (_plural("forbidden AppArmor profile", "forbidden AppArmor profiles", len(value_list)),
                f"{' and '.join(setters)} must not set AppArmor profile type to {_quote(value_list)}")
    return None


_CAPABILITIES = {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE",
                 "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}


def _capabilities_baseline(meta: dict, spec: Spec, minor: int) -> Result:
    bad, added = [], set()
    for c in _containers(spec):
        caps = _sc(c).get("capabilities")
        if isinstance(caps, dict):
            wrong = [str(x) for x in caps.get("add") or () if str(x) not in _CAPABILITIES]
            if wrong:
                bad.append(c.get("name", ""))
                added.update(wrong)
    if bad:
        return ("non-default capabilities",
                f"{_who(bad)} must not include {_quote(sorted(added))} in securityContext.capabilities.add")
    return None


def _host_namespaces(meta: dict, spec: Spec, minor: int) -> Result:
    found = [f"{k}=true" for k in ("hostNetwork", "hostPID", "hostIPC") if spec.get(k) is True]
    return ("host namespaces", ", ".join(found)) if found else None


def _host_path(meta: dict, spec: Spec, minor: int) -> Result:
    names = [v.get("name", "") for v in spec.get("volumes") or () if isinstance(v, dict) and v.get("hostPath") is not None]
    return ("hostPath volumes", f"{_plural('volume', 'volumes', len(names))} {_quote(names)}") if names else None


def _host_ports(meta: dict, spec: Spec, minor: int) -> Result:
    bad, ports = [], set()
    for c in _containers(spec):
        used = [p.get("hostPort") for p in c.get("ports") or () if isinstance(p, dict) and p.get("hostPort")]
        if used:
            bad.append(c.get("name", ""))
            ports.update(str(p) for p in used)
    if bad:
        return ("hostPort", f"{_who(bad)} {_plural('uses', 'use', len(bad))} "
                            f"{_plural('hostPort', 'hostPorts', len(ports))} {', '.join(sorted(ports))}")
    return None


def _hosts(handler: Any) -> list[str]:
    handler = as_dict(handler)
    return [str(as_dict(handler.get(k)).get("host")) for k in ("httpGet", "tcpSocket") if as_dict(handler.get(k)).get("host")]


def _probe_hosts(meta: dict, spec: Spec, minor: int) -> Result:
    bad: set[str] = set()
    hosts: set[str] = set()
    for c in _containers(spec):
        found = [h for k in ("livenessProbe", "readinessProbe", "startupProbe") for h in _hosts(c.get(k))]
        lifecycle = as_dict(c.get("lifecycle"))
        found += [h for k in ("postStart", "preStop") for h in _hosts(lifecycle.get(k))]
        if found:
            bad.add(c.get("name", ""))
            hosts.update(found)
    if bad:
        return ("probe or lifecycle host",
                f"{_who(sorted(bad))} {_plural('uses', 'use', len(bad))} "
                f"{_plural('probe or lifecycle host', 'probe or lifecycle hosts', len(hosts))} {_quote(sorted(hosts))}")
    return None


def _proc_mount(meta: dict, spec: Spec, minor: int, relax: bool = True) -> Result:
    if relax and minor >= 35 and _user_namespace(spec):
        return None
    bad, kinds = [], set()
    for c in _containers(spec):
        mount = _sc(c).get("procMount")
        if mount is not None and mount != "Default":
            bad.append(c.get("name", ""))
            kinds.add(str(mount))
    if bad:
        return ("procMount", f"{_who(bad)} must not set securityContext.procMount to {_quote(sorted(kinds))}")
    return None


def _selinux(meta: dict, spec: Spec, minor: int) -> Result:
    allowed = {"", "container_t", "container_init_t", "container_kvm_t"} | ({"container_engine_t"} if minor >= 31 else set())
    types: set[str] = set()
    flags = {"user": False, "role": False}

    def valid(opts: dict) -> bool:
        ok = True
        if str(opts.get("type") or "") not in allowed:
            ok = False
            types.add(str(opts.get("type") or ""))
        for key in ("user", "role"):
            if opts.get(key):
                ok = False
                flags[key] = True
        return ok

    def invalid_in(owner: dict[str, Any]) -> bool:
        opts = _sc(owner).get("seLinuxOptions")
        return isinstance(opts, dict) and not valid(opts)

    setters = _setters(invalid_in(spec), [c.get("name", "") for c in _containers(spec) if invalid_in(c)])
    if setters:
        data = [f"{_plural('type', 'types', len(types))} {_quote(sorted(types))}"] if types else []
        data += [f"{k} may not be set" for k in ("user", "role") if flags[k]]
        return ("seLinuxOptions", f"{' and '.join(setters)} set forbidden securityContext.seLinuxOptions: {'; '.join(data)}")
    return None


def _seccomp_type(owner: dict[str, Any]) -> str | None:
    profile = _sc(owner).get("seccompProfile")
    return str(profile.get("type") or "") if isinstance(profile, dict) else None


def _forbidden_seccomp(owner: dict[str, Any], values: set[str]) -> bool:
    """Whether the pod's or a container's seccomp profile is of a forbidden type (added to `values`)."""
    kind = _seccomp_type(owner)
    if kind is not None and kind not in ("Localhost", "RuntimeDefault"):
        values.add(kind)
        return True
    return False


def _seccomp_baseline(meta: dict, spec: Spec, minor: int) -> Result:
    values: set[str] = set()
    pod = _forbidden_seccomp(spec, values)
    setters = _setters(pod, [c.get("name", "") for c in _containers(spec) if _forbidden_seccomp(c, values)])
    if setters:
        return ("seccompProfile",
                f"{' and '.join(setters)} must not set securityContext.seccompProfile.type to {_quote(sorted(values))}")
    return None


_SYSCTLS = [(0, {"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies",
                 "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start"}),
            (27, {"net.ipv4.ip_local_reserved_ports"}),
            (29, {"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
                  "net.ipv4.tcp_keepalive_probes"}),
            (32, {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"})]


def _sysctls(meta: dict, spec: Spec, minor: int) -> Result:
    allowed = set().union(*(names for since, names in _SYSCTLS if minor >= since))
    bad = [str(s.get("name")) for s in _sc(spec).get("sysctls") or ()
           if isinstance(s, dict) and s.get("name") not in allowed]
    return ("forbidden sysctls", ", ".join(bad)) if bad else None


def _host_process(meta: dict, spec: Spec, minor: int) -> Result:
    def host_process(owner: dict[str, Any]) -> bool:
        return as_dict(_sc(owner).get("windowsOptions")).get("hostProcess") is True

    setters = _setters(host_process(spec), [c.get("name", "") for c in _containers(spec) if host_process(c)])
    if setters:
        return ("hostProcess", f"{' and '.join(setters)} must not set securityContext.windowsOptions.hostProcess=true")
    return None


def _privilege_escalation(meta: dict, spec: Spec, minor: int) -> Result:
    if minor >= 25 and _windows(spec):
        return None
    bad = [c.get("name", "") for c in _containers(spec) if _sc(c).get("allowPrivilegeEscalation") is not False]
    return ("allowPrivilegeEscalation != false",
            f"{_who(bad)} must set securityContext.allowPrivilegeEscalation=false") if bad else None


def _capabilities_restricted(meta: dict, spec: Spec, minor: int) -> Result:
    if minor >= 25 and _windows(spec):
        return None
    missing, adding, added = [], [], set()
    for c in _containers(spec):
        caps = _sc(c).get("capabilities")
        if not isinstance(caps, dict):
            missing.append(c.get("name", ""))
            continue
        if "ALL" not in [str(x) for x in caps.get("drop") or ()]:
            missing.append(c.get("name", ""))
        wrong = [str(x) for x in caps.get("add") or () if str(x) != "NET_BIND_SERVICE"]
        if wrong:
            adding.append(c.get("name", ""))
            added.update(wrong)
    details = []
    if missing:
        details.append(f'{_who(missing)} must set securityContext.capabilities.drop=["ALL"]')
    if adding:
        details.append(f"{_who(adding)} must not include {_quote(sorted(added))} in securityContext.capabilities.add")
    return ("unrestricted capabilities", "; ".join(details)) if details else None


_ALLOWED_VOLUMES = ("configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "image", "persistentVolumeClaim",
                    "projected", "secret")
_VOLUME_TYPES = ("hostPath", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "nfs", "iscsi", "glusterfs",
                 "rbd", "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile", "vsphereVolume", "quobyte",
                 "azureDisk", "photonPersistentDisk", "portworxVolume", "scaleIO", "storageos")


def _restricted_volumes(meta: dict, spec: Spec, minor: int) -> Result:
    bad, kinds = [], set()
    for v in spec.get("volumes") or ():
        if not isinstance(v, dict) or any(v.get(k) is not None for k in _ALLOWED_VOLUMES):
            continue
        bad.append(v.get("name", ""))
        kinds.add(next((k for k in _VOLUME_TYPES if v.get(k) is not None), "unknown"))
    if bad:
        return ("restricted volume types",
                f"{_plural('volume', 'volumes', len(bad))} {_quote(bad)} {_plural('uses', 'use', len(bad))} "
                f"{_plural('restricted volume type', 'restricted volume types', len(kinds))} {_quote(sorted(kinds))}")
    return None


def _run_as_non_root(meta: dict, spec: Spec, minor: int) -> Result:
    if minor >= 35 and _user_namespace(spec):
        return None
    setters: list[str] = []
    pod_value = _sc(spec).get("runAsNonRoot")
    pod_ok = pod_value is True
    if pod_value is False:
        setters.append("pod")
    explicit, implicit = [], []
    for c in _containers(spec):
        value = _sc(c).get("runAsNonRoot")
        if value is not None:
            if value is False:
                explicit.append(c.get("name", ""))
        elif not pod_ok:
            implicit.append(c.get("name", ""))
    if explicit:
        setters.append(_who(explicit))
    if setters:
        return ("runAsNonRoot != true", f"{' and '.join(setters)} must not set securityContext.runAsNonRoot=false")
    if implicit:
        return ("runAsNonRoot != true", f"pod or {_who(implicit)} must set securityContext.runAsNonRoot=true")
    return None


def _run_as_user(meta: dict, spec: Spec, minor: int) -> Result:
    if minor >= 35 and _user_namespace(spec):
        return None

    def root(owner: dict[str, Any]) -> bool:
        return _sc(owner).get("runAsUser") == 0 and _sc(owner).get("runAsUser") is not False

    setters = _setters(root(spec), [c.get("name", "") for c in _containers(spec) if root(c)])
    return ("runAsUser=0", f"{' and '.join(setters)} must not set runAsUser=0") if setters else None


def _seccomp_restricted(meta: dict, spec: Spec, minor: int) -> Result:
    if minor >= 25 and _windows(spec):
        return None
    forbidden = _seccomp_baseline(meta, spec, minor)
    if forbidden is not None or _seccomp_type(spec) is not None:    # (an allowed type of the pod's: every container's)
        return forbidden
    implicit = [c.get("name", "") for c in _containers(spec) if _seccomp_type(c) is None]
    if implicit:
        return ("seccompProfile",
                f'pod or {_who(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"')
    return None


Check = Callable[[dict, Spec, int], Result]
# (ID, level, first minor, the baseline check it overrides at restricted level)
_CHECKS: tuple[tuple[str, str, int, str, Check], ...] = (
    ("appArmorProfile", BASELINE, 0, "", _app_armor),
    ("capabilities_baseline", BASELINE, 0, "", _capabilities_baseline),
    ("hostNamespaces", BASELINE, 0, "", _host_namespaces),
    ("hostPathVolumes", BASELINE, 0, "", _host_path),
    ("hostPorts", BASELINE, 0, "", _host_ports),
    ("hostProbesAndHostLifecycle", BASELINE, 34, "", _probe_hosts),
    ("privileged", BASELINE, 0, "", _privileged),
    ("procMount", BASELINE, 0, "", _proc_mount),
    ("seLinuxOptions", BASELINE, 0, "", _selinux),
    ("seccompProfile_baseline", BASELINE, 0, "", _seccomp_baseline),
    ("sysctls", BASELINE, 0, "", _sysctls),
    ("windowsHostProcess", BASELINE, 0, "", _host_process),
    ("allowPrivilegeEscalation", RESTRICTED, 8, "", _privilege_escalation),
    ("capabilities_restricted", RESTRICTED, 22, "capabilities_baseline", _capabilities_restricted),
    ("procMount_restricted", RESTRICTED, 35, "procMount", functools.partial(_proc_mount, relax=False)),
    ("restrictedVolumes", RESTRICTED, 0, "hostPathVolumes", _restricted_volumes),
    ("runAsNonRoot", RESTRICTED, 0, "", _run_as_non_root),
    ("runAsUser", RESTRICTED, 23, "", _run_as_user),
    ("seccompProfile_restricted", RESTRICTED, 19, "seccompProfile_baseline", _seccomp_restricted),
)


def evaluate(lv: LevelVersion, meta: dict, spec: Spec, server_minor: int) -> str:
    """The aggregated forbidden detail of the checks of `lv` the pod fails (`reason (detail), ...`),
    "" when it passes."""
    if lv.level == PRIVILEGED:
        return ""
    minor = lv.minor(server_minor)
    present = [c for c in _CHECKS if minor >= c[2] and (lv.level == RESTRICTED or c[1] == BASELINE)]
    overridden = {c[3] for c in present if c[3]} if lv.level == RESTRICTED else set()
    parts = []
    for check_id, _, _, _, check in present:
        if check_id in overridden:
            continue
        result = check(meta, spec, minor)
        if result is not None:
            reason, detail = result
            parts.append(f"{reason} ({detail})" if detail else reason)
    return ", ".join(parts)


@dataclass(frozen=True)
class Verdict:
    refused: str = ""                  # the API server's message (enforce), "" when admitted
    warnings: tuple[str, ...] = ()     # warn level
    audit: str = ""                    # what the audit log would carry


def validate_pod(pod: dict[str, Any], labels: dict[str, str], server_minor: int) -> Verdict:
    """ValidatePod for a pod create: refused by the enforce level, else warned by the warn level."""
    policy = policy_of(labels)
    if policy.privileged:
        return Verdict()
    meta, spec = as_dict(pod.get("metadata")), as_dict(pod.get("spec"))
    enforce = evaluate(policy.enforce, meta, spec, server_minor)
    audit = evaluate(policy.audit, meta, spec, server_minor)
    audit_text = f"would violate PodSecurity {go_quote(str(policy.audit))}: {audit}" if audit else ""
    if enforce:
        message = (f"pods {go_quote(str(meta.get('name') or ''))} is forbidden: violates PodSecurity "
                   f"{go_quote(str(policy.enforce))}: {enforce}")
        return Verdict(message, (), audit_text)
    warn = evaluate(policy.warn, meta, spec, server_minor)
    warnings = (f"would violate PodSecurity {go_quote(str(policy.warn))}: {warn}",) if warn else ()
    return Verdict("", warnings, audit_text)


def labelled(labels: dict[str, str] | None) -> bool:
    """Whether a namespace's labels set any Pod Security level."""
    return any(k.startswith(PREFIX) for k in labels or {})
