"""Kubernetes versions and their feature gates: the one place a minor's differences start from.

`KubeVersion` travels as an argument from the command line to every rule that depends on it
(configuration defaults, admission, plugins); nothing reads it from the environment itself.
"""
from kexplain.features.featuregate import FeatureGateError, FeatureGates
from kexplain.features.kube_version import (DEFAULT, DEFAULT_MINOR, ENV_VAR, NEWEST, RELEASES, SUPPORTED,
                                            KubeVersion, VersionError, parse_minor, resolve, version_json)

__all__ = ["DEFAULT", "DEFAULT_MINOR", "ENV_VAR", "NEWEST", "RELEASES", "SUPPORTED", "FeatureGateError",
           "FeatureGates", "KubeVersion", "VersionError", "parse_minor", "resolve", "version_json"]
