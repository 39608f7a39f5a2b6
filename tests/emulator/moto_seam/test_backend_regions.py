"""moto_seam/backend_regions.py: every endpoint prefix's regions, read from botocore's endpoint data without botocore,
are the lists botocore's own loader and resolver give (services/botocore_data.py's reading through botocore, which
moto's _generate_regions is pinned against in services/test_botocore_data.py); where a botocore loader might read
another endpoints file, nothing is read and botocore is asked."""

from __future__ import annotations

import json
import subprocess
import sys

from eddy.emulator.moto_seam import backend_regions
from eddy.emulator.moto_seam.services import botocore_data


def test_every_prefixs_regions_are_botocores_own():
    assert backend_regions.read() == json.loads(botocore_data._read_endpoint_regions())
    assert backend_regions.by_prefix() == backend_regions.read()


def test_another_endpoints_file_is_left_to_botocores_loader(tmp_path, monkeypatch):
    monkeypatch.setenv("AWS_DATA_PATH", str(tmp_path))
    assert backend_regions.read() is None
    monkeypatch.delenv("AWS_DATA_PATH")
    models = tmp_path / "home" / ".aws" / "models"
    models.mkdir(parents=True)
    (models / "endpoints.json").write_text(json.dumps({"partitions": []}))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert backend_regions.read() is None


def test_reading_them_loads_neither_botocore_nor_moto():
    # a process of its own: what its import and a read load
    code = (
        "import sys\n"
        "from eddy.emulator.moto_seam import backend_regions\n"
        "regions = backend_regions.by_prefix()\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] in ('botocore', 'moto', 'boto3')),"
        " 'us-east-1' in regions['dynamodb'])\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert shown == "[] True"


def test_the_lists_are_kept_per_user_with_the_file_they_were_made_from(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    botocores = json.loads(botocore_data._read_endpoint_regions())
    kept_file = tmp_path / "eddy" / backend_regions.CACHE_NAME
    assert backend_regions.read() == botocores  # none kept: read from the endpoint file, then kept
    kept = json.loads(kept_file.read_text())
    endpoints = backend_regions._builtin_endpoints()
    assert kept == {"source": [str(endpoints), endpoints.stat().st_size, endpoints.stat().st_mtime_ns],
                    "regions": botocores}

    kept["regions"]["dynamodb"] = ["us-east-1"]  # what the next read answers is the kept lists'
    kept_file.write_text(json.dumps(kept))
    assert backend_regions.read() == {**botocores, "dynamodb": ["us-east-1"]}

    kept["source"][2] -= 1  # made from another version of the file: made again, and kept
    kept_file.write_text(json.dumps(kept))
    assert backend_regions.read() == botocores
    assert json.loads(kept_file.read_text())["regions"] == botocores

    for damaged in ('{"source": ', json.dumps({**kept, "regions": {"dynamodb": [1]}})):
        kept_file.write_text(damaged)
        assert backend_regions.read() == botocores
        assert json.loads(kept_file.read_text())["regions"] == botocores
