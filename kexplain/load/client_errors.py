"""The Kubernetes client's failures in kexplain's own types, so that `load.live` can tell them
apart without importing the client (`load.kube_client` raises them; importing the client costs
about 0.2 s, which a run on files never pays)."""
from __future__ import annotations


class ApiStatus(Exception):
    """The API server answered a status that is not a success (as the client's ApiException:
    `status` 0 is how the client reports a TLS failure)."""

    def __init__(self, status: int | None, reason: str | None, body: str | bytes | None) -> None:
        super().__init__(f"({status}) {reason}")
        self.status, self.reason, self.body = status, reason, body


class Unreachable(Exception):
    """The request did not get an answer: `kind` is "connect" (refused, no such host, ...),
    "timeout" or "tls"; `error` the transport's own exception (its words and causes)."""

    def __init__(self, kind: str, error: BaseException) -> None:
        super().__init__(str(error))
        self.kind, self.error = kind, error

    @classmethod
    def of_os_error(cls, error: OSError) -> "Unreachable":
        """A socket's failure met outside the client's transport."""
        return cls("timeout" if isinstance(error, TimeoutError) else "connect", error)


class ClientConfigError(Exception):
    """The client could not be configured (a kubeconfig it cannot read or use, the in-cluster
    service account, an exec credential plugin that failed); `error` is its own exception."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error
