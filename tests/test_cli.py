"""The ``okf`` command over a real build: text and JSON output, errors, exit codes, imports."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.reading_site import built_site

from okf_sphinx import open_index
from okf_sphinx.agent.answers import answer_json
from okf_sphinx.core.errors import EXIT_CODES


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return built_site(tmp_path_factory)


def okf(*args: str | bytes, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "okf_sphinx", *args], capture_output=True, timeout=60, env=env)


def test_console_script_is_installed():
    assert shutil.which("okf"), "pip install -e . provides the okf command"


def test_search_text_output(site):
    r = okf("search", str(site), "--query", "walrus")
    assert r.returncode == 0 and r.stderr == b""
    lines = r.stdout.decode().splitlines()
    assert lines[0].startswith("2 sections match 'walrus'")
    assert "crlf.rst:1-5  CRLF page" in lines
    i = lines.index("crlf.rst:1-5  CRLF page")
    assert lines[i + 1].startswith("  crlf — CRLF page  score ")
    assert lines[i + 2] == "    CRLF page"  # snippet indented (its \r dropped in text mode)
    r = okf("search", str(site), "--query", "backoff", "--limit", "1")
    assert b"(showing 1)" in r.stdout.splitlines()[0]


def test_search_json_is_the_contract_dict(site):
    r = okf("search", str(site), "--query", "retry backoff", "--limit", "3", "--json")
    assert r.returncode == 0 and r.stderr == b""
    assert r.stdout.count(b"\n") == 1
    data = json.loads(r.stdout)
    assert data == open_index(site).search("retry backoff", 3)
    assert r.stdout == answer_json(data).encode() + b"\n"


def test_section_lines_concepts_text(site):
    r = okf("section", str(site), "--concept", "guide", "--heading", "k1")
    out = r.stdout.decode()
    assert r.returncode == 0 and out.startswith("guide.rst:11-15  K1 First rule\n  Guide › Retry policy\n")
    assert "The first rule about backoff." in out
    r = okf("section", str(site), "--concept", "big", "--heading", "long section", "--max-chars", "100")
    assert b"continue with --offset 100]" in r.stdout
    r = okf("section", str(site), "--concept", "guide")
    assert r.stdout.decode().splitlines()[:3] == ["guide — Guide", "guide.html", "  Guide  guide.rst#L1-L5"]
    r = okf("lines", str(site), "crlf.rst", "1", "9")
    assert r.stdout == (site.parent / "src" / "crlf.rst").read_bytes()  # byte for byte, CRLF kept
    r = okf("concepts", str(site), "gen_md")
    assert r.stdout.decode().splitlines() == ["2 concepts match 'gen_md'", "gen_md_0  Generated md 0", "gen_md_1  Generated md 1"]


@pytest.mark.parametrize(
    "args, code",
    [
        (["search", "{site}", "--query", ""], "schema_validation"),
        (["search", "{site}", "--query", "x" * 513], "schema_validation"),
        (["search", "{site}", "--query", "!!!"], "schema_validation"),
        (["search", "{site}"], "schema_validation"),  # argparse: --query is required
        (["search", "{site}", "--query", "a", "--limit", "true"], "schema_validation"),
        (["search", "{site}", "--query", "a", "--limit", "0"], "schema_validation"),
        (["search", "{site}", "--query", " ".join(f"t{i}" for i in range(40))], "resource_limit"),
        (["frobnicate"], "schema_validation"),
        (["search", "{missing}", "--query", "retry"], "index_not_found"),
        (["section", "{site}", "--concept", "guide", "--heading", "notes"], "ambiguous_section"),
        (["section", "{site}", "--concept", "guide", "--heading", "nothing like it"], "section_not_found"),
        (["section", "{site}", "--concept", "nope"], "not_found"),
        (["lines", "{site}", "crlf.rst", "0", "3"], "invalid_line_range"),
        (["lines", "{site}", "crlf.rst", "30", "31"], "range_out_of_bounds"),
        (["lines", "{site}", "../crlf.rst", "1", "3"], "path_outside_root"),
        (["lines", "{site}", "", "1", "3"], "missing_path"),
        (["lines", "{site}", "x" * 4097, "1", "3"], "path_too_long"),
        (["lines", "{site}", "wide.rst", "1", "9999"], "page_too_large"),
        (["concepts", "{site}", "x", "--limit", "101"], "schema_validation"),
    ],
)
def test_errors_exit_codes_and_envelopes(site, tmp_path, args, code):
    argv = [a.format(site=site, missing=tmp_path / "missing") for a in args]
    plain = okf(*argv)
    assert plain.returncode == EXIT_CODES[code]
    assert plain.stdout == b""  # never partial output
    message = plain.stderr.decode()
    assert message.startswith(f"okf: error: {code}: ") and message.endswith("\n")
    first, *more = message.splitlines()
    # then only the candidates / suggestions the message mentions, one per indented line
    assert all(line in ("candidates:", "suggestions:") or line.startswith("  ") for line in more)
    assert bool(more) == bool(json.loads(okf(*argv, "--json").stdout)["error"].get(
        "candidates", json.loads(okf(*argv, "--json").stdout)["error"].get("suggestions")))
    assert "Traceback" not in message
    js = okf(*argv, "--json")
    assert js.returncode == EXIT_CODES[code]
    envelope = json.loads(js.stdout)
    assert list(envelope) == ["error"] and envelope["error"]["code"] == code
    assert js.stdout == answer_json(envelope).encode() + b"\n" and js.stderr == b""


def test_invalid_utf8_argument_is_schema_validation(site):
    r = okf("search", str(site), "--query", b"caf\xe9", "--json")
    assert r.returncode == 2
    assert json.loads(r.stdout)["error"]["code"] == "schema_validation"
    r = okf("lines", str(site), b"\xff.rst", "1", "2")
    assert r.returncode == 2 and r.stderr.startswith(b"okf: error: schema_validation: ")


def test_help_exits_zero():
    r = okf("--help")
    assert r.returncode == 0 and b"search" in r.stdout and b"mcp" in r.stdout


def test_query_path_imports_neither_sphinx_nor_docutils(site):
    code = (
        "import sys\n"
        "from okf_sphinx.surfaces.cli import main\n"
        f"site = {str(site)!r}\n"
        "rcs = [main(['search', site, '--query', 'retry', '--json']),\n"
        "       main(['section', site, '--concept', 'guide', '--heading', 'K1']),\n"
        "       main(['lines', site, 'guide.rst', '1', '3']),\n"
        "       main(['concepts', site, 'gen'])]\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('sphinx', 'docutils', 'mcp', 'myst_parser'))\n"
        "print('RESULT', rcs, bad, file=sys.stderr)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stderr.decode().strip().splitlines()[-1] == "RESULT [0, 0, 0, 0] []"
    # and -X importtime agrees for a one-shot command
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "okf_sphinx", "search", str(site), "--query", "retry"],
                       capture_output=True, timeout=60, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    imported = {line.split("|")[-1].strip().split(".")[0] for line in r.stderr.decode().splitlines() if "|" in line}
    assert r.returncode == 0 and "okf_sphinx" in imported
    assert not imported & {"sphinx", "docutils", "mcp"}


@pytest.mark.parametrize("query", ["--no-deps", "-walrus", "-q"])
def test_a_query_that_starts_with_a_dash_is_text_not_an_option(site, query):
    """``--query --no-deps`` asks for the words of ``--no-deps``; argparse alone would refuse it."""
    r = okf("search", str(site), "--query", query, "--json")
    assert r.returncode == 0, r.stdout
    assert json.loads(r.stdout) == open_index(site).search(query)
    r = okf("search", str(site), "-q", query, "--json")
    assert json.loads(r.stdout)["query"] == query
