"""The package layout: the repository's folders installed as one top-level package, `eddy`.

emulator/, handlers/, spark_batch/ and infra/ stay where they are in the repository and install as eddy.emulator,
eddy.handlers, eddy.spark_batch and eddy.infra, so nothing but `eddy` lands at the top of site-packages (a project's
own `handlers` package is never shadowed). Everything else about the package is in pyproject.toml.
"""

from setuptools import find_packages, setup

PARTS = ("emulator", "handlers", "spark_batch", "infra")

setup(
    packages=["eddy", *(f"eddy.{name}" for name in find_packages(include=[f"{part}*" for part in PARTS]))],
    package_dir={"eddy": "eddy", **{f"eddy.{part}": part for part in PARTS}},
)
