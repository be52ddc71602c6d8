"""Volcano's scheduler API (pkg/scheduler/api): resources, tasks, jobs, nodes, queues, fit errors."""
