"""The index writer: section records -> the sharded ``_okf/`` files (docs/index-format.md), the
smart-mode tables and llms.txt, written atomically.
"""
