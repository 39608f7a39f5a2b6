"""tools/pinned_install.sh: a pinned requirements file installed from the wheelhouse without the package index; a
pin the wheelhouse lacks is downloaded there first. A package made here stands in for the index's (found through
PIP_FIND_LINKS with PIP_NO_INDEX), so nothing is fetched."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "pinned_install.sh"


def _wheel(version: str, out: Path) -> None:
    """A wheel of eddy-pin-probe at `version`, written as the format says (a zip with its .dist-info)."""
    info = f"eddy_pin_probe-{version}.dist-info"
    files = {"eddy_pin_probe/__init__.py": f"VERSION = {version!r}\n",
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: eddy-pin-probe\nVersion: {version}\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    files[f"{info}/RECORD"] = "".join(f"{name},,\n" for name in files) + f"{info}/RECORD,,\n"
    out.mkdir(exist_ok=True)
    with zipfile.ZipFile(out / f"eddy_pin_probe-{version}-py3-none-any.whl", "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)


def test_pins_come_from_the_wheelhouse_and_a_new_pin_is_downloaded_there_first(tmp_path: Path) -> None:
    index, wheelhouse = tmp_path / "index", tmp_path / "wheelhouse"
    _wheel("1.0", index)
    _wheel("2.0", index)
    # pip in the virtualenv is the base interpreter's, seen through system_site_packages: ensurepip's own install of
    # pip into a new virtualenv was 9 to 10 s of CPU (`python -m venv`, 2026-11-29), most of this test's; the
    # packages still go into the virtualenv (pip installs into sys.prefix), where the checks below look for them
    venv.create(tmp_path / "venv", system_site_packages=True, with_pip=False)
    python = tmp_path / "venv" / "bin" / "python"
    if subprocess.run([str(python), "-c", "import pip"], capture_output=True).returncode != 0:
        subprocess.run([str(python), "-m", "ensurepip"], check=True, capture_output=True)  # a base without pip
    pins = tmp_path / "pins.txt"
    env = {**os.environ, "EDDY_WHEELHOUSE": str(wheelhouse), "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(index)}

    def install(pin: str, environment: dict[str, str]) -> str:
        pins.write_text(f"eddy-pin-probe=={pin}\n")
        subprocess.run([str(SCRIPT), str(python), str(pins)], env=environment, check=True, capture_output=True)
        return subprocess.run([str(python), "-c", "import eddy_pin_probe; print(eddy_pin_probe.VERSION)"],
                              check=True, capture_output=True, text=True).stdout.strip()

    assert install("1.0", env) == "1.0"  # downloaded into the wheelhouse, then installed from it
    assert sorted(path.name for path in wheelhouse.iterdir()) == ["eddy_pin_probe-1.0-py3-none-any.whl"]
    offline = {**env, "PIP_FIND_LINKS": str(tmp_path / "nowhere")}  # the "index" gone: the wheelhouse is enough
    subprocess.run([str(python), "-m", "pip", "uninstall", "--quiet", "--yes", "eddy-pin-probe"], check=True)
    assert install("1.0", offline) == "1.0"
    assert install("2.0", env) == "2.0"  # a new pin: downloaded there first
    assert sorted(path.name for path in wheelhouse.iterdir()) == ["eddy_pin_probe-1.0-py3-none-any.whl",
                                                                 "eddy_pin_probe-2.0-py3-none-any.whl"]
