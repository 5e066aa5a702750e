"""Every package folder is in pyproject.toml, so `pip install .` ships all of it."""

import re

from paths import REPO


def _declared_packages() -> tuple[set[str], dict[str, str]]:
    text = (REPO / "pyproject.toml").read_text()
    listed = re.search(r"^packages = \[(.*?)\]", text, re.S | re.M).group(1)
    packages = set(re.findall(r'"([\w.]+)"', listed))
    mapping_block = text.split("[tool.setuptools.package-dir]", 1)[1].split("\n[", 1)[0]
    mapping = dict(re.findall(r'"([\w.]+)"\s*=\s*"([\w./]+)"', mapping_block))
    return packages, mapping


def test_every_package_folder_is_declared():
    packages, mapping = _declared_packages()
    expected = set()
    for package, folder in mapping.items():
        root = REPO / folder
        for init in root.rglob("__init__.py"):
            relative = init.parent.relative_to(root).parts
            expected.add(".".join((package, *relative)))
    assert expected <= packages, f"add to pyproject.toml packages: {sorted(expected - packages)}"
    # a folder of data files only (the web page's static/) is a package with its files as package data
    text = (REPO / "pyproject.toml").read_text()
    data_block = text.split("[tool.setuptools.package-data]", 1)[1].split("\n[", 1)[0]
    for package in re.findall(r'^"([\w.]+)"\s*=', data_block, re.M):
        root = max((p for p in mapping if package == p or package.startswith(p + ".")), key=len)
        if (REPO / mapping[root]).joinpath(*package[len(root):].split(".")[1:]).is_dir():
            expected.add(package)
    assert packages <= expected, f"declared but missing: {sorted(packages - expected)}"
