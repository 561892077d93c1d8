"""The browser runtime mirrors the Python engine module for module (docs/architecture.md).

``okf_sphinx/js/<package>/<module>.js`` is the twin of ``okf_sphinx/<package>/<module>.py``:
it says so in its first line, and every public function, class (with its public methods)
and constant of one has its twin in the other — the same name, camelCase in JavaScript —
unless the lists below name it, with the reason it lives on one side only.  So a function
added to, renamed in or removed from one engine without its twin fails here; the parity
tests (test_js_parity.py, test_parity.py, test_parity_mkdocs.py) prove the twins answer
alike.  The constants both use are generated from Python into ``js/core/constants.js``,
which must not be stale.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from okf_sphinx.surfaces import browser

PACKAGE = browser.PACKAGE
JS = browser.SOURCES

#: The Python modules of the query path, each with a JavaScript twin.
TWINS = ("core.errors", "core.terms", "core.segment", "core.index_format", "engine.validators", "engine.index", "engine.query",
         "engine.smart", "engine.filters", "engine.spelling", "engine.words", "engine.phrases", "engine.expansion",
         "engine.object_names", "engine.headings", "engine.link_labels", "core.semantic", "engine.semantic",
         "engine.vector_files")

#: JavaScript files with no Python twin, and why.
JS_ONLY_FILES = {
    "core/constants.js": "generated from the Python constants (okf_sphinx/surfaces/browser.py)",
    "core/strings.js": "JavaScript strings are UTF-16: code-point helpers Python needs none of",
    "engine/source.js": "plays engine/source.py's part in a browser (script tags) and in Node (file reads)",
    "surfaces/highlight.js": "the marks a reader sees (search page, dialog, landing highlights)",
    "surfaces/readable.js": "the excerpts' text a reader sees (search page, dialog): display only",
    "api.js": "the public OkfSearch object (Python's is okf_sphinx/__init__.py)",
}

_BUILD = "build side: the browser builds no index"
_TOOLS = "the reading tools' files and lookups (agent/), which the browser does not run"

#: Public Python names with no JavaScript twin, and why.
PY_ONLY: dict[str, dict[str, str]] = {
    "core.errors": {**{n: _BUILD for n in ("BuildError", "SourceChangedError", "NotAnIndexError", "BuildLimitError",
                                           "PathLimitError")},
                    "shown": "long values in build and command-line messages (a weight, --timeout)"},
    "core.terms": {n: "build side: the build's own tables, which the browser gets as unicode.js"
                   for n in ("unicode_tables", "compute_unicode_tables", "native", "terms")},
    "core.index_format": {
        **{n: _BUILD for n in ("STAGING_PREFIX", "K1", "B", "WEIGHTS", "wrap", "wrap_json", "build_id", "MANIFEST_HEAD",
                               "encode_ints", "encode_word_list", "idf", "idf_steps", "unicode_file", "file_row", "SECTION_ROW")},
        **{n: _TOOLS for n in ("snapshot_revision", "COPY_PATH", "quote_path", "locator")},
    },
    "core.segment": {n: _BUILD for n in ("LANGUAGES", "segmenter_for", "part_freqs")},
    "engine.index": {"DEFAULT_CACHE_BYTES": "Python bounds its cache in bytes (engine/cache.py)"},
    "core.semantic": {n: _BUILD for n in ("LEVELS", "MAX_SCALE", "TEXT_CODE_POINTS", "MAX_DIMS", "encode_vector")},
    "engine.validators": {n: _TOOLS for n in ("check_objects", "check_files", "check_pack", "check_parts", "check_file")},
    "engine.object_names": {n: _TOOLS for n in ("candidate", "matches", "substring", "find_object", "MAX_NAME_CHARS",
                                                "MAX_CANDIDATES")},
}

#: Public methods (and properties) of Python classes with no JavaScript twin, and why.
PY_ONLY_MEMBERS: dict[str, dict[str, str]] = {
    "Index": {"objects": _TOOLS, "files": _TOOLS, "file_bytes": _TOOLS, "file_text": _TOOLS,
              "cache": "Python's byte-bounded cache (engine/cache.py)", "sections": "the old name of section_count",
              "source": "where files come from (JavaScript: its loader)", "cache_bytes": "Python's byte-bounded cache"},
    "Posting": {"footprint": "Python's byte-bounded cache (engine/cache.py)"},
    "Normaliser": {"native": "this Python's own Unicode tables are the build's: its str functions are used"},
    "OkfError": {"exit_code": "the CLI's exit status"},
}

#: JavaScript exports with no Python twin, and why.
JS_ONLY: dict[str, dict[str, str]] = {
    "core/terms": {"ASCII": "the Normaliser without tables, for ASCII text (Python always has the tables)",
                   "asciiSeparator": "the separators an ASCII query may take without unicode.js"},
    "engine/validators": {n: "JSON's object and string tests (Python: isinstance), which engine/vector_files.js uses too"
                          for n in ("isObject", "isStr")},
}
JS_ONLY_MEMBERS: dict[str, dict[str, str]] = {
    "Index": {"open": "the manifest is read when first needed (Python reads it on open)",
              "normaliserFor": "ASCII text needs no unicode.js", "loader": "where files come from (Python: its source)",
              "state": "the build it answers from (Python keeps it per thread)", "reads": "files requested so far",
              "opening": "the manifest being read",
              "dictionary": "engine/spelling.py's dictionary, which smart mode's completions read without the spelling part"},
    "Normaliser": {"t": "its tables (Python keeps them in private fields)", "unicodeVersion": "the tables' version"},
}


def camel(name: str) -> str:
    """A Python name as its JavaScript twin spells it: functions and methods in camelCase,
    classes and constants unchanged."""
    if name.isupper() or name[:1].isupper():
        return name
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _is_typevar(value: ast.expr | None) -> bool:
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "TypeVar"


def python_public(module: str) -> tuple[set[str], dict[str, set[str]]]:
    """Public module-level names (functions, classes, UPPER constants) and public class members."""
    path = PACKAGE / Path(*module.split(".")).with_suffix(".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    members: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
            names.add(node.name)
            if isinstance(node, ast.ClassDef):
                # methods, properties and class-level names (a NamedTuple's fields) …
                found = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
                found |= {n.targets[0].id for n in node.body if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)}
                found |= {n.target.id for n in node.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
                # … and the attributes __init__ sets
                for n in node.body:
                    if isinstance(n, ast.FunctionDef) and n.name == "__init__":
                        found |= {a.attr for s in ast.walk(n) if isinstance(s, (ast.Assign, ast.AnnAssign))
                                  for tg in (s.targets if isinstance(s, ast.Assign) else [s.target])
                                  for a in [tg] if isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name)
                                  and a.value.id == "self"}
                members[node.name] = {m for m in found if not m.startswith("_") and not m.isupper()}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and not _is_typevar(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for t in (target.elts if isinstance(target, ast.Tuple) else [target]):
                    if isinstance(t, ast.Name) and t.id.isupper() and not t.id.startswith("_"):
                        names.add(t.id)
    return names, members


def js_file(module: str) -> Path:
    return JS / (module.replace(".", "/") + ".js")


def js_exports(path: Path) -> set[str]:
    """The names a runtime file's module returns (its last ``return { … };``)."""
    text = path.read_text(encoding="utf-8")
    m = re.search(r"return \{([^{}]*)\};\s*\}\);\s*$", text)
    assert m, f"{path}: the module must end with `return {{ name: value, … }};` and `}});`"
    return set(re.findall(r"(\w+)\s*:", m.group(1)))


