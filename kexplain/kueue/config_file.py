"""Where Kueue's Configuration comes from besides a document among the objects: `--kueue-config FILE`,
read as Kueue's manager reads its --config (one document, `config.parse_configuration`: strict,
validated) and handed to a pass as one more cluster object; and Kueue's manager ConfigMap (live, or
a snapshot's), whose `controller_manager_config.yaml` is that same file."""
from __future__ import annotations

from typing import Any

from kexplain.errors import InputError, KexplainError, Source
from kexplain.kueue.config import GROUP, KIND, is_configuration, parse_configuration
from kexplain.kueue.controller.jobframework.defaults import default_queue_namespaces
from kexplain.kueue.objects import MANAGER_CONFIG_MAP, meta_of
from kexplain.load.manifests import load_objects
from kexplain.load.yaml_io import parse_documents

Objects = list[tuple[dict[str, Any], Source]]


def read_kueue_config(path: str | None, max_bytes: int) -> Objects:
    """The Configuration in `path` (none when no path), refused as Kueue's config loader refuses it."""
    if not path:
        return []
    objects = load_objects([path], max_bytes)
    if len(objects) != 1:
        raise InputError(f"--kueue-config: one {KIND} document expected ({GROUP}/v1beta1 or v1beta2), "
                         f"{len(objects)} found", source=Source(path))
    obj, src = objects[0]
    if not is_configuration(obj):
        raise InputError(f"--kueue-config: a {KIND} of {GROUP} expected, got kind {obj.get('kind')!r} of "
                         f"{obj.get('apiVersion')!r}", source=src)
    parse_configuration(obj, src, gates=None)     # (its featureGates: by the pass, which knows the release)
    return objects


# The key of Kueue's manager ConfigMap (`objects.MANAGER_CONFIG_MAP`, mounted as its --config)
MANAGER_CONFIG_KEY = "controller_manager_config.yaml"


def is_manager_config_map(obj: Any) -> bool:
    """Kueue's manager ConfigMap (by its name, in whatever namespace Kueue is installed)."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return obj.get("kind") == "ConfigMap" and meta.get("name") == MANAGER_CONFIG_MAP


def configuration_of(config_map: dict[str, Any], source: Source) -> tuple[dict[str, Any], Source] | None:
    """The Configuration in Kueue's manager ConfigMap (its `controller_manager_config.yaml`) and where it
    was read, None
    without that key; text that is not one YAML object is bad input, as Kueue's manager fails on it."""
    text = (config_map.get("data") or {}).get(MANAGER_CONFIG_KEY) if isinstance(config_map.get("data"), dict) \
        else None
    if not isinstance(text, str):
        return None
    meta = config_map.get("metadata") or {}
    where = Source(f"{source}: ConfigMap {meta.get('namespace') or 'default'}/{meta.get('name')} {MANAGER_CONFIG_KEY}")
    try:
        docs = [d.value for d in parse_documents(text, str(where)) if d.value is not None]
    except KexplainError as err:
        raise InputError(err.message, source=where) from None
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise InputError(f"one {KIND} object expected, {len(docs)} document(s) found", source=where)
    return docs[0], where


def manages_without_queue_name(context: Objects) -> bool:
    """Whether the Configuration among `context` (a document, or Kueue's manager ConfigMap's) sets
    `manageJobsWithoutQueueName`: then the jobs without a queue name go to Kueue's pass too, whose
    reconciler decides (`Management`). A Configuration that does not read is the pass's to refuse."""
    for obj, src in context:
        try:
            found = configuration_of(obj, src) if is_manager_config_map(obj) else (obj, src)
        except KexplainError:
            continue
        if found is not None and is_configuration(found[0]) and found[0].get("manageJobsWithoutQueueName") is True:
            return True
    return False


def submitted_of(labelled: list[int], unlabelled: list[int], context: Objects, objs: Objects) -> list[int]:
    """The jobs Kueue's pass takes (`objects.candidates`, indexes into `objs`): the labelled, and the
    unlabelled too when the Configuration among `context` manages jobs without a queue name; else
    those in a namespace with a LocalQueue named `default` (Kueue's webhooks give a job there its
    name: `jobframework.defaults`; a job elsewhere is not Kueue's, so it gets no Kueue line)."""
    if not unlabelled:
        return labelled
    if manages_without_queue_name(context):
        return sorted([*labelled, *unlabelled])
    namespaces = default_queue_namespaces(context)
    defaulted = [i for i in unlabelled if namespaces and str(meta_of(objs[i][0]).get("namespace") or "default") in namespaces]
    return sorted([*labelled, *defaulted])


def external_frameworks_of(context: Objects) -> tuple[str, ...]:
    """The `integrations.externalFrameworks` of the last Configuration among `context` (a document, or
    Kueue's manager ConfigMap's), as the pass reads them (the last read is the one it keeps), as
    written: the pass validates them; () when none is given."""
    names: tuple[str, ...] = ()
    for obj, src in context:
        if not isinstance(obj, dict):
            continue
        try:
            found = configuration_of(obj, src) if is_manager_config_map(obj) else (obj, src)
        except KexplainError:
            continue
        if found is None or not isinstance(found[0], dict) or not is_configuration(found[0]):
            continue
        integrations = found[0].get("integrations")
        given = integrations.get("externalFrameworks") if isinstance(integrations, dict) else None
        names = tuple(n for n in given if isinstance(n, str)) if isinstance(given, list) else ()
    return names
