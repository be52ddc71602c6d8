"""Renderers: functions from a trace to text. They read the trace only, never plugin internals.

`views` computes what the human views show (ranks, grouped reasons, the search figures);
`table` lays out the default and wide views, `node` one node's verdict (`--node`),
`preemption` and `suggestions` their sections, `facts` the plugins' recorded facts in plain
words, `export` the SVG/HTML copies. Plain text (ASCII, 80 columns, trailing blanks trimmed)
when the console is not a terminal.
"""
