"""Every data file the package reads ships in its wheel.

An editable install finds files by the working tree, so a data file missing from package-data passes every
test but the fresh-install one (``test_as_a_user``) and breaks a user's ``pip install``. This test names the file
without building a wheel.
"""

import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # the test extra installs tomli on 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def test_every_tracked_data_file_under_a_package_is_declared_as_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    declared = {
        f"{package.replace('.', '/')}/{name}"
        for package, names in config["tool"]["setuptools"]["package-data"].items()
        for name in names
    }
    tracked = subprocess.run(
        ["git", "ls-files", "builder", "dataset_card"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    data = {path for path in tracked if not path.endswith(".py")}
    assert data, "git ls-files listed no data file: the test would pass on nothing"
    assert data - declared == set(), "tracked data files missing from [tool.setuptools.package-data]"
