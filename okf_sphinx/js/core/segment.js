/* Mirrors okf_sphinx/core/segment.py: Chinese, Japanese and Korean words as character pairs
 * (docs/smart.md, "Chinese, Japanese and Korean"). On a zh/ja/ko site a term holding a CJK
 * character is cut where CJK characters meet others; a CJK part of one character is one unit, a
 * longer one gives its overlapping pairs, any other part is one unit. Offsets count code
 * points, as Python's; SEGMENTER, PART, MAX_UNITS and CJK_RANGES come from Python (constants.js). */
define('core/segment', function (use) {
  'use strict';
  var C = use('core/constants'), S = use('core/strings');
  var own = Object.prototype.hasOwnProperty;
  var STARTS = C.CJK_RANGES.map(function (r) { return r[0]; });

  // Is code point cp (a number: JavaScript strings are UTF-16) in a CJK range?
  function isCjk(cp) {
    var i = S.bisectRight(STARTS, cp) - 1;
    return i >= 0 && cp <= C.CJK_RANGES[i][1];
  }
  function hasCjk(term) {
    for (var i = 0; i < term.length; i++) {
      var cp = S.cpAt(term, i);
      if (cp > 0xffff) i++;
      if (isCjk(cp)) return true;
    }
    return false;
  }
  // [code-point offset, part, is CJK] of term cut where CJK characters meet others
  function parts(term) {
    var cps = Array.from(term), out = [], start = 0;
    for (var i = 1; i <= cps.length; i++) {
      if (i === cps.length || isCjk(S.cpAt(cps[i], 0)) !== isCjk(S.cpAt(cps[start], 0))) {
        out.push([start, cps.slice(start, i).join(''), isCjk(S.cpAt(cps[start], 0))]);
        start = i;
      }
    }
    return out;
  }
  // [code-point offset, unit] of a term, in order: [[0, term]] when it holds no CJK character
  function units(term) {
    if (!hasCjk(term)) return [[0, term]];
    var out = [];
    parts(term).forEach(function (p) {
      var cps = Array.from(p[1]);
      if (p[2] && cps.length > 1) for (var i = 0; i + 1 < cps.length; i++) out.push([p[0] + i, cps[i] + cps[i + 1]]);
      else out.push([p[0], p[1]]);
    });
    return out;
  }
  // [word index, offset in the word, unit] of a query's terms: every distinct unit, in query
  // order, at most MAX_UNITS
  function queryUnits(words) {
    var seen = {}, out = [];
    words.forEach(function (word, w) {
      units(word).forEach(function (u) {
        if (!own.call(seen, u[1]) && out.length < C.MAX_UNITS) { seen[u[1]] = 1; out.push([w, u[0], u[1]]); }
      });
    });
    return out;
  }
  // The query text the chosen units (indexes into found) cover, for matched_terms and
  // missing_terms: units of one term that touch or overlap are joined; in query order
  function spans(words, found, chosen) {
    var out = [], run = null;
    chosen.slice().sort(function (a, b) { return found[a][0] - found[b][0] || found[a][1] - found[b][1]; }).forEach(function (k) {
      var w = found[k][0], at = found[k][1], end = at + S.cpLen(found[k][2]);
      if (run !== null && run[0] === w && at <= run[2]) { run[2] = Math.max(run[2], end); return; }
      if (run !== null) out.push(S.cpSlice(words[run[0]], run[1], run[2]));
      run = [w, at, end];
    });
    if (run !== null) out.push(S.cpSlice(words[run[0]], run[1], run[2]));
    return out;
  }

  return { isCjk: isCjk, hasCjk: hasCjk, parts: parts, units: units, queryUnits: queryUnits, spans: spans };
});
