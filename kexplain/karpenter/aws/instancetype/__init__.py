"""pkg/providers/instancetype: instance types resolved for an EC2NodeClass, their offerings and the NodeClass compatibility checks."""
