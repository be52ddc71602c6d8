"""Dynamic Resource Allocation for the DynamicResources plugin: the pod's claims (claims), the
cluster's DRA objects (inventory), the pools a node sees (pools), selectors (selectors), the
structured allocator (allocator), the per-node verdict (state), Score (scoring), what binding
writes into the claims (binding) and the facts behind a verdict (explain)."""
