// Sphinx's own browser search, run in Node over a built site: the site's
// _static/language_data.js, _static/searchtools.js and searchindex.js are evaluated
// unchanged in one VM context (like three <script> tags) with a minimal DOM shim, and
// each query goes through Search._parseQuery + Search._performSearch, the two steps of
// Search.query() before it renders.  Results are printed best first (the page shows them
// by pop(), last first), one JSON line per query: [[docname, anchor, score], ...].
//
// Usage: node quality_sphinx.js SITE_DIR < queries.json (a JSON array of strings)
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const site = process.argv[2];
const inert = () => null;
const element = () => ({ appendChild: (c) => c, classList: { add: inert }, setAttribute: inert, dataset: {} });
const context = vm.createContext({
  console,
  setTimeout: inert,
  URLSearchParams,
  location: { search: '' },
  document: {
    getElementById: inert,
    querySelectorAll: () => [],
    createElement: element,
    body: element(),
    documentElement: { dataset: { content_root: '' } },
    readyState: 'complete',
    addEventListener: inert,
  },
  localStorage: { setItem: inert, getItem: inert },
  DOCUMENTATION_OPTIONS: { BUILDER: 'html', FILE_SUFFIX: '.html', LINK_SUFFIX: '.html', SHOW_SEARCH_SUMMARY: false },
  SPHINX_HIGHLIGHT_ENABLED: false,
  _: (s) => s,
  Documentation: { gettext: (s) => s, ngettext: (s, p, n) => (n === 1 ? s : p) },
  _ready: inert,
});
context.window = vm.runInContext('this', context); // language_data.js sets window.Stemmer
for (const file of ['_static/language_data.js', '_static/searchtools.js', 'searchindex.js']) {
  let code = fs.readFileSync(path.join(site, file), 'utf8');
  // Sphinx 9.0-9.1 writes `window.Stemmer = ChineseStemmer;` for Chinese, a class it never
  // defines (sphinx-doc/sphinx#14229): its search page throws and finds nothing.  Measured as
  // its fix (sphinx-doc/sphinx#14416) makes it: the English stemmer its zh.py names.
  if (file === '_static/language_data.js') code = code.replace(/window\.Stemmer = ChineseStemmer;/, 'window.Stemmer = EnglishStemmer;');
  vm.runInContext(code, context, { filename: file });
}
const queries = JSON.parse(fs.readFileSync(0, 'utf8'));
context.__queries = queries;
const answers = vm.runInContext(`__queries.map((q) => {
  const [query, searchTerms, excluded, highlight, objects] = Search._parseQuery(q);
  return Search._performSearch(query, searchTerms, excluded, highlight, objects)
    .reverse().map((r) => [r[0], r[2], r[4]]);
})`, context);
for (const a of answers) process.stdout.write(JSON.stringify(a) + '\n');
