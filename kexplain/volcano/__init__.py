"""Volcano's scheduler (volcano-sh/volcano, pkg/scheduler): one scheduling session over the one cluster
state, as its `runOnce` opens it, runs the configured actions and closes it. The room mirrors
Volcano's packages: `api` (jobs, tasks, nodes, queues, resources), `framework` (the session, the
plugins' registry, the statement, the session's close), `actions`, `plugins`, `cache` (the snapshot),
`conf` (the scheduler configuration), `versions`, `document` (the result)."""
