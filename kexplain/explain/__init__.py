"""Explaining pods: the request, the inputs, one run, batches and placement. Never prints."""
