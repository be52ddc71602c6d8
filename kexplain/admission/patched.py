"""How a bound pod kept as written is admitted by its shape's patch (`pipeline._patched_admission`).

One `ShapeAdmission` per shape, its look-ups bound once (it runs for each of 150,000 pods); each pod
takes its name here, where its memory is read anyway. Its memos: `zone_labels`, `template`, and the admitted
containers' texts by the texts a pod writes (`own_view`: a shape has one template).
"""
from __future__ import annotations

from typing import Any, Callable

from msgspec import Raw

from kexplain.apimachinery import stored_pods
from kexplain.apimachinery.identity import pod_uid_of
from kexplain.apimachinery.stored_pods import StoredPod
from kexplain.admission.shapes import IMAGED as _IMAGED, image_pieces as shapes_image_pieces, image_values, \
    string_spans, volume_names

_UNSET = object()
_MADE_MAX = 4096      # (`OwnNames.made`: distinct written texts kept per shape, at most)
# An admitted view of a shape: the view of its first pod admitted, its labels as patched (before
# its node's zone labels), whether those are each pod's own as written (the patch leaves them).
Template = tuple[stored_pods.PodView, Any, bool]


class ShapeAdmission:
    """The admission of the bound pods of one shape: the name taken, the shape's patch applied
    (`apply`), the node's zone labels copied. `admit` is what the pipeline calls per pod."""

    __slots__ = ("apply", "pod_keys", "namespaces", "namespace_seen", "node_topology", "topology_labels",
                 "merged", "template", "admitted", "volumes_own", "names", "images", "own_containers", "owners_own")

    def __init__(self, apply: Callable[[dict, dict], dict], pod_keys: Any, namespaces: set[str],
                 namespace_seen: Callable[[str], None], node_topology: dict[str, dict[str, str]],
                 topology_labels: Callable[[Any], dict[str, str]], labels_shared: bool, images_own: bool,
                 volumes_own: bool, owners_own: bool = False) -> None:
        self.apply = apply
        self.pod_keys = pod_keys
        self.namespaces = namespaces
        self.namespace_seen = namespace_seen
        self.node_topology = node_topology
        self.topology_labels = topology_labels
        # zone -> the labels of a pod of the shape with that zone's labels copied, when the
        # shape's labels are alike in all its pods (`labels_shared`: then its pods share them).
        # Keyed by the id of the zone's labels: one dict per zone, interned and kept for the run
        # by the pipeline (`_topology_labels`), so the id is the zone's for the run.
        self.merged: dict[int, Any] | None = {} if labels_shared else None
        self.template: Template | None | Any = _UNSET     # made for the shape's first pod read as a view
        self.admitted = self.admitted_of        # bound once: each view keeps it
        # when the shape's pods name their volumes each its own, their mounts too: each pod's view keeps its
        # volumes' and containers' texts (a template only where admission leaves them as written)
        self.volumes_own = volumes_own
        self.names: OwnNames | None = None      # (made with the template)
        # when the shape's pods may differ in their images: the admitted containers' texts by images
        self.images: OwnImages | None = OwnImages() if images_own and not volumes_own else None
        # a pod's containers' and init containers' texts -> the template's with its images (None: not told)
        self.own_containers: dict[tuple[bytes, bytes], tuple[Any, Any] | None] = {}
        # whether the shape's pods may name each their own owners (`shapes.holds_own`): a view keeps its own
        # references' text (the first pod's admitted as written: `first_template` compares them)
        self.owners_own = owners_own

    def zone_labels(self, labels: Any, copied: dict[str, str]) -> Any:
        """The labels of a pod of the shape on a node of the zone `copied` names (its labels
        as patched: `labels`); None when they are those."""
        merged = self.merged
        found = merged.get(id(copied), _UNSET) if merged is not None else _UNSET
        if found is _UNSET:
            if not isinstance(labels, dict):
                found = dict(copied)
            elif labels.items() >= copied.items():     # its node's zone already (compared in C)
                found = None
            else:
                found = {**labels, **copied}           # as `dict.update`: new keys last
            if merged is not None:
                merged[id(copied)] = found
        return found

    def node_zone(self, node_name: Any) -> dict[str, str]:
        """The zone labels of the node `node_name` (empty: none to copy)."""
        copied = self.node_topology.get(node_name) if type(node_name) is str else None
        return copied if copied is not None else self.topology_labels(node_name)

    def admitted_of(self, pod: dict) -> dict:
        """The pod admitted, its name taken: the shape's patch, its node's zone labels."""
        admitted = self.apply(pod, pod)
        if self.images is not None:
            self.images.share(admitted, pod)
        copied = self.node_zone(pod["spec"].get("nodeName"))
        if copied:
            meta, new_meta = pod["metadata"], admitted["metadata"]
            labels = self.zone_labels(new_meta.get("labels"), copied)
            if labels is not None:
                if new_meta is meta:
                    new_meta = admitted["metadata"] = meta.copy()
                new_meta["labels"] = labels
        return admitted

    def first_template(self, pod: StoredPod) -> Template | None:
        """The shape's `view_template` made for its first pod read as a view; None when the shape's pods
        are not alike but in their own values."""
        found = view_template(pod, self.apply, self.admitted)
        if found is not None and self.volumes_own:
            self.names = OwnNames.of(pod.view.spec, found[0].spec)
            if self.names is None:
                return None
        if found is not None and (self.merged is None and not found[2]
                                  or not stored_pods.alike(self.own_view(pod, found), found[0])):
            return None
        return found

    def own_view(self, pod: StoredPod, template: Template) -> stored_pods.PodView | None:
        """The shape's admitted view with `pod`'s own values: uid, name, labels, zone labels, images;
        None when its images are not read from its text."""
        view, patched_labels, own_labels = template
        own = pod.view
        spec, mine = view.spec, own.spec
        containers = spec.containers, spec.initContainers
        volumes = spec.volumes
        if self.names is not None:
            texts = self.names.texts(mine)
            if texts is None:
                return None
            *containers, volumes = texts
        elif self.images is not None:
            written = (bytes(mine.containers), bytes(mine.initContainers))
            found = self.own_containers.get(written, _UNSET)
            if found is _UNSET:
                found = self.own_containers[written] = self.images.containers(containers, mine)
            if found is None:
                return None
            containers = found
        meta = own.metadata
        if own_labels:
            patched_labels = meta.labels
        node = mine.nodeName            # (`node_zone`, inline)
        copied = self.node_topology.get(node) if type(node) is str else None
        if copied is None:
            copied = self.topology_labels(node)
        labels = self.zone_labels(patched_labels, copied) if copied else None
        uid = meta.uid or pod_uid_of(meta.namespace, meta.name)
        return stored_pods.with_own(view, own, uid, patched_labels if labels is None else labels, *containers, volumes,
                                    self.owners_own)

    def admit(self, pod: dict | StoredPod) -> dict | StoredPod | None:
        """The pod admitted (None: its name is taken): a view as the shape's admitted view with the pod's
        own values (`own_view`), or an object when the shape has no template."""
        viewed = type(pod) is StoredPod
        if viewed:
            own = pod.view.metadata
            namespace = own.namespace or "default"
            key = (namespace, own.name)
        else:
            namespace = pod["metadata"].get("namespace") or "default"
            key = (namespace, pod["metadata"]["name"])
        pod_keys = self.pod_keys
        if key in pod_keys:
            return None
        pod_keys.add(key)
        if namespace not in self.namespaces:
            self.namespace_seen(namespace)
        if not viewed:
            return self.admitted_of(pod)
        template = self.template
        if template is _UNSET:
            template = self.template = self.first_template(pod)
        view = self.own_view(pod, template) if template is not None else None
        if view is None:
            return self.admitted_of(pod.obj)
        listed = pod.listed
        return StoredPod(pod.raw, view, self.admitted if listed is None else Admitted(listed, self.admitted))


