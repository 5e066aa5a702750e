"""What `pip install .` ships: every package folder, found by setup.py, and no folder that shadows it."""

from paths import PACKAGE_DIRS, PACKAGES, REPO


def test_every_package_folder_is_found():
    expected = set()
    for package, folder in PACKAGE_DIRS.items():
        root = REPO / folder
        for init in root.rglob("__init__.py"):
            relative = init.parent.relative_to(root).parts
            expected.add(".".join((package, *relative)))
    assert expected <= set(PACKAGES)
    # a folder of data files only (the web page's static/) is a package with its files as package data
    assert "slagwerk.web.static" in PACKAGES
    assert not [p for p in PACKAGES if "__pycache__" in p]


def test_no_top_folder_is_named_like_a_part_it_is_not():
    """A folder at the clone's root named like the package, or like one of its parts, would be
    imported instead of the installed package by a Python started there (`python -m slagwerk`)."""
    for folder in REPO.iterdir():
        if not folder.is_dir() or folder.name.startswith("."):
            continue
        for package, its_folder in PACKAGE_DIRS.items():
            named_like = folder.name == package.rsplit(".", 1)[-1]
            assert not named_like or its_folder == folder.name, (
                f"{folder.name}/ is named like {package}, which lives in {its_folder}/")
