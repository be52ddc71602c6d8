"""Reading manifests: files, directories, stdin, multi-document YAML, Lists, workload templates."""
