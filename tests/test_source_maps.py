"""Leaving out the source maps (issue 24): ``okf_search_source_maps = False`` in Sphinx,
``source_maps: false`` under the okf plugin in MkDocs.

A real build with the setting ships every okf script minified and naming no map, and no
``.map`` file — not even one an earlier build left in the output; the boot loads the
scripts as they are (their ``?v=`` is of the map-less bytes), and the index is the same.
The default keeps the maps.
"""

from __future__ import annotations

from pathlib import Path


from okf_sphinx.surfaces.browser import lazy_scripts, shipped, site_scripts, version
from support.build import sphinx_build, write_project
from support.mkdocs_sites import index_bytes, mkdocs_build, write_mkdocs_project

PAGES = {"index.md": "# Home\n\nRetry policy words.\n\n```{toctree}\nguide\n```\n",
         "guide.md": "# Guide\n\nThe retry policy, again.\n"}


def _without_maps(folder: Path, language: str, skip: tuple[str, ...] = ()) -> None:
    assert not list(folder.glob("okf-*.map")), sorted(p.name for p in folder.glob("okf-*.map"))
    for name in site_scripts(language):
        if name in skip:
            continue
        text = (folder / name).read_text(encoding="utf-8")
        assert text == shipped(name, language, maps=False).text
        assert "sourceMappingURL" not in text and ".map" not in text.splitlines()[0]
    boot = (folder / "okf-boot.js").read_text(encoding="utf-8")
    for name in lazy_scripts(language):  # the boot asks for the bytes the site ships
        assert f'"{name}?v={version(name, language, False)}"' in boot
        assert f'"{name}?v={version(name, language)}"' not in boot


def test_sphinx_site_without_source_maps(tmp_path: Path) -> None:
    from okf_sphinx.capture.sphinx.search_page import NOT_SHIPPED

    src = write_project(tmp_path / "src", PAGES)
    out = tmp_path / "html"
    sphinx_build(src, out, "-d", str(tmp_path / "doctrees"))
    static = out / "_static"
    assert (static / "okf-search.js.map").is_file()  # the default ships them
    with_maps = index_bytes(out)
    sphinx_build(src, out, "-d", str(tmp_path / "doctrees"), "-D", "okf_search_source_maps=0")
    _without_maps(static, "en", NOT_SHIPPED)  # the earlier build's maps are gone too
    assert index_bytes(out) == with_maps  # the index does not change


def test_mkdocs_site_without_source_maps(tmp_path: Path) -> None:
    project = write_mkdocs_project(tmp_path / "p", {"index.md": "# Home\n\nRetry policy words.\n",
                                                    "guide.md": "# Guide\n\nThe retry policy.\n"})
    site = tmp_path / "site"
    mkdocs_build(project, site)
    assets = site / "assets" / "okf"
    assert (assets / "okf-search.js.map").is_file()
    with_maps = index_bytes(site)
    (project / "mkdocs.yml").write_text((project / "mkdocs.yml").read_text(encoding="utf-8").replace(
        "  - okf\n", "  - okf:\n      source_maps: false\n"), encoding="utf-8")
    mkdocs_build(project, site, "--dirty")
    _without_maps(assets, "en")
    assert index_bytes(site) == with_maps


def test_mkdocs_source_maps_must_be_a_boolean(tmp_path: Path) -> None:
    project = write_mkdocs_project(tmp_path / "p", {"index.md": "# Home\n"},
                                   config="plugins:\n  - search\n  - okf:\n      source_maps: sometimes\n")
    proc = mkdocs_build(project, tmp_path / "site", check=False)
    assert proc.returncode != 0 and "source_maps" in proc.stdout + proc.stderr
