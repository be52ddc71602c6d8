"""Renderers: every output of kexplain, from a trace (a batch, a lint report) to text. They read
the trace only (`Trace.to_json()`), never plugin internals; plain text (ASCII, 80 columns) off a
terminal. Modules and import order: docs/internals/render.md."""