class Admitted:
    """The `listed` of a pod admitted as a view whose reader gave it defaults (`listed`): its object is its
    text's with those, admitted (`admitted_of`), as the pod's own object was admitted."""

    __slots__ = ("listed", "admitted")

    def __init__(self, listed: Callable[[Any], Any], admitted: Callable[[dict], dict]) -> None:
        self.listed, self.admitted = listed, admitted

    def __call__(self, whole: Any) -> dict:
        return self.admitted(self.listed(whole))


class OwnNames:
    """The admitted containers' and volumes' texts of a shape's first pod with another pod's images and volume
    names (the shape's pods name their volumes each their own: `shapes.volumes_own`), each text cut where it
    writes them: an image each (`shapes.image_values`), a volume's name where only it and its mounts do."""

    __slots__ = ("count", "cuts", "made")

    def __init__(self, count: int, cuts: list[tuple[Raw, list[bytes], list[tuple[int, int]]]]) -> None:
        self.count = count          # the volumes
        self.cuts = cuts            # per text (containers, init containers, volumes): it, its pieces and slots
        self.made: dict[tuple[bytes, bytes, bytes], Any] = {}    # the written texts -> `texts`' answer

    @classmethod
    def of(cls, written: Any, admitted: Any) -> "OwnNames | None":
        """The cuts of the `admitted` spec's texts by the volume names of the `written` one; None when a
        name is written where no mount names it."""
        names = volume_names(written)
        if names is None:
            return None
        cuts = []
        for text, volumes in ((admitted.containers, False), (admitted.initContainers, False), (admitted.volumes, True)):
            cut = _cut(bytes(text), names, volumes) if text else ([], [])
            if cut is None:
                return None
            cuts.append((text, *cut))
        return cls(len(names), cuts)

    def texts(self, mine: Any) -> tuple[Raw, Raw, Raw] | None:
        """The texts with the images and volume names of the written spec `mine`; None when they cannot be told.
        Once per distinct written texts (the pods of a workload write them alike)."""
        key = (bytes(mine.containers), bytes(mine.initContainers), bytes(mine.volumes))
        found = self.made.get(key, _UNSET)
        if found is _UNSET:
            found = self._texts(mine)
            if len(self.made) < _MADE_MAX:
                self.made[key] = found
        return found

    def _texts(self, mine: Any) -> tuple[Raw, Raw, Raw] | None:
        names = volume_names(mine)
        if names is None or len(names) != self.count:
            return None
        out = []
        for (admitted, pieces, slots), text in zip(self.cuts, (mine.containers, mine.initContainers, None)):
            if not slots:
                out.append(admitted)
                continue
            images = image_values(bytes(text)) if text else []
            if images is None or sum(kind == 0 for kind, _ in slots) != len(images):
                return None
            joined = pieces.copy()
            joined[1::2] = [images[k] if kind == 0 else names[k] for kind, k in slots]
            out.append(Raw(b"".join(joined)))
        return out[0], out[1], out[2]


