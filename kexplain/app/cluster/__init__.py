"""`kexplain cluster`: what in the cluster is held, and why. The cluster read once (`inputs`), then
a module per section, each a function from that one state to the section's document, composed by
`report`. Never prints."""
