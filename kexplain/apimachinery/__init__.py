"""Kubernetes API machinery every layer shares: quantities, field errors with Go-exact quoting,
name and label validation, well-known labels, versions."""
