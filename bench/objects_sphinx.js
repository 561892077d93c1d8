// Sphinx's built-in search over a built site, in Node, for bench_objects.py.
//
// The site's own _static/language_data.js, _static/searchtools.js and searchindex.js
// run unchanged in one VM context (as three <script> tags would) with just enough of a
// DOM for them to load; each query goes through Search._parseQuery and
// Search._performSearch, the steps of Search.query() before rendering. Sphinx renders
// results by pop(), so the best is last: printed reversed, best first, one JSON line per
// query: [[docname, anchor, score], ...] (top 10).
//
// Usage: node objects_sphinx.js SITE_DIR < queries.json (a JSON array of strings)
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const site = process.argv[2];
const nothing = () => null;
const node = () => ({ appendChild: (c) => c, classList: { add: nothing }, setAttribute: nothing, dataset: {} });
const sandbox = {
  console,
  setTimeout: nothing,
  URLSearchParams,
  location: { search: '' },
  localStorage: { setItem: nothing, getItem: nothing },
  document: {
    getElementById: nothing,
    querySelectorAll: () => [],
    createElement: node,
    body: node(),
    documentElement: { dataset: { content_root: '' } },
    readyState: 'complete',
    addEventListener: nothing,
  },
  DOCUMENTATION_OPTIONS: { BUILDER: 'html', FILE_SUFFIX: '.html', LINK_SUFFIX: '.html', SHOW_SEARCH_SUMMARY: false },
  SPHINX_HIGHLIGHT_ENABLED: false,
  _: (s) => s,
  Documentation: { gettext: (s) => s, ngettext: (one, many, n) => (n === 1 ? one : many) },
  _ready: nothing,
};
const context = vm.createContext(sandbox);
context.window = vm.runInContext('this', context);
for (const file of ['_static/language_data.js', '_static/searchtools.js', 'searchindex.js']) {
  vm.runInContext(fs.readFileSync(path.join(site, file), 'utf8'), context, { filename: file });
}
context.queries = JSON.parse(fs.readFileSync(0, 'utf8'));
const out = vm.runInContext(`queries.map((q) => {
  const parsed = Search._parseQuery(q);
  return Search._performSearch(...parsed).reverse().slice(0, 10).map((r) => [r[0], r[2], r[4]]);
})`, context);
for (const line of out) process.stdout.write(JSON.stringify(line) + '\n');
