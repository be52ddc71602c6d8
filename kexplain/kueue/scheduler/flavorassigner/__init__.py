"""Flavor assignment (pkg/scheduler/flavorassigner), its reasons kept as Kueue words them and as
values (`FlavorTrial`) for the explanation."""
