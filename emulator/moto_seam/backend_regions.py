"""The regions moto's backends serve, by endpoint prefix, read once in the process from botocore's endpoint data
without loading moto or botocore.

moto lists the regions of a service's backends (AccountSpecificBackend._generate_regions) as botocore's
`get_available_regions` does for each partition in turn: for every partition in the data's order, the endpoints of
the service's endpoint prefix that are regions of that partition (EndpointResolver.get_available_endpoints with its
defaults: no endpoint that is not a region, no variant tags). Here that list is made for every endpoint prefix in
one pass over botocore's endpoints.json (1.2 MB; read as plain JSON in 20 ms, where botocore's loader and one
resolver call per prefix took 50 ms), by the first of its two readers:

  - tables/empty_listing.py: ListTables answered by `eddy serve` before its engine (and moto) are loaded, in the
    regions moto serves DynamoDB in;
  - services/botocore_data.py: the regions of an account's backends, on the first request to each service.

The lists are kept in the per-user cache (storage/user_cache.py) with the path, size and modification time of the
endpoint file they were made from, so a start after the first reads 0.1 MB of JSON instead of 1.2 MB and its walk
(about 30 ms of CPU before the first ListTables answer, 2026-11-29); a botocore upgrade (another file) makes them
again. What is kept is remade from JSON text, so that no region name keeps a memory block of the endpoint data (7 MB
once read) alive. None where a botocore loader might read another endpoints file (AWS_DATA_PATH set, or one under
~/.aws/models, which its search path reads before botocore's own): the readers then ask botocore.
"""

from __future__ import annotations

import importlib.util
import json
import os
import threading
from pathlib import Path
from typing import Any

from eddy.emulator.storage import user_cache

#: the per-user cache's file of the lists, with the endpoint file they were made from
CACHE_NAME = "endpoint-regions.json"
_lock = threading.Lock()
_read = False
#: every endpoint prefix's regions, once read (None: botocore's loader is to be asked)
_by_prefix: dict[str, list[str]] | None = None


def by_prefix() -> dict[str, list[str]] | None:
    """Every endpoint prefix's regions, in botocore's order (the same lists each time: the caller copies what it
    changes); None where botocore's own loader must be asked."""
    global _by_prefix, _read
    with _lock:
        if not _read:
            _by_prefix, _read = read(), True
        return _by_prefix


def read() -> dict[str, list[str]] | None:
    """botocore's endpoint data read now as `by_prefix` keeps it (None where a loader might read another file):
    from the per-user cache where it holds the lists made from this very file (its path, size and modification
    time), else from the file, then kept there."""
    path = _builtin_endpoints()
    if path is None or os.environ.get("AWS_DATA_PATH") or _customer_endpoints():
        return None
    stat = path.stat()
    source = [str(path), stat.st_size, stat.st_mtime_ns]
    kept = _kept(source)
    if kept is not None:
        return kept
    regions = _regions(json.loads(path.read_bytes()))
    user_cache.write_whole(_cache_file(), json.dumps({"source": source, "regions": regions}).encode())
    return json.loads(json.dumps(regions))


def _regions(endpoints: dict[str, Any]) -> dict[str, list[str]]:
    """Every endpoint prefix's regions in botocore's endpoint data, in botocore's order."""
    regions: dict[str, list[str]] = {}
    for partition in endpoints["partitions"]:
        partition_regions = partition["regions"]
        for prefix, service in partition["services"].items():
            listed = regions.setdefault(prefix, [])
            listed.extend(name for name in service.get("endpoints", {}) if name in partition_regions)
    return regions


def _cache_file() -> Path | None:
    folder = user_cache.cache_dir()
    return None if folder is None else folder / CACHE_NAME


def _kept(source: list[Any]) -> dict[str, list[str]] | None:
    """The lists the per-user cache holds, where they were made from `source`; None otherwise."""
    data = user_cache.read(_cache_file())
    try:
        kept = json.loads(data) if data is not None else None
    except ValueError:
        return None
    if not isinstance(kept, dict) or kept.get("source") != source or not isinstance(kept.get("regions"), dict):
        return None
    regions = kept["regions"]
    if not all(
        isinstance(listed, list) and all(isinstance(name, str) for name in listed) for listed in regions.values()
    ):
        return None
    return regions


def _builtin_endpoints() -> Path | None:
    spec = importlib.util.find_spec("botocore")  # found, not imported
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(spec.submodule_search_locations[0]) / "data" / "endpoints.json"
    return path if path.is_file() else None


def _customer_endpoints() -> bool:
    """Whether ~/.aws/models holds an endpoints file (botocore's Loader.CUSTOMER_DATA_PATH, searched first)."""
    folder = Path(os.path.expanduser("~")) / ".aws" / "models"
    return any((folder / name).exists() for name in ("endpoints.json", "endpoints.json.gz"))
