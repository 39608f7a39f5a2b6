"""botocore's data read once in the process where moto reads it again and keeps it: about 10 MB of a server's idle
memory and the time of two model reads before its first answer.

- The regions of an account's backends (AccountSpecificBackend._generate_regions, on the first request of each
  account to each service): moto asks a boto3 Session it keeps for the process, which keeps botocore's endpoints
  (1.2 MB of JSON, 7 MB once read) and the model of every service it looked an endpoint prefix up in. Here every
  endpoint prefix's regions are listed once (a few thousand names, every partition in botocore's order) and the
  endpoint data let go: by moto_seam/backend_regions.py from botocore's own file (read already where `eddy serve`
  answered a ListTables before its engine was loaded), or, where another endpoints file may be read (AWS_DATA_PATH),
  by a loader of their own and botocore's resolver; a service's endpoint prefix is read from its model through the
  process's loader (aws_environment.shared_loader).
- moto's service models (moto.core.utils._load_service_model, which its serializers and parsers read): moto reads
  each through a new loader of its own (moto's Loader: botocore's model with moto's "moto-extras" merged in, error
  shapes such as S3's InvalidArgument with its ArgumentName); here a service moto has extras for is read through one
  such loader for the process, and any other through the process's botocore loader, which Eddy's validation also
  reads: DynamoDB's model (1.7 MB once read) is held once instead of three times.

botocore treats what it loads as read-only (the clients of one session share it). Installed when moto.core is
loaded (moto_seam/__init__.py); pinned by tests/emulator/moto_seam/services/test_botocore_data.py.
"""

from __future__ import annotations

import functools
import glob
import json
import os
import threading
from typing import Any

import moto.core.utils as moto_utils
from botocore.exceptions import DataNotFoundError, UnknownServiceError
from moto.core import loaders as moto_loaders
from moto.core.base_backend import AccountSpecificBackend

from eddy.emulator import aws_environment
from eddy.emulator.moto_seam import Patches, backend_regions

_lock = threading.Lock()
#: every endpoint prefix's regions, over botocore's partitions in order (None until first asked)
_prefix_regions: dict[str, list[str]] | None = None
#: each service name's regions, as moto's _generate_regions lists them
_service_regions: dict[str, list[str]] = {}


def regions_of(service_name: str) -> list[str]:
    """The regions moto's AccountSpecificBackend lists for `service_name` (a new list each time, as moto's)."""
    with _lock:
        regions = _service_regions.get(service_name)
        if regions is None:
            regions = _service_regions[service_name] = _endpoint_regions().get(_endpoint_prefix(service_name), [])
        return list(regions)


def _endpoint_prefix(service_name: str) -> str | None:
    """The service's endpointPrefix (botocore's get_available_regions reads it so); None for a service botocore
    does not know (no regions, as botocore answers)."""
    try:
        model = aws_environment.shared_loader().load_service_model(service_name, "service-2")
    except (DataNotFoundError, UnknownServiceError):
        return None
    return model["metadata"].get("endpointPrefix", service_name)


def _endpoint_regions() -> dict[str, list[str]]:
    global _prefix_regions
    if _prefix_regions is None:
        _prefix_regions = backend_regions.by_prefix() or json.loads(_read_endpoint_regions())
    return _prefix_regions


def _read_endpoint_regions() -> str:
    """Every endpoint prefix's regions as JSON text, read from botocore's endpoint data (as a session's resolver reads
    it, AWS_DATA_PATH's files included) through a loader of its own, so that the data (7 MB once read) goes with it. What is kept is remade from the
    text: region names made while the data was read would each keep one of its memory blocks, which the process could
    then never give back."""
    from botocore.loaders import create_loader
    from botocore.regions import EndpointResolver

    loader = create_loader(os.environ.get("AWS_DATA_PATH"))  # the data_path a session reads (its only source here)
    endpoints, path = loader.load_data_with_path("endpoints")
    resolver = EndpointResolver(endpoints, uses_builtin_data=loader.is_builtin_path(path))
    partitions = resolver.get_available_partitions()
    prefixes = {prefix for partition in endpoints["partitions"] for prefix in partition["services"]}
    return json.dumps(
        {
            prefix: [
                region for partition in partitions for region in resolver.get_available_endpoints(prefix, partition)
            ]
            for prefix in sorted(prefixes)
        }
    )


def _generate_regions(self: AccountSpecificBackend, service_name: str) -> list[str]:
    return regions_of(service_name)


def _load_service_model(service_name: str, model_name: str) -> dict[str, Any]:
    loader = _moto_loader() if _has_moto_extras(service_name, model_name) else aws_environment.shared_loader()
    return loader.load_service_model(service_name, model_name)


@functools.cache
def _has_moto_extras(service_name: str, model_name: str) -> bool:
    """Whether moto ships extras for the model (<moto>/<service>/<api version>/<model>.moto-extras.json[.gz])."""
    folder = glob.escape(os.path.join(moto_loaders.moto_root, service_name.replace("-", "")))
    return bool(glob.glob(os.path.join(folder, "*", f"{model_name}.moto-extras.json*")))


_moto_loader = functools.cache(moto_loaders.create_loader)


_patches = Patches()


def install() -> None:
    _patches.set(AccountSpecificBackend, "_generate_regions", _generate_regions)
    _patches.set(moto_utils, "_load_service_model", _load_service_model)


def uninstall() -> None:
    _patches.restore()
