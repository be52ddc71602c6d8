"""The uid admission generates for an object written without one is uuid.uuid5 of its kind,
namespace and name: `uuid5_text` builds the text itself (one per pod of a large unstored
cluster), so it must equal the standard library's for any name."""
from __future__ import annotations

import random
import uuid

from kexplain.apimachinery.identity import _UID_NAMESPACE_BYTES, object_uid, pod_uid, uuid5_text


def test_uuid5_text_equals_the_standard_librarys() -> None:
    namespace = uuid.UUID(bytes=_UID_NAMESPACE_BYTES)
    rng = random.Random(25)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-./é€"
    names = ["", "Pod/default/a", *("".join(rng.choices(alphabet, k=rng.randint(1, 60))) for _ in range(5000))]
    for name in names:
        assert uuid5_text(_UID_NAMESPACE_BYTES, name) == str(uuid.uuid5(namespace, name)), name


def test_object_uid_is_the_written_one_else_derived_from_kind_namespace_and_name() -> None:
    namespace = uuid.UUID(bytes=_UID_NAMESPACE_BYTES)
    pod = {"kind": "Pod", "metadata": {"name": "web-0", "namespace": "shop"}}
    assert object_uid(pod) == str(uuid.uuid5(namespace, "Pod/shop/web-0"))
    assert object_uid({"kind": "Pod", "metadata": {"name": "web-0"}}) == str(uuid.uuid5(namespace, "Pod/default/web-0"))
    assert object_uid({**pod, "metadata": {**pod["metadata"], "uid": "given"}}) == "given"


def test_pod_uid_equals_object_uid_for_a_named_pod_without_uid() -> None:
    rng = random.Random(26)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-.é"
    for _ in range(2000):
        meta = {"name": "".join(rng.choices(alphabet, k=rng.randint(1, 60)))}
        if rng.random() < 0.7:
            meta["namespace"] = rng.choice(["", "shop", "ns-é", "default"])
        pod = {"kind": "Pod", "metadata": meta}
        assert pod_uid(pod) == object_uid(pod) == str(uuid.uuid5(uuid.UUID(bytes=_UID_NAMESPACE_BYTES),
                                                                  f"Pod/{meta.get('namespace') or 'default'}/{meta['name']}"))
