"""MkDocs hook of the example site: rewrites Markdown before rendering, as
mkdocs-macros would, so the example shows how okf treats rewritten pages.

``{{ release }}`` becomes ``1.6`` (line for line: okf still maps headings to
their source lines); ``{{ changelog }}`` becomes several lines (okf can no
longer say which source line a rendered heading comes from, so that page's
sections link to the page).
"""


def on_page_markdown(markdown, page, config, files):
    markdown = markdown.replace("{{ release }}", "1.6")
    return markdown.replace("{{ changelog }}", "- faster builds\n- exact sections\n- smaller index")
