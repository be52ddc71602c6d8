"""A Workload's facts in one place (pkg/workload): the object and its status conditions
(`workload.py`), requests and usage per pod set (`info.py`), the queue order it sorts by
(`ordering.py`)."""
