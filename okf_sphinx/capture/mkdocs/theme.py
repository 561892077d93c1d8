"""okf's search in a MkDocs theme: its templates, its assets, and the theme's own search taken
over (docs/mkdocs.md, "Search in the browser").

- :func:`add_templates`: okf's search page (``search.html``, or ``okf-search.html`` beside
  the theme's) in the theme's own layout;
- :func:`page_scripts`: on every rendered page, the runtime where it searches, the dialog,
  and the hook that sends the theme's search box and shortcuts to okf; the theme's own
  search client is not started;
- :func:`search_page_context`, :func:`copy_assets`: what the search page's template reads,
  and the runtime's files in the site (``okf-search.js`` assembled by
  :mod:`okf_sphinx.surfaces.browser`).
"""

from __future__ import annotations

import html
import re
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from okf_sphinx.capture.ui_strings import dialog_strings, page_strings, page_strings_context, strings_json
from okf_sphinx.surfaces.browser import BOOT, lazy_scripts, write_site_files

if TYPE_CHECKING:
    from .config import OkfConfig

HERE = Path(__file__).resolve().parents[2]
TEMPLATES = HERE / "templates"
MKDOCS_TEMPLATES = HERE / "mkdocs_templates"
ASSETS = "assets/okf"  # where the runtime, its CSS and the search-box hook land in the site
#: The search boxes of the mkdocs, readthedocs and Material themes, Zensical's (and of themes built on
#: them) that okf's dialog takes over: a click or focus there opens the dialog instead.
THEME_BOXES = ", ".join((
    "#mkdocs-search-query", 'a[data-bs-target="#mkdocs_search_modal"]',  # mkdocs: the navbar link, the modal's box
    "#rtd-search-form input[name=q]",  # readthedocs
    "input.md-search__input", 'label[for="__search"]',  # Material: the header's box, the search button
    "button.md-search__button",  # Zensical's themes: the header's search button
))
#: Material for MkDocs mounts its search on these attributes; without them its search never
#: starts (no index download, no "/", "s", "f" keys, no ?q= overlay).
_MATERIAL_SEARCH = re.compile(r'\sdata-md-component="search(?:-[a-z]+)?"')
#: The search plugin's client for the mkdocs and readthedocs themes: it starts a worker that
#: downloads the whole lunr index on every page, for a search box okf has taken over.
_MKDOCS_SEARCH_CLIENT = re.compile(r'<script src="[^"<>]*search/main\.js"[^<>]*></script>')


def search_page(options: OkfConfig) -> str:
    """okf's search page: the theme's ``search.html`` replaced, or ``okf-search.html`` beside it."""
    return "search.html" if options.replace_builtin else "okf-search.html"


def add_templates(theme: Any, options: OkfConfig) -> None:
    """okf's templates in the theme's search path, its search page among the static templates."""
    if options.replace_builtin:
        # before the theme's own search.html, after the author's custom_dir (which may override ours)
        custom = getattr(theme, "custom_dir", None)
        theme.dirs.insert(1 if custom and theme.dirs and theme.dirs[0] == custom else 0, str(MKDOCS_TEMPLATES))
    else:
        theme.dirs.append(str(MKDOCS_TEMPLATES))  # okf-search.html only; the theme's search.html stays
    theme.dirs.append(str(TEMPLATES))  # okf-search-body.html, shared with the Sphinx page
    theme.static_templates.add(search_page(options))


def dialog_strings_attribute(language: str | None) -> str:
    """The ``data-okf-strings`` attribute of the dialog's script tag: its words in the site's
    ``language`` ("" for English or a language without a catalogue)."""
    strings = dialog_strings(language)
    return f' data-okf-strings="{html.escape(strings_json(strings))}"' if strings else ""


def page_scripts(output: str, base_url: str, options: OkfConfig, theme_name: str, language: str, strings: str,
                 on_search_page: bool) -> str:
    """okf's scripts on a rendered page: on the search page the runtime (with the stemmer of
    the site's ``language``) and the page's script; with the dialog, on every other page, the boot
    (``okf-boot.js``: it loads the stemmer, the runtime and the dialog when the reader reaches
    for search; its words: ``strings``, :func:`dialog_strings_attribute`); and the theme's
    search box and shortcuts taken over (replace_builtin: true)."""
    at = output.rfind("</body>")
    if at < 0:
        return output  # not an HTML page: left alone
    root = base_url.rstrip("/") + "/"
    assets = root + ASSETS + "/"
    replace, dialog, page = options.replace_builtin, options.dialog, search_page(options)
    tags = []
    index = html.escape(index_url(root, options))
    if on_search_page:
        for script in lazy_scripts(language)[:-1]:  # the stemmer (when the language has one), the runtime
            extra = f' data-okf-index="{index}"' if script == "okf-search.js" else ""
            tags.append(f'<script src="{assets}{script}"{extra} defer></script>')
        # no dialog here: the theme's search boxes lead to the page's own field
        tags.append(f'<script src="{assets}okf-search-page.js" data-okf-box="{html.escape(THEME_BOXES)}" defer></script>')
    if replace:
        theme = html.escape(theme_name)
        tags.append(f'<script src="{assets}okf-mkdocs.js" data-okf-search="{root}{page}" data-okf-theme="{theme}" defer></script>')
    dialog = dialog and not on_search_page  # the search page has none: its shortcuts come to its own field
    if dialog:
        # the theme's box is ours where the theme's search does not run (see below)
        taken = f' data-okf-box="{html.escape(THEME_BOXES)}"' if replace else ' data-okf-slash="theme"'
        tags.append(
            f'<script src="{assets}{BOOT}" data-okf-root="{root}" data-okf-index="{index}" data-okf-search-page="{page}"{taken}'
            f'{strings} defer></script>'
        )
    output = output[:at] + "".join(tags) + output[at:]
    if dialog:
        head = output.find("</head>")
        if head >= 0:
            output = output[:head] + f'<link rel="stylesheet" href="{assets}okf-dialog.css">' + output[head:]
    if replace or on_search_page:
        # Material's own search would open over okf's (and reads ?q= too): it is not started
        output = _MKDOCS_SEARCH_CLIENT.sub("", _MATERIAL_SEARCH.sub("", output))
    return output


def index_url(root: str, options: OkfConfig) -> str:
    """The index folder's URL from a page whose site root is ``root``: output_dir as a URL
    path (a ``#``, ``?`` or space in a folder name is percent-encoded, not a URL's part)."""
    return root + urllib.parse.quote(options.output_dir) + "/"


def search_page_context(context: Any, options: OkfConfig, language: str | None) -> Any:
    """What okf's search page template reads: its title, the site root, the index, the assets,
    and its words in the site's ``language``."""
    root = context.get("base_url", ".").rstrip("/") + "/"
    context.update(page_strings_context(page_strings(language)))
    context["okf_title"] = options.title
    context["okf_site_root"] = root
    context["okf_index_url"] = index_url(root, options)  # the template escapes it for HTML
    context["okf_assets"] = root + ASSETS + "/"
    return context


def copy_assets(site_dir: Path, language: str, maps: bool = True) -> None:
    """The runtime, its CSS, the boot, the dialog, the theme hook and the stemmer of the site's
    ``language`` (minified, with their source maps unless ``maps`` is false: the
    ``source_maps`` option), into ``site_dir/assets/okf/``."""
    write_site_files(site_dir / ASSETS, language, maps=maps)
