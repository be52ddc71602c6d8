"""The Kubernetes versions kexplain follows, in a module cheap enough for the CLI to import."""

KUBE_SCHEDULER_VERSION = "v1.35.4"
DEFAULT_K8S_VERSION = "1.35"          # the minor version whose schemas lint checks by default