def js_members(path: Path) -> dict[str, set[str]]:
    text = path.read_text(encoding="utf-8")
    out: dict[str, set[str]] = {}
    for cls, name in re.findall(r"\b(\w+)\.prototype\.(\w+)\s*=\s*(?:async\s+)?function", text):
        out.setdefault(cls, set()).add(name)
    for cls, name in re.findall(r"Object\.defineProperty\((\w+)\.prototype, '(\w+)'", text):
        out.setdefault(cls, set()).add(name)
    for name in re.findall(r"\bgetter\('(\w+)'", text):  # engine/index.js's property helper
        out.setdefault("Index", set()).add(name)
    for cls, body in re.findall(r"\n  function ([A-Z]\w*)\([^)]*\) \{\n(.*?)\n  \}\n", text, re.S):  # constructors' fields
        out.setdefault(cls, set()).update(f for f in re.findall(r"this\.(\w+) = ", body) if not f.startswith("_"))
    return out


def test_constants_js_is_fresh() -> None:
    """The shared constants are generated from Python: regenerate with `python -m okf_sphinx.surfaces.browser`."""
    assert browser.CONSTANTS.read_text(encoding="utf-8") == browser.constants_js(), (
        "okf_sphinx/js/core/constants.js is stale: run `python -m okf_sphinx.surfaces.browser`")


