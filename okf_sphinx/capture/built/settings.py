"""A built site's settings, read the way its generator read them (docs/zensical.md, "Which
settings are read").

``okf index`` runs after the build, so it reads the configuration file the build read —
``zensical.toml`` or ``mkdocs.yml`` — through the generator's own reader: Zensical's
``zensical.config.parse_config`` for a Zensical build (its default Markdown extensions,
its plugin shims, its normalised ``nav``), MkDocs' ``load_config`` for a MkDocs build.
Which generator built the site is read from the pages' ``<meta name="generator">``.
okf's own options are those of the ``okf`` plugin entry (``plugins: [okf: {...}]`` in
``mkdocs.yml``, ``[project.plugins.okf]`` in ``zensical.toml``), checked by the MkDocs
plugin's option checks (:class:`okf_sphinx.capture.mkdocs.config.OkfConfig`).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from okf_sphinx.core.errors import OkfError

#: The configuration files a generator looks for, in its order.
CONFIG_FILES = ("zensical.toml", "mkdocs.yml", "mkdocs.yaml")


@dataclass
class NavItem:
    """One entry of the nav: a page (``src_uri``) or a section (``children``)."""

    title: str | None
    src_uri: str | None = None  # the page's path in the docs folder (None: a section or a link)
    children: list[NavItem] = field(default_factory=list)
    is_index: bool = False  # an ``index.md`` (the section's own page with ``navigation.indexes``)

    @property
    def file(self) -> Any:  # nav.py reads pages by ``item.file``
        return self if self.src_uri is not None else None


@dataclass
class Settings:
    """What ``okf index`` needs of the site's configuration."""

    config_file: Path
    generator: str  # "zensical" or "mkdocs" (what built the site)
    docs_dir: Path
    use_directory_urls: bool
    nav: list[NavItem] | None  # None: the generator's nav from the files
    site_name: str
    site_url: str
    site_description: str
    language: str | None  # the theme's language (or locale)
    theme: str  # "modern", "classic" (Zensical), "material", "mkdocs", "readthedocs"
    features: list[str]
    markdown: dict[str, Any]  # markdown_extensions and mdx_configs, as the generator resolved them
    okf: dict[str, Any]  # the okf plugin's options as written
    exclude_docs: list[str] = field(default_factory=list)


def find_config(site_dir: Path, given: str | None) -> Path:
    """The configuration file: ``given``, else the first of :data:`CONFIG_FILES` in the current
    folder, else in the site folder's parent (where ``site_dir: site`` puts a build)."""
    if given is not None:
        path = Path(given)
        if not path.is_file():
            raise OkfError("schema_validation", f"--config {given!r} is not a file; name the zensical.toml or "
                           "mkdocs.yml the site was built from", field="config")
        return path.resolve()
    for folder in (Path.cwd(), site_dir.resolve().parent):
        for name in CONFIG_FILES:
            if (folder / name).is_file():
                return (folder / name).resolve()
    raise OkfError("schema_validation", f"no zensical.toml or mkdocs.yml in {os.getcwd()} or {site_dir.resolve().parent}; "
                   "run okf index in the project's folder or name the file with --config", field="config")


def read_settings(config_file: Path, generator: str) -> Settings:
    """The settings of ``config_file`` as ``generator`` ("zensical" or "mkdocs") read them."""
    try:
        if generator == "zensical":
            return _zensical(config_file)
        return _mkdocs(config_file)
    except OkfError:
        raise
    except ImportError as exc:
        raise OkfError("missing_dependency", f"okf index reads {config_file.name} with {generator}'s own reader, which "
                       f"is not installed here ({exc}); install it where the site is built (pip install {generator})",
                       package=generator) from None
    except Exception as exc:  # the generator's own configuration error
        raise OkfError("schema_validation", f"{config_file}: {generator} cannot read it ({type(exc).__name__}: {exc}); "
                       "fix the file, build the site again, then run okf index", field="config") from None


