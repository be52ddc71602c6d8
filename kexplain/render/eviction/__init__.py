"""`kexplain evict`'s table views, a module per family (`pressure`, `drain`, `taints`), each
`print_document(doc, console)` reading only the family's document."""
