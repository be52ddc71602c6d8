"""Flavor assignment (pkg/scheduler/flavorassigner): per pod set and resource group, the flavors
in order, each checked against the pod's tolerations and node selection, then against quota;
the flavor fungibility rules deciding when to stop; the reasons kept as Kueue words them and as
values (`FlavorTrial`) for the explanation."""
