/* Mirrors okf_sphinx/engine/filters.py: smart mode's filters — under a path prefix, page meta,
 * kind. under and meta keep whole pages, kind keeps sections. */
define('engine/filters', function (use) {
  'use strict';
  var C = use('core/constants'), errors = use('core/errors');
  var own = Object.prototype.hasOwnProperty;
  var UNDER = "a path prefix relative to the site's source root, such as 'guide' or 'ref/contrib'";

  function bad(field, what, value) {
    return new errors.OkfError('schema_validation', field + ' must be ' + what + ', got ' + errors.jsonText(value), { field: field });
  }
  // The filters as the engine uses them: [under's path units, the meta pairs, the kinds] (null: none).
  function checkFilters(under, meta, kind) {
    var units = null, kinds = null;
    if (under !== undefined && under !== null) {
      var trimmed = typeof under === 'string' ? under.replace(/^\/+|\/+$/g, '') : '';
      if (typeof under !== 'string' || !trimmed || under.indexOf('\\') >= 0 || under.charAt(0) === '/') throw bad('under', UNDER, under);
      units = trimmed.split('/');
      if (units.some(function (u) { return u === '' || u === '.' || u === '..'; })) throw bad('under', UNDER, under);
    }
    if (meta !== undefined && meta !== null) {
      if (typeof meta !== 'object' || Array.isArray(meta) || !Object.keys(meta).length
        || !Object.keys(meta).every(function (k) { return k && typeof meta[k] === 'string'; })) {
        throw bad('meta', 'an object of page metadata fields and their text values, such as {"status": "draft"}', meta);
      }
    } else meta = null;
    if (kind !== undefined && kind !== null) {
      kinds = typeof kind === 'string' ? [kind] : kind;
      if (!Array.isArray(kinds) || !kinds.length || !kinds.every(function (k) { return typeof k === 'string' && C.KIND.test(k); })) {
        throw bad('kind', "'section' or an object kind such as 'py:function' (or a list of them)", kind);
      }
    }
    return [units, meta, kinds];
  }
  // A page's source path as units, its file suffix dropped.
  function stemPath(path) {
    var units = path.split('/'), name = units[units.length - 1], dot = name.lastIndexOf('.');
    if (dot > 0 && dot < name.length - 1) units[units.length - 1] = name.slice(0, dot);
    return units;
  }
  // Does page number page pass under (its path's units start with units) and meta?
  function pageOk(paths, page, units, wanted, metas) {
    if (units !== null) {
      var have = stemPath(paths[page]);
      if (have.length < units.length || units.some(function (u, i) { return have[i] !== u; })) return false;
    }
    if (wanted !== null) {
      var m = own.call(metas, String(page)) ? metas[String(page)] : {};
      for (var k in wanted) {
        if (!own.call(wanted, k)) continue;
        var v = own.call(m, k) ? m[k] : undefined;
        if (!(v === wanted[k] || (Array.isArray(v) && v.indexOf(wanted[k]) >= 0))) return false;
      }
    }
    return true;
  }
  // pageOk for these filters as a function of the page number; null without a page-level filter.
  function pageFilter(paths, units, wanted, metas) {
    if (units === null && wanted === null) return null;
    return function (page) { return pageOk(paths, page, units, wanted, metas); };
  }

  return { checkFilters: checkFilters, stemPath: stemPath, pageOk: pageOk, pageFilter: pageFilter };
});
