/* Plays okf_sphinx/engine/source.py's part (JavaScript only, but for checkName): where index
 * files come from. A loader is a function (name, fresh) -> [build, value] of _okf/<name>.js (or a
 * Promise of it): the build its wrapper names (null before format 5) and its parsed JSON; fresh:
 * past any HTTP cache. In the browser, one <script> per file
 * (the okfLoad wrapper calls back while the tag runs), which works over http(s) and file://;
 * in Node, the file is read and its exact wrapper checked (JSON.parse, never evaluated). */
define('engine/source', function (use, root) {
  'use strict';
  var C = use('core/constants'), errors = use('core/errors'), fmt = use('core/index_format');
  var OkfError = errors.OkfError;
  var doc = root && root.document;

  // name when it is an index file's name (FILE_NAME), else index_corrupt
  function checkName(name) {
    if (typeof name !== 'string' || !C.FILE_NAME.test(name)) {
      throw new OkfError('index_corrupt', 'index refers to an invalid file name ' + errors.jsonText(name) + '; rebuild the site');
    }
    return name;
  }

  // Browser: one <script> per file; the wrapper calls okfLoad(name, build, value) while the tag runs
  // (okfLoad(name, value) before format 5: build null).
  function scriptLoader(base) {
    root.okfLoad = function (name, build, value) {
      var s = doc.currentScript;
      if (arguments.length < 3) { value = build; build = null; }
      if (s && s.okfName !== undefined) {
        if (name === s.okfName && (build === null || typeof build === 'string')) s.okfValue = [build, value]; else s.okfBad = 1;
      }
    };
    return function (name, fresh) {
      return new Promise(function (resolve, reject) {
        var s = doc.createElement('script');
        s.okfName = name;
        s.async = true;
        s.src = base + name + '.js' + (fresh ? '?fresh=' + Date.now() : '');
        s.onload = function () {
          s.remove();
          if (s.okfValue && !s.okfBad) resolve(s.okfValue);
          else {
            reject(new OkfError('index_corrupt', 'index file ' + name + '.js does not have the okfLoad wrapper for ' + errors.jsonText(name) +
              ' (truncated or foreign); rebuild the site', { file: name + '.js' }));
          }
        };
        s.onerror = function () {
          s.remove();
          reject(new OkfError(name === 'manifest' ? 'index_not_found' : 'index_corrupt',
            'index file ' + name + '.js could not be loaded from ' + base + '; rebuild the site', { file: name + '.js' }));
        };
        doc.head.appendChild(s);
      });
    };
  }

  // Node: read the file, check the exact wrapper, JSON.parse the value (never eval).
  function nodeLoader(dir) {
    var fs = require('fs'), path = require('path');
    var loader = function (name) {
      var data;
      try { data = fs.readFileSync(path.join(dir, name + '.js')); } catch (e) {
        throw new OkfError(name === 'manifest' ? 'index_not_found' : 'index_corrupt',
          'index file ' + name + '.js under ' + dir + ' is missing; rebuild the site', { file: name + '.js' });
      }
      return fmt.unwrapFile(name, data);
    };
    loader.revalidate = true;  // a local file: re-reading the manifest costs nothing
    return loader;
  }

  // The runtime's parts (okf_sphinx/surfaces/browser.py PARTS, such as okf-semantic.js): a file
  // beside okf-search.js, read once when a request first needs it — a <script> in a page (with
  // the runtime's own ?v=), require() in Node.  Their modules then answer use().
  var here = doc && doc.currentScript ? doc.currentScript.src : null, parts = {};
  function loadPart(file) {
    if (!parts[file]) {
      parts[file] = new Promise(function (resolve, reject) {
        if (!doc) { require('./' + file); resolve(); return; }
        var s = doc.createElement('script'), url = new URL(file, here || doc.baseURI);
        if (here) url.search = new URL(here).search;
        s.src = url.href;
        s.onload = function () { s.remove(); resolve(); };
        s.onerror = function () {
          s.remove();
          delete parts[file];
          reject(new OkfError('missing_dependency', file + ' could not be loaded from ' + url.href + ': the site ships it beside okf-search.js; rebuild the site',
            { file: file }));
        };
        doc.head.appendChild(s);
      });
    }
    return parts[file];
  }

  return { checkName: checkName, scriptLoader: scriptLoader, nodeLoader: nodeLoader, loadPart: loadPart };
});
