"""`kexplain evict`'s application: the wiring (`request`: the cluster read once into the one cluster state)
and one module per family's pass (`pressure`, `drain`, `taints`). Empty, so that a pass reusing one
part (Karpenter's chain, the drain's budgets) imports that part alone."""
