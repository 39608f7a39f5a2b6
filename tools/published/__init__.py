"""The published suites' re-count: LocalStack's AWS-validated tests run unmodified against `eddy serve`."""