def test_every_runtime_file_is_a_twin_or_says_why_not() -> None:
    files = {p.relative_to(JS).as_posix() for p in JS.rglob("*.js")}
    twins = {js_file(m).relative_to(JS).as_posix() for m in TWINS}
    assert twins <= files, f"missing twins: {sorted(twins - files)}"
    assert files - twins == set(JS_ONLY_FILES), f"runtime files neither twin nor JS-only: {sorted(files - twins - set(JS_ONLY_FILES))}"
    for module in TWINS:
        text = js_file(module).read_text(encoding="utf-8")
        first = text.splitlines()[0]
        assert f"Mirrors okf_sphinx/{module.replace('.', '/')}.py" in first, (js_file(module), first)
        assert f"define('{module.replace('.', '/')}', " in text
        # and the Python module names its twin
        py = (PACKAGE / Path(*module.split(".")).with_suffix(".py")).read_text(encoding="utf-8")
        assert f"okf_sphinx/js/{module.replace('.', '/')}.js" in py, f"{module}.py does not name its twin"


@pytest.mark.parametrize("module", TWINS)
def test_public_names_have_twins(module: str) -> None:
    names, members = python_public(module)
    generated = set(browser.SHARED.get(f"okf_sphinx.{module}", ()))
    py_only = PY_ONLY.get(module, {})
    exports = js_exports(js_file(module))
    js_only = JS_ONLY.get(module.replace(".", "/"), {})
    assert not set(py_only) - names, f"{module}: PY_ONLY names what the module does not define: {set(py_only) - names}"
    missing = sorted(n for n in names - generated - set(py_only) if camel(n) not in exports)
    assert not missing, f"{module}.py's {missing} have no twin in {js_file(module).name} (nor a reason in PY_ONLY)"
    twins = {camel(n) for n in names} | set(js_only)
    extra = sorted(exports - twins)
    assert not extra, f"{js_file(module).name} exports {extra}, which {module}.py does not define (nor a reason in JS_ONLY)"
    assert not generated & {n for n in names if camel(n) in exports}, "a generated constant is declared again"
    # classes: their public methods and properties
    js = js_members(js_file(module))
    for cls, py_members in members.items():
        if cls in py_only:
            continue
        have = js.get(cls, set())
        want = {camel(m) for m in py_members if m not in PY_ONLY_MEMBERS.get(cls, {})}
        assert want <= have, f"{module}.{cls}: {sorted(want - have)} have no twin in {js_file(module).name}"
        extra = have - {camel(m) for m in py_members} - set(JS_ONLY_MEMBERS.get(cls, {}))
        assert not {m for m in extra if not m.startswith("_")}, f"{js_file(module).name} {cls} has {sorted(extra)} Python lacks"


def test_generated_constants_come_from_their_module() -> None:
    for module, names in browser.SHARED.items():
        mod = importlib.import_module(module)
        for name in names:
            assert hasattr(mod, name), (module, name)
    text = browser.CONSTANTS.read_text(encoding="utf-8")
    for names in browser.SHARED.values():
        for name in names:
            assert f"    {name}: " in text


def test_the_checker_finds_a_function_without_twin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the checks above are only as good as this: a Python function added alone, or a JS export
    # added alone, is reported
    py = python_public("engine.spelling")[0] | {"new_rule"}
    exports = js_exports(js_file("engine.spelling"))
    assert "newRule" not in exports and camel("new_rule") == "newRule"
    assert sorted(n for n in py if camel(n) not in exports and n not in browser.SHARED["okf_sphinx.engine.spelling"]) == ["new_rule"]
    fake = tmp_path / "x.js"
    fake.write_text("define('x', function () {\n  return { a: a, extraThing: b };\n});\n", encoding="utf-8")
    assert js_exports(fake) == {"a", "extraThing"}
    assert camel("check_manifest") == "checkManifest" and camel("bm25_part") == "bm25Part" and camel("MAX_X") == "MAX_X"


def test_the_assembled_runtime_drops_only_comment_lines() -> None:
    # runtime_js drops the lines that are only comments: safe while no source holds a template
    # literal (whose lines could start with // or /*)
    for path in browser.sources():
        code = [line for line in path.read_text(encoding="utf-8").splitlines()
                if not line.lstrip().startswith(("//", "/*", "*"))]
        assert not any("`" in line for line in code), f"{path}: a template literal"
    text = browser.runtime_js()
    kept = [line for line in text.splitlines() if line.strip()]
    assert not [line for line in kept[4:] if line.lstrip().startswith("//")]  # after the runtime's own header
    for path in browser.sources():  # every line of code is there, in order
        body = [line for line in path.read_text(encoding="utf-8").splitlines()
                if line.strip() and not line.lstrip().startswith(("//", "/*", " *", "*"))]
        at = text.index(body[0])
        for line in body[1:]:
            at = text.index(line, at)
