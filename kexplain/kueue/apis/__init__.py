"""The kueue.x-k8s.io/v1beta2 kinds kexplain reads, as the API server stores them: each kind's
CRD schema and rules (`schema.py`), the defaults it writes, the Kueue webhooks' checks, then a
frozen dataclass the engine reads. An object the API server or Kueue's webhooks would refuse is
bad input."""
