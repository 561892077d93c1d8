/* JavaScript only: the runtime's public API, window.OkfSearch in a page and module.exports in
 * Node (its Python counterpart is okf_sphinx/__init__.py: open_index, Index, OkfError).
 *   OkfSearch.search(query, limit, opts)  the site's own index (see index())
 *   new OkfSearch.Index(loader)           any index: loader = scriptLoader(url) or nodeLoader(dir) */
define('api', function (use, root) {
  'use strict';
  var index = use('engine/index'), errors = use('core/errors'), terms = use('core/terms'), source = use('engine/source');
  var highlight = use('surfaces/highlight'), readable = use('surfaces/readable'), S = use('core/strings'), fmt = use('core/index_format');
  var doc = root && root.document, thisScript = doc && doc.currentScript;
  var api = {
    Index: index.Index, OkfError: errors.OkfError, scriptLoader: source.scriptLoader, nodeLoader: source.nodeLoader,
    Normaliser: terms.Normaliser, jsonText: errors.jsonText, canonicalJson: fmt.canonicalJson, cpSlice: S.cpSlice, cpLen: S.cpLen,
    matches: highlight.matches, highlight: highlight.highlight, readable: readable.readable
  };
  var siteIndex = null;
  // The site's own index: the search page's data-okf-index, else this script tag's (MkDocs),
  // else ../_okf/ beside _static/.
  api.index = function () {
    if (!siteIndex) {
      var el = doc.getElementById('okf-search'), base = el && el.getAttribute('data-okf-index');
      base = base || (thisScript && thisScript.getAttribute('data-okf-index'));
      base = base ? new URL(base, doc.baseURI).href : new URL('../_okf/', thisScript ? thisScript.src : doc.baseURI).href;
      siteIndex = new index.Index(source.scriptLoader(base));
    }
    return siteIndex;
  };
  api.search = function (query, limit, opts) { return api.index().search(query, limit, opts); };
  // a module of the runtime by its Python name ('engine/smart'): for tests and tools
  api.module = use;
  return api;
});
