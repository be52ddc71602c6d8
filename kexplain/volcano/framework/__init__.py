"""Volcano's scheduler framework (pkg/scheduler/framework): the session and its plugin hooks."""
