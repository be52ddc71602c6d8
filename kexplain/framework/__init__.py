"""The scheduling framework: statuses, cycle state, plugin protocols, the runner and schedule_pod."""