# where a containers list's text writes an image (0) or names a volume (1), and a volumes list's text a name
_CONTAINER_PATHS = {("*", "image"): 0, ("*", "volumeMounts", "*", "name"): 1, ("*", "volumeDevices", "*", "name"): 1}
_VOLUME_PATHS = {("*", "name"): 1}


def _cut(text: bytes, names: list[bytes], volumes: bool) -> tuple[list[bytes], list[tuple[int, int]]] | None:
    """`text` cut where it writes an image (each `"image"` one, as `shapes.image_values` reads them) and
    a volume's name (one of `names`): text, value, ..., text, and each value's slot (0 and the image's
    place, or 1 and the volume's)."""
    spans = string_spans(text, _VOLUME_PATHS if volumes else _CONTAINER_PATHS)
    if spans is None or not volumes and sum(kind == 0 for _, _, kind in spans) != text.count(b'"image"'):
        return None
    pieces, slots, at, images = [], [], 0, 0
    for start, end, kind in spans:
        value = text[start:end]
        if kind == 0:
            slots.append((0, images))
            images += 1
        elif value in names:
            slots.append((1, names.index(value)))
        else:
            return None
        pieces += (text[at:start], value)
        at = end
    pieces.append(text[at:])
    return pieces, slots


class OwnImages:
    """The admitted view of a shape's first pod with another pod's images in its containers' texts
    (`shapes.image_pieces`), one text per list of images written."""

    __slots__ = ("pieces", "lists")

    def __init__(self) -> None:
        self.pieces: dict[int, tuple[Any, list[bytes] | None]] = {}   # id(template's Raw) -> (it, its pieces)
        self.lists: dict[tuple[str, tuple[Any, ...]], Any] = {}   # (field, images) -> admitted containers

    def share(self, admitted: dict, pod: dict) -> None:
        """One admitted containers list for the pods of the shape with the same images (the rest alike)."""
        spec = admitted.get("spec")
        if type(spec) is not dict or spec is pod.get("spec"):
            return
        for field in _IMAGED:
            containers = spec.get(field)
            if type(containers) is list:
                key = (field, tuple(c.get("image") if type(c) is dict else None for c in containers))
                found = self.lists.setdefault(key, containers)
                if found is not containers:
                    spec[field] = found

    def containers(self, admitted: tuple[Any, Any], mine: Any) -> tuple[Any, Any] | None:
        """The `admitted` containers' and init containers' texts with the images of the spec `mine`; None when
        they cannot be told."""
        containers = self._own(admitted[0], mine.containers)
        init = self._own(admitted[1], mine.initContainers)
        return None if containers is None or init is None else (containers, init)

    def _own(self, admitted: Any, written: Any) -> Any:
        """The admitted containers' text `admitted` with the images of the written one; None when unknown."""
        if not admitted:
            return admitted
        held = self.pieces.get(id(admitted))
        if held is None:
            held = self.pieces[id(admitted)] = (admitted, shapes_image_pieces(bytes(admitted)))
        pieces = held[1]
        values = image_values(bytes(written))
        if pieces is None or values is None or 2 * len(values) + 1 != len(pieces):
            return None
        if values == pieces[1::2]:
            return admitted
        out = pieces.copy()
        out[1::2] = values
        return Raw(b"".join(out))


def view_template(pod: StoredPod, apply: Callable[[dict, dict], dict], admitted_of: Callable[[dict], dict]
                  ) -> Template | None:
    """What the pods of a shape read as views are admitted as: `pod`'s view admitted, its labels as
    patched, and whether those are each pod's own; None when the patch changes the status."""
    written = stored_pods.whole(pod.raw)
    if pod.listed is not None:      # (as its object reads: with what its reader gives it, a uid, a time)
        written = pod.listed(written)
    admitted = admitted_of(written)
    if admitted.get("status") is not written.get("status"):     # (what the patch leaves is shared)
        return None
    written_labels = (written.get("metadata") or {}).get("labels")
    patched_labels = (apply(written, written).get("metadata") or {}).get("labels")
    if patched_labels is not None and type(patched_labels) is not dict:
        return None
    view = stored_pods.view_of(admitted)
    return (view, patched_labels, patched_labels is written_labels) if view is not None else None
