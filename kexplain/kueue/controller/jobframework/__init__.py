"""The job framework (pkg/controller/jobframework): the GenericJob seam every integration
implements, the Workload's name, constructWorkload and prepareWorkload."""
