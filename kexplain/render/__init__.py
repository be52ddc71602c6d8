"""Renderers: every output of kexplain, from a trace (or a batch of them, or a lint report) to
text. They read the trace only (`Trace.to_json()`), never plugin internals.

`views` computes what the human views show (ranks, grouped reasons, the search figures);
`blocks` is what every view is made of and how it is printed; `table` lays out the default
and wide views, `node` one node's verdict (`--node`), `preemption` and `suggestions` their
sections, `facts` the plugins' recorded facts in plain words, `batch` several pods and
replicas, `lint_formats` lint's report, `export` the SVG/HTML copies, `consoles` the consoles
that print the user's words as they are (no markup, no emoji codes). Imports run one way:
table -> node, preemption, suggestions -> blocks, views, style. Plain text (ASCII, 80
columns, trailing blanks trimmed) when the console is not a terminal.
"""
