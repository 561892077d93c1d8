"""MkDocs hook of the example site: rewrites Markdown before rendering, as
mkdocs-macros would, so the example shows how okf treats rewritten pages.

``{{ release }}`` becomes ``1.6`` (line for line: okf maps every heading to
its source line); ``{{ changelog }}`` becomes several lines, one a heading that
comes from no source line: it starts no section, and the build log says so.
"""


def on_page_markdown(markdown, page, config, files):
    markdown = markdown.replace("{{ release }}", "1.6")
    return markdown.replace("{{ changelog }}", "## 1.6\n\n- faster builds\n- exact sections\n- smaller index")
