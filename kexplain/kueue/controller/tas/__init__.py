"""Kueue's TAS controllers (pkg/controller/tas): the topology ungater (`ungater`)."""
