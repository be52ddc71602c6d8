"""Kubernetes API machinery every layer shares, each rule once: quantities (one parser and
printer), field errors with Go-exact quoting, name and label validation, selector requirements,
strconv.ParseInt, well-known labels and annotations, unstructured helpers, versions."""
