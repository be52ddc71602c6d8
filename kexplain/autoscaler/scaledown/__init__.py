"""CA's scale-down: which nodes are unneeded, and for every other node the reason it stays."""
