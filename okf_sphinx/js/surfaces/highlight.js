/* JavaScript only: where a text holds the query's words, for the marks a reader sees (the search
 * page, the dialog, the landing highlights). Index text reaches the page as text nodes only. */
define('surfaces/highlight', function (use, root) {
  'use strict';
  var S = use('core/strings'), terms = use('core/terms');
  var own = Object.prototype.hasOwnProperty;
  var doc = root && root.document;

  // [start, end) UTF-16 offsets of the runs of text whose terms are query terms (or, with stem,
  // their word forms; with prefix, words starting with it)
  function matches(normaliser, text, words, stem, prefix) {
    var wanted = {}, out = [];
    words.forEach(function (t) { wanted[t] = 1; if (stem) wanted['\u0000' + stem(t)] = 1; });
    function want(t) { return own.call(wanted, t) || (stem && own.call(wanted, '\u0000' + stem(t))) || (prefix && t.length > prefix.length && t.slice(0, prefix.length) === prefix); }
    function odd(j) { var c = j >= 0 && j < text.length ? S.cpAt(text, j) : 32; return c > 127 && !terms.asciiSeparator(c); }
    normaliser.wordRuns(text).forEach(function (r) {
      if (!normaliser.terms(r[2]).some(want)) return;
      var end = r[1] + r[2].length;  // without the tables, skip runs glued to unknown letters
      var b = r[1] - 1;
      if (b > 0 && (text.charCodeAt(b) & 0xfc00) === 0xdc00) b--;
      if (!normaliser.t && (odd(end) || odd(b))) return;
      out.push([r[1], end]);
    });
    return out;
  }
  // text as a <p class=okf-snippet> (text nodes only) with the matches() runs wrapped in <mark>
  function highlight(normaliser, text, words, stem, prefix) {
    var p = doc.createElement('p'), at = 0;
    p.className = 'okf-snippet';
    matches(normaliser, text, words, stem, prefix).forEach(function (r) {
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
