"""Stack files (tables, functions, mappings) and SAM / CloudFormation templates deployed as CloudFormation stacks,
with boto3, to Eddy or to any AWS endpoint.

    from eddy.infra import apply_stack
    apply_stack("infra/examples/stack.yaml", endpoint_url="http://127.0.0.1:4566")
"""

from eddy.infra.apply import apply_stack

__all__ = ["apply_stack"]
