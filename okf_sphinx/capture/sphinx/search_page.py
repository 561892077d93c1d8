"""The browser search page: okf-search.js + okf-search.css on one page rendered by the theme.

``setup_search_page(app)`` (called by ``okf_sphinx.capture.sphinx.extension.setup``) registers
``okf_search_replace_builtin``:

- ``True`` (default): Sphinx's own ``search`` page is rendered with our template
  instead, so the theme's search box (``search.html?q=…``) leads to it;
- ``False``: Sphinx's page is kept and ours is added beside it as ``okf-search``.

The page is the theme's ``page.html`` with our markup as ``body``, so it keeps
the theme's header, sidebar and styles in every theme.  The runtime (assembled
by :mod:`okf_sphinx.surfaces.browser`), the page's script and its CSS are copied
to ``_static/`` by Sphinx's static-file mechanism and added to this page only.  The chosen page's URL (relative to the site root) is left in
``app.okf_search_page`` for the manifest's ``search_page``.
"""

from __future__ import annotations

import posixpath
import re
import urllib.parse
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ConfigError
from sphinx.locale import _ as sphinx_gettext

from okf_sphinx.capture.ui_strings import page_strings_context
from okf_sphinx.surfaces.browser import BOOT, lazy_scripts, remove_map, site_scripts, write_site_files

from .ui_strings import dialog_strings_attribute, page_strings, setup_ui_strings

HERE = Path(__file__).resolve().parents[2]
TEMPLATES = HERE / "templates"
HTML_BUILDERS = frozenset({"html", "dirhtml", "singlehtml"})
PAGE_SCRIPT = "okf-search-page.js"
STYLES = "okf-search.css"
DIALOG_STYLES = "okf-dialog.css"
#: scripts of static/ a Sphinx site does not use
NOT_SHIPPED = ("okf-mkdocs.js",)
TEMPLATE = "okf-search.html"
BODY_TEMPLATE = "okf-search-body.html"


def page_name(app: Sphinx) -> str:
    """The pagename of our search page for this build's configuration."""
    return "search" if app.config.okf_search_replace_builtin else "okf-search"


def _enabled(app: Sphinx) -> bool:
    return app.builder is not None and app.builder.name in HTML_BUILDERS


def _config_inited(app: Sphinx, config: Any) -> None:
    # an absolute entry: Sphinx joins it to confdir unchanged
    if str(TEMPLATES) not in config.templates_path:
        config.templates_path.append(str(TEMPLATES))


def _builder_inited(app: Sphinx) -> None:
    if app.config.okf_search_page_mode not in ("smart", "keyword", "semantic"):
        raise ConfigError(f"okf_search_page_mode must be 'smart', 'keyword' or 'semantic', got {app.config.okf_search_page_mode!r}")
    if not _enabled(app):
        return
    builder = app.builder
    # okf-search.js assembled from okf_sphinx/js/, the scripts of static/ (the site language's
    # stemmer only), all minified with their source maps, and the CSS
    folder = Path(app.doctreedir) / "okf-runtime"
    maps = app.config.okf_search_source_maps
    write_site_files(folder, app.config.language, skip=NOT_SHIPPED, maps=maps)
    if not maps:  # Sphinx copies _static/ over an earlier build's and leaves what is no longer there
        for script in site_scripts(app.config.language):
            remove_map(Path(app.outdir) / "_static", script)
    if str(folder) not in app.config.html_static_path:
        app.config.html_static_path.append(str(folder))
    name = page_name(app)
    if builder.name == "singlehtml":
        # singlehtml writes no search page and emits no html-collect-pages
        app.config.html_additional_pages.setdefault(name, TEMPLATE)
    app.okf_search_page = builder.get_target_uri(name)  # type: ignore[attr-defined]
    app.okf_dialog_strings = dialog_strings_attribute()  # type: ignore[attr-defined]  # the site's language
    if app.config.okf_search_replace_builtin and getattr(builder, "search", False):
        _drop_sphinx_index(builder)


def _drop_sphinx_index(builder: Any) -> None:
    """Sphinx's own search index is written for nothing when our page replaces its search:
    leave its indexer out (no ``searchindex.js``, no time spent feeding it), while
    ``builder.search`` stays true so the theme keeps its search box and page."""
    prepare = builder.prepare_writing

    def prepare_writing(docnames: Any) -> None:
        prepare(docnames)
        builder.indexer = None

    builder.prepare_writing = prepare_writing


