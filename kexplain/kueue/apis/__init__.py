"""The kueue.x-k8s.io/v1beta2 kinds kexplain reads, as the API server and Kueue's webhooks store
them (else bad input), each then a frozen dataclass the engine reads."""
