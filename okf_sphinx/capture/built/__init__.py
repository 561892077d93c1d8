"""``okf index``: the index, the agent files and the dialog added to a site after its build
(Zensical, or MkDocs without the plugin): each built page paired with its Markdown source."""
