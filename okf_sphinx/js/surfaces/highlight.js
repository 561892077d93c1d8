/* JavaScript only: where a text holds the query's words, for the marks a reader sees (the search
 * page, the dialog, the landing highlights). Index text reaches the page as text nodes only. */
define('surfaces/highlight', function (use, root) {
  'use strict';
  var S = use('core/strings'), terms = use('core/terms'), segment = use('core/segment');
  var own = Object.prototype.hasOwnProperty;
  var doc = root && root.document;

  // [start, end) UTF-16 offsets of the runs of text whose terms are query terms (or, with stem,
  // their word forms; with prefix, words starting with it). With segmented (a Chinese, Japanese
  // or Korean site: engine/smart.js segmenter()), inside a run that holds CJK text the query's
  // CJK units are marked where they occur, and its other parts when they are query words: the
  // pieces smart mode matched, not the whole run.
  function matches(normaliser, text, words, stem, prefix, segmented) {
    var wanted = {}, out = [], pairs = {}, anyPair = false;
    words.forEach(function (t) { wanted[t] = 1; if (stem) wanted['\u0000' + stem(t)] = 1; });
    if (segmented) {
      words.forEach(function (t) {
        segment.units(t).forEach(function (u) { if (segment.hasCjk(u[1])) { pairs[u[1]] = 1; anyPair = true; } else wanted[u[1]] = 1; });
      });
    }
    function want(t) { return own.call(wanted, t) || (stem && own.call(wanted, '\u0000' + stem(t))) || (prefix && t.length > prefix.length && t.slice(0, prefix.length) === prefix); }
    function odd(j) { var c = j >= 0 && j < text.length ? S.cpAt(text, j) : 32; return c > 127 && !terms.asciiSeparator(c); }
    normaliser.wordRuns(text).forEach(function (r) {
      if (segmented && segment.hasCjk(r[2])) {  // the pieces of a CJK run (raw text; Latin parts case-folded)
        var at = r[1];
        segment.parts(r[2]).forEach(function (p) {
          var piece = p[1], from = at;
          at += piece.length;
          if (!p[2]) { if (normaliser.terms(piece).some(want)) out.push([from, from + piece.length]); return; }
          if (!anyPair) return;
          Object.keys(pairs).forEach(function (u) {
            for (var k = piece.indexOf(u); k >= 0; k = piece.indexOf(u, k + 1)) out.push([from + k, from + k + u.length]);
          });
        });
        return;
      }
      if (!normaliser.terms(r[2]).some(want)) return;
      var end = r[1] + r[2].length;  // without the tables, skip runs glued to unknown letters
      var b = r[1] - 1;
      if (b > 0 && (text.charCodeAt(b) & 0xfc00) === 0xdc00) b--;
      if (!normaliser.t && (odd(end) || odd(b))) return;
      out.push([r[1], end]);
    });
    if (!segmented) return out;
    // overlapping or touching marks of one run (数据 + 据库) become one
    out.sort(function (x, y) { return x[0] - y[0] || x[1] - y[1]; });
    return out.reduce(function (acc, m) {
      var last = acc[acc.length - 1];
      if (last && m[0] <= last[1]) last[1] = Math.max(last[1], m[1]); else acc.push([m[0], m[1]]);
      return acc;
    }, []);
  }
  // text as a <p class=okf-snippet> (text nodes only) with the matches() runs wrapped in <mark>
  function highlight(normaliser, text, words, stem, prefix, segmented) {
    var p = doc.createElement('p'), at = 0;
    p.className = 'okf-snippet';
    matches(normaliser, text, words, stem, prefix, segmented).forEach(function (r) {
      if (r[0] > at) p.appendChild(doc.createTextNode(text.slice(at, r[0])));
      var m = doc.createElement('mark');
      m.textContent = text.slice(r[0], r[1]);
      p.appendChild(m);
      at = r[1];
    });
    if (at < text.length) p.appendChild(doc.createTextNode(text.slice(at)));
    return p;
  }

  return { matches: matches, highlight: highlight };
});
