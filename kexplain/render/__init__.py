"""Renderers: functions from a trace to text. They read the trace only, never plugin internals."""
