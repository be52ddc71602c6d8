"""The one cluster state, read and admitted once; every decision overlays its changes on it."""
