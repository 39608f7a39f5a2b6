"""The CloudFormation API (query protocol) answered by Eddy: cloudformation_api.py, query_protocol.py."""