#: Sphinx's search scripts (and its index) that a theme may load on every page.
_SPHINX_SEARCH_SCRIPT = re.compile(
    r'[ \t]*<script[^>]*\ssrc="[^"]*(?:_static/searchtools\.js|_static/language_data\.js|searchindex\.js)(?:\?[^"]*)?"[^>]*>\s*</script>[ \t]*\n?'
)


def strip_sphinx_search_scripts(html: str) -> str:
    """``html`` without the script tags of Sphinx's own search (pydata-sphinx-theme puts
    them in every page's head for its search-as-you-type)."""
    return _SPHINX_SEARCH_SCRIPT.sub("", html)


def _remove_sphinx_index(app: Sphinx, exception: BaseException | None) -> None:
    """A ``searchindex.js`` left by an earlier build without okf is not shipped either."""
    if exception is None and _enabled(app) and app.config.okf_search_replace_builtin:
        stale = Path(app.outdir) / "searchindex.js"
        if stale.is_file() and not stale.is_symlink():
            stale.unlink()


def _collect_pages(app: Sphinx) -> list[tuple[str, dict[str, Any], str]]:
    if not _enabled(app) or app.builder.name == "singlehtml" or app.config.okf_search_replace_builtin:
        return []  # replacing: Sphinx's own "search" page is rendered with our template
    return [("okf-search", {}, TEMPLATE)]


def _add_assets(app: Sphinx, search_page: bool) -> None:
    """This page's assets (added during html-page-context: this page only): on every page but
    the search page the boot (okf-boot.js, which loads the stemmer, the runtime and the dialog
    when the reader reaches for search), on the search page the runtime and the page's script
    at once — and no dialog: its shortcuts come to the page's own field (okf-search-page.js)."""
    if search_page:
        app.add_css_file(STYLES)
        for script in lazy_scripts(app.config.language)[:-1]:  # the stemmer (when the language has one), the runtime
            app.add_js_file(script, loading_method="defer")
        app.add_js_file(PAGE_SCRIPT, loading_method="defer")
    elif app.config.okf_search_dialog:
        app.add_css_file(DIALOG_STYLES)
        strings = app.okf_dialog_strings  # type: ignore[attr-defined]
        app.add_js_file(BOOT, loading_method="defer", **{"data-okf-search-page": app.okf_search_page}, **strings)  # type: ignore[attr-defined]


def _page_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> str | None:
    if not _enabled(app):
        return None
    replacing = app.config.okf_search_replace_builtin
    context["okf_strip_search_scripts"] = strip_sphinx_search_scripts if replacing else (lambda html: html)
    if pagename != page_name(app):
        _add_assets(app, False)
        return None
    builder = app.builder
    root = context.get("content_root") or _content_root(builder.get_target_uri(pagename))
    out_dir = app.config.okf_search_output_dir.strip("/") if hasattr(app.config, "okf_search_output_dir") else "_okf"
    title = app.config.okf_search_title
    if title == "Search":  # the default: Sphinx's own word for it in the site's language
        title = str(sphinx_gettext("Search"))
    context["title"] = title
    context["okf_title"] = title
    context["okf_site_root"] = root
    context["okf_index_url"] = posixpath.join(root, urllib.parse.quote(out_dir)) + "/"  # a URL path (# ? space)
    context["okf_mode"] = app.config.okf_search_page_mode
    context.update(page_strings_context(page_strings()))
    context["body"] = builder.templates.render(BODY_TEMPLATE, context)
    context["display_toc"] = False
    context["toc"] = ""
    _add_assets(app, True)
    return TEMPLATE


def _content_root(uri: str) -> str:
    uri = uri.split("#", 1)[0]
    return "../" * uri.count("/") or "./"


def setup_search_page(app: Sphinx) -> None:
    """Register the search page, its config values and its assets (called by extension.setup)."""
    app.add_config_value("okf_search_replace_builtin", True, "html", types=[bool])
    app.add_config_value("okf_search_title", "Search", "html", types=[str])
    app.add_config_value("okf_search_page_mode", "smart", "html", types=[str])
    app.add_config_value("okf_search_dialog", True, "html", types=[bool])
    app.add_config_value("okf_search_source_maps", True, "html", types=[bool])
    setup_ui_strings(app)
    app.connect("config-inited", _config_inited)
    app.connect("builder-inited", _builder_inited)
    app.connect("html-collect-pages", _collect_pages)
    app.connect("html-page-context", _page_context)
    app.connect("build-finished", _remove_sphinx_index)
