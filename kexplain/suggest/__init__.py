"""Fix suggestions: each family proposes changes, every one verified by re-running the cycle."""