def _zensical(config_file: Path) -> Settings:
    from zensical.config import parse_config  # noqa: PLC0415

    raw = _raw(config_file)
    config = parse_config(str(config_file))
    theme = config.get("theme") or {}
    root = config_file.parent
    return Settings(
        config_file=config_file,
        generator="zensical",
        docs_dir=Path(os.path.abspath(root / config["docs_dir"])),  # where the generator sees it: links kept
        use_directory_urls=bool(config.get("use_directory_urls", True)),
        nav=[_zensical_item(i) for i in config["nav"]] if config.get("nav") else None,
        site_name=config.get("site_name") or "",
        site_url=config.get("site_url") or "",
        site_description=config.get("site_description") or "",
        language=_language(theme),
        theme=str(theme.get("variant") or theme.get("name") or "modern"),
        features=list(theme.get("features") or []),
        markdown={"markdown_extensions": config["markdown_extensions"], "mdx_configs": config["mdx_configs"]},
        okf=_okf_options(raw),
        exclude_docs=_lines(config.get("exclude_docs")),
    )


def _zensical_item(item: dict[str, Any]) -> NavItem:
    url = item.get("url")
    children = [_zensical_item(c) for c in item.get("children") or []]
    page = url if url and not children and "://" not in url and not url.startswith("/") else None
    return NavItem(item.get("title"), page, children, bool(item.get("is_index")))


def _mkdocs(config_file: Path) -> Settings:
    from mkdocs.config import load_config  # noqa: PLC0415

    config = load_config(str(config_file))
    theme = config["theme"]
    raw = _raw(config_file)
    return Settings(
        config_file=config_file,
        generator="mkdocs",
        docs_dir=Path(os.path.abspath(config["docs_dir"])),
        use_directory_urls=bool(config["use_directory_urls"]),
        nav=_mkdocs_nav(config["nav"]) if config["nav"] else None,
        site_name=config["site_name"] or "",
        site_url=config.get("site_url") or "",
        site_description=config.get("site_description") or "",
        language=_language(theme),
        theme=str(getattr(theme, "name", None) or "mkdocs"),
        features=list(theme.get("features") or []) if hasattr(theme, "get") else [],
        markdown={"markdown_extensions": config["markdown_extensions"], "mdx_configs": config["mdx_configs"] or {}},
        okf=_okf_options(raw),
        exclude_docs=_lines(config.get("exclude_docs")),
    )


def _mkdocs_nav(items: Any) -> list[NavItem]:
    """MkDocs' ``nav`` as written (strings and one-key mappings) → :class:`NavItem`."""
    out = []
    for item in items or []:
        title, value = (None, item) if not isinstance(item, dict) else next(iter(item.items()))
        if isinstance(value, list):
            out.append(NavItem(title, None, _mkdocs_nav(value)))
        elif isinstance(value, str):
            page = value if "://" not in value and not value.startswith("/") else None
            out.append(NavItem(title, page, [], bool(page) and Path(page).stem in ("index", "README")))
    return out


def _raw(config_file: Path) -> dict[str, Any]:
    """The file's own mapping (``[project]`` of ``zensical.toml``), before any defaults."""
    if config_file.suffix.lower() == ".toml":
        with config_file.open("rb") as f:
            data = tomllib.load(f)
        return data.get("project", data)
    import yaml  # noqa: PLC0415

    class Loader(yaml.SafeLoader):  # MkDocs' !ENV and !!python tags: read as their plain values
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    with config_file.open(encoding="utf-8") as f:
        return yaml.load(f, Loader=Loader) or {}  # noqa: S506 - a SafeLoader subclass


def _okf_options(raw: dict[str, Any]) -> dict[str, Any]:
    plugins = raw.get("plugins") or []
    if isinstance(plugins, dict):
        plugins = [{k: v} for k, v in plugins.items()]
    for entry in plugins:
        if isinstance(entry, dict) and "okf" in entry:
            options = entry["okf"] or {}
            return dict(options.get("config", options)) if isinstance(options, dict) else {}
    return {}


def _language(theme: Any) -> str | None:
    """The theme's language as the MkDocs plugin reads it (Material's and Zensical's ``language``,
    the mkdocs/readthedocs themes' ``locale``), its defaults included."""
    for key in ("language", "locale"):
        value = theme.get(key) if hasattr(theme, "get") else None
        if value:
            return str(value)
    return None


def _lines(value: Any) -> list[str]:
    if isinstance(value, str):
        return [line for line in value.splitlines() if line.strip()]
    return [str(v) for v in value or []]
