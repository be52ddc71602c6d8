"""The Cluster Autoscaler's decisions, explained: scale-up and scale-down of node groups.

Mirrors cluster-autoscaler's seams (openshift/kubernetes-autoscaler 70920d3c6f5f, Kubernetes
v1.36.2 vendored): node groups and their templates, pod list processors, the binpacking
estimator, the expanders, the scale-up orchestrator and the scale-down planner. Scheduling on a
template reuses kexplain's own framework and plugins of the Kubernetes version followed; this
package never prints.
"""
