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


# -- terminal escapes from the index (issue 20, point 5) --------------------------------------------

#: What a page (or a URL site) could hold to act on a reader's terminal: a window title (OSC 0),
#: cursor up + erase line (CSI), a hidden link (OSC 8), the one-byte C1 CSI, DEL, a bidi override.
HOSTILE = "\x1b]0;pwned\x07 \x1b[1A\x1b[2K \x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\ \x9b31m \x7f \u202egnp.exe"
_RAW = ("\x1b", "\x07", "\x9b", "\x7f", "\u202e")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    from support.build import build_html, write_project

    src = write_project(tmp_path_factory.mktemp("hostile") / "src", {
        "index.rst": f"Walrus {HOSTILE}\n{'=' * 80}\n\nThe walrus {HOSTILE} text.\n\n"
                     f"Tusk {HOSTILE}\n{'-' * 80}\n\nMore walrus words.\n",
    }, 'project = "hostile"\n')
    return build_html(src)


@pytest.mark.parametrize("args", [
    ("search", "--query", "walrus"),
    ("search", "--query", "walrus", "--mode", "smart"),
    ("concepts", "index"),
    ("section", "--concept", "index"),  # the outline
    ("section", "index.rst#L1-L6"),
    ("object", "walrus"),  # a refusal: its message and suggestions on stderr
])
def test_text_output_shows_control_characters_escaped(hostile, args):
    r = okf(args[0], str(hostile), *args[1:])
    shown = (r.stdout + r.stderr).decode()
    assert not any(c in shown for c in _RAW), shown
    if args[0] != "object":
        assert "\\x1b]0;pwned\\x07" in shown and "\\x9b31m" in shown and "\\u202egnp" in shown, shown
    # --json is the tool's exact answer, control characters and all
    j = okf(args[0], str(hostile), *args[1:], "--json")
    assert json.loads(j.stdout)  # one envelope or answer, the JSON escapes as JSON writes them
    assert ("\\u001b]0;pwned\\u0007" in j.stdout.decode() and "\x9b31m" in j.stdout.decode()) or args[0] == "object"


def test_exact_text_is_exact_on_a_pipe_and_escaped_on_a_terminal(hostile):
    """``okf lines`` and a section's content are the captured bytes when written to a
    pipe or file; on a terminal their control characters are shown escaped too."""
    import pty

    data = (hostile.parent / "src" / "index.rst").read_bytes()
    first = data.split(b"\n")[0] + b"\n"
    r = okf("lines", str(hostile), "index.rst", "1", "1")
    assert r.returncode == 0 and r.stdout == first
    master, slave = pty.openpty()
    try:
        proc = subprocess.run([sys.executable, "-m", "okf_sphinx", "lines", str(hostile), "index.rst", "1", "1"],
                              stdout=slave, stderr=subprocess.PIPE, timeout=60)
        os.close(slave)
        out = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(master)
    assert proc.returncode == 0
    shown = out.decode()
    assert not any(c in shown for c in _RAW) and "\\x1b]0;pwned\\x07" in shown, shown


def test_json_output_follows_the_parsed_flag_for_answers_and_refusals_alike(site):
    """``--json`` is an option like any other: an abbreviation is no flag (argparse's
    own abbreviations are off), ``--json`` after ``--`` is a value, and a refusal is
    JSON exactly when an answer would be (issue 20, point 13)."""
    r = okf("search", str(site), "--query", "walrus", "--jso")  # not the flag: a usage error, as text
    assert r.returncode == 2 and r.stdout == b"" and b"--jso" in r.stderr and not r.stderr.startswith(b"{")
    r = okf("lines", str(site), "--", "--json", "1", "2")  # a path named --json: its refusal as text
    assert r.returncode == EXIT_CODES["not_found"] and r.stdout == b"" and b"not_found" in r.stderr
    r = okf("lines", str(site), "--json", "--", "--json", "1", "2")  # the flag, then that path
    assert r.returncode == EXIT_CODES["not_found"] and json.loads(r.stdout)["error"]["code"] == "not_found"
    r = okf("search", str(site), "--json")  # a usage error with the flag: JSON
    assert r.returncode == 2 and json.loads(r.stdout)["error"]["code"] == "schema_validation"
    r = okf("search", str(site), "--query", "--json")  # a query that reads "--json": text
    assert r.returncode == 0 and r.stdout.startswith(b"0 sections match '--json'")
