"""kubectl drain's filters (`eviction.drain.filters`), table-tested as filters_test.go does, and
GetPodsForDeletion's list order and aggregated words (`eviction.drain.drain`)."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kexplain.eviction.drain.drain import pods_for_deletion
from kexplain.eviction.drain.filters import (DAEMONSET_FATAL, DAEMONSET_WARNING, FILTERS, LOCAL_STORAGE_FATAL,
                                             LOCAL_STORAGE_WARNING, UNMANAGED_WARNING, Helper, daemonset,
                                             filter_pod, local_storage, mirror, skip_deleted, unreplicated)
from kexplain.eviction.versions import drain_rules
from kexplain.model.pod import PodInfo

RULES = drain_rules("1.36")


def pod(name: str = "p", namespace: str = "default", owner: str | None = "ReplicaSet", phase: str = "Running",
        emptydir: bool = False, mirror_pod: bool = False, owner_api: str = "apps/v1", **meta) -> PodInfo:
    m: dict = {"name": name, "namespace": namespace, **meta}
    if owner:
        m["ownerReferences"] = [{"apiVersion": owner_api, "kind": owner, "name": "ds" if owner == "DaemonSet" else "rs",
                                 "controller": True}]
    if mirror_pod:
        m["annotations"] = {"kubernetes.io/config.mirror": "x"}
    spec = {"nodeName": "n1", "volumes": [{"name": "v", "emptyDir": {}}] if emptydir else []}
    return PodInfo({"apiVersion": "v1", "kind": "Pod", "metadata": m, "spec": spec, "status": {"phase": phase}})


def helper(**flags) -> Helper:
    return Helper(RULES, frozenset({("default", "ds")}), **flags)


def test_the_filters_are_kubectls_in_its_order():
    assert [f.__name__ for f in FILTERS] == ["skip_deleted", "daemonset", "mirror", "local_storage", "unreplicated"]


@pytest.mark.parametrize("subject, flags, want", [
    (pod(owner="DaemonSet"), {}, (False, "Error", DAEMONSET_FATAL, "--ignore-daemonsets")),
    (pod(owner="DaemonSet"), {"ignore_daemonsets": True}, (False, "Warning", DAEMONSET_WARNING, "--ignore-daemonsets")),
    (pod(owner="DaemonSet", phase="Succeeded"), {}, (True, "Okay", "", "")),
    (pod(owner="DaemonSet", namespace="other"), {}, (False, "Error", 'daemonsets.apps "ds" not found', "--force")),
    (pod(owner="DaemonSet", namespace="other"), {"force": True},
     (True, "Warning", 'daemonsets.apps "ds" not found', "--force")),
    (pod(owner="DaemonSet", owner_api="extensions/v1beta1"), {}, (True, "Okay", "", "")),  # not apps/v1: not a DS
    (pod(owner="ReplicaSet"), {}, (True, "Okay", "", "")),
])
def test_daemonset_filter(subject, flags, want):
    got = daemonset(subject, helper(**flags))
    assert (got.delete, got.reason, got.message, got.flag) == want


@pytest.mark.parametrize("subject, flags, want", [
    (pod(emptydir=True), {}, (False, "Error", LOCAL_STORAGE_FATAL)),
    (pod(emptydir=True), {"delete_emptydir_data": True}, (True, "Warning", LOCAL_STORAGE_WARNING)),
    (pod(emptydir=True, phase="Failed"), {}, (True, "Okay", "")),
    (pod(), {}, (True, "Okay", "")),
])
def test_local_storage_filter(subject, flags, want):
    got = local_storage(subject, helper(**flags))
    assert (got.delete, got.reason, got.message) == want


@pytest.mark.parametrize("minor, fatal", [("1.33", "cannot delete Pods that declare no controller (use --force "
                                                    "to override)"),
                                          ("1.36", "Pods that declare no controller (use --force to override)")])
def test_unreplicated_filter_words_by_minor(minor, fatal):
    rules = drain_rules(minor)
    assert unreplicated(pod(owner=None), Helper(rules, frozenset())).message == fatal
    forced = unreplicated(pod(owner=None), Helper(rules, frozenset(), force=True))
    assert (forced.delete, forced.reason, forced.message) == (True, "Warning", UNMANAGED_WARNING)
    assert unreplicated(pod(owner=None, phase="Succeeded"), Helper(rules, frozenset())).delete


def test_mirror_pods_are_skipped_and_deleted_ones_only_after_the_timeout():
    assert mirror(pod(mirror_pod=True), helper()).reason == "Skip"
    deleting = pod(deletionTimestamp="2026-01-01T00:00:00Z")
    later = datetime(2026, 1, 1, 0, 1, tzinfo=timezone.utc)
    assert skip_deleted(deleting, helper(now=later)).reason == "Okay"          # kubectl drain's default: 0
    assert skip_deleted(deleting, helper(now=later, skip_wait_for_delete_timeout=30)).reason == "Skip"
    assert skip_deleted(deleting, helper(now=later, skip_wait_for_delete_timeout=90)).reason == "Okay"


def test_a_later_filter_drops_an_earlier_warning():
    """kubectl's TODO: the local-storage warning is replaced by the unreplicated filter's answer."""
    got = filter_pod(pod(emptydir=True), helper(delete_emptydir_data=True))
    assert (got.delete, got.reason, got.filter) == (True, "Okay", "unreplicatedFilter")
    stopped = filter_pod(pod(owner=None, emptydir=True), helper())
    assert (stopped.reason, stopped.message, stopped.filter) == ("Error", LOCAL_STORAGE_FATAL, "localStorageFilter")


def test_pods_for_deletion_lists_by_storage_key_and_aggregates_kubectls_words():
    pods = [pod("b", owner=None), pod("a", owner=None), pod("x", namespace="a-b", owner=None),
            pod("d", owner="DaemonSet"), pod("e", emptydir=True)]
    listed = pods_for_deletion(pods, helper(ignore_daemonsets=True))
    assert [i.key for i in listed.items] == ["a-b/x", "default/a", "default/b", "default/d", "default/e"]
    assert listed.errors() == [f"cannot delete {RULES.unmanaged_fatal}: a-b/x, default/a, default/b",
                               f"cannot delete {LOCAL_STORAGE_FATAL}: default/e"]
    assert listed.warnings() == [f"{DAEMONSET_WARNING}: default/d"]
    assert listed.pods() == []
