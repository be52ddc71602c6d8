"""A Workload as the cluster stores it (its status read back), shown beside what kexplain computes: the
`live` key of a live answer, the `stored` key of a given Workload in `kexplain kueue`'s document."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.kueue.objects import meta_of
from kexplain.kueue.workload.topology_domains import stored_domains


def stored_status(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A Workload as the cluster stores it (the `live` key beside Kueue's answer): its name, conditions,
    admission (with each pod set's topologyAssignment, and its domains read back: `topologyDomains`), admission
    check states and requeue state."""
    status = obj.get("status") if isinstance(obj.get("status"), Mapping) else {}
    admission = status.get("admission") if isinstance(status.get("admission"), Mapping) else {}
    topology = {str(psa.get("name")): {"levels": list(psa["topologyAssignment"].get("levels") or ()),
                                       "domains": stored_domains(psa["topologyAssignment"])}
                for psa in admission.get("podSetAssignments") or ()
                if isinstance(psa, Mapping) and isinstance(psa.get("topologyAssignment"), Mapping)}
    return {"workload": f"{meta_of(obj).get('namespace')}/{meta_of(obj).get('name')}",
            **({"topologyDomains": topology} if topology else {}),
            "conditions": [{k: cond.get(k) for k in ("type", "status", "reason", "message")}
                           for cond in status.get("conditions") or () if isinstance(cond, Mapping)],
            **{k: status[k] for k in ("admission", "admissionChecks", "requeueState") if status.get(k)}}
