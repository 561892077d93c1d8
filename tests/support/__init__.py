"""What the tests share and are not tests: builds, served sites, the MCP client, the Node
and Chromium runners, the dialog driver.  pytest puts ``tests/`` on ``sys.path``
(``pythonpath`` in pyproject.toml), so tests import ``support.<module>``."""
