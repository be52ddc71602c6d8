"""One explanation: the pod's profile bound to its cluster, and one scheduling cycle, traced. Never prints."""
from __future__ import annotations

from dataclasses import replace

from kexplain.errors import KexplainError
from kexplain.eviction.evicted import evicted
from kexplain.explain import pod_notes
from kexplain.explain.pod_inputs import Inputs
from kexplain.explain.kubelet import bound_node, kubelet_trace
from kexplain.explain.request import Request, RunOptions
from kexplain.framework.runtime import Framework
from kexplain.framework.schedule import Options, schedule_pod
from kexplain.framework.trace import Trace
from kexplain.plugins import plugin_class
from kexplain.plugins.names import DEFAULT_PREEMPTION


def explain(inputs: Inputs, options: RunOptions | Request) -> Trace:
    """The trace of one scheduling cycle of `inputs.pod`, or its kubelet's verdict when it names its node."""
    if isinstance(options, Request):
        options = options.run
    node = bound_node(inputs.pod, inputs)
    if node is not None:
        trace = kubelet_trace(inputs, options, node)
    else:
        trace = schedule_pod(framework_for(inputs, options), inputs.pod, schedule_options(inputs, options))
    pod_notes.record(trace.extra, inputs.pod, inputs.snapshot, inputs.config.kube)      # beyond its manifest
    removed = evicted(inputs.pod.obj)       # who removed it and why, as its status says
    if removed is not None:
        trace.extra["eviction"] = removed
    return trace


def schedule_options(inputs: Inputs, options: RunOptions) -> Options:
    """The framework's options for one cycle run as `options` say."""
    return Options(
        start_index=options.start_index, global_percentage=inputs.config.percentage_of_nodes_to_score,
        filter_all=options.filter_all, details=options.details, explain_nodes=options.explain_nodes,
        unexamined=options.unexamined)


def framework_for(inputs: Inputs, options: RunOptions | Request) -> Framework:
    """The pod's profile bound to the snapshot, without DefaultPreemption when preemption is off."""
    if isinstance(options, Request):
        options = options.run
    scheduler_name = inputs.pod.spec.get("schedulerName") or "default-scheduler"
    try:
        profile = inputs.config.profile_for(scheduler_name)
    except KexplainError as err:
        err.source = err.source or inputs.pod_source
        raise
    if not options.preemption:
        plugins = dict(profile.plugins)
        plugins["postFilter"] = tuple(n for n in plugins.get("postFilter", ()) if n != DEFAULT_PREEMPTION)
        profile = replace(profile, plugins=plugins)
    registry = {name: plugin_class(name) for names in profile.plugins.values() for name in names}
    return Framework(profile, registry, inputs.snapshot, inputs.nominated,
                     preemption_offset=options.preemption_offset)
