"""moto's services whose Python packages a plain install of Eddy leaves out, answered with what to install.

A plain `pip install eddy` brings moto without its extras (moto[server] alone is 200 MB: cfn-lint, sympy,
networkx, docker, ...) and the packages of the services Eddy serves. A request to a service of moto that needs one
of the others (CloudFormation: cfn-lint; Cognito: joserfc; Step Functions: antlr4; API Gateway:
openapi-spec-validator; ...) is answered with one line naming it and the extra that brings them all, in both doors:
AWS's NotImplemented (HTTP 501, which SDKs do not retry), the line also logged.
"""

from __future__ import annotations

import logging

from eddy.emulator.errors import AWSError
from eddy.emulator.aws_requests import Response, error_response

EXTRA = "all-services"
log = logging.getLogger("eddy")


class ServiceNeedsExtra(AWSError):
    code = "NotImplemented"
    status = 501

    def __init__(self, module: str) -> None:
        super().__init__(
            f"moto needs the Python package {module!r} for this service, which a plain install of "
            f'Eddy leaves out: pip install "eddy[{EXTRA}]"'
        )


def missing_package(error: ModuleNotFoundError, method: str, url: str) -> Response:
    """The answer to a request moto could not serve for want of `error`'s module (logged once per request)."""
    refusal = ServiceNeedsExtra((error.name or "?").split(".")[0])
    log.warning("%s %s: %s", method, url, refusal.message)
    return error_response(refusal)
