"""The AWS provider's instance types (pkg/providers/instancetype), offerings and prices, from EC2's data."""
