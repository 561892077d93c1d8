"""MkDocs hook of the example site: rewrites ``{{ release }}`` before rendering, as
mkdocs-macros would, so the example shows how okf treats rewritten Markdown."""


def on_page_markdown(markdown, page, config, files):
    if "{{ release }}" in markdown:
        return markdown.replace("{{ release }}", "1.6")
    return markdown
