/* Mirrors okf_sphinx/engine/spelling.py: the site's own words (d/<shard>) — the dictionary, and
 * "did you mean" for a word it lacks. */
define('engine/spelling', function (use) {
  'use strict';
  var C = use('core/constants'), S = use('core/strings'), fmt = use('core/index_format'), V = use('engine/validators');
  var own = Object.prototype.hasOwnProperty;

  // [term, df] of the site's terms that start with key, most frequent first (engine/index.js
  // reads it: smart mode's completions need it without this part of the runtime)
  function dictionary(index, key) { return index.dictionary(key); }
  // Optimal-string-alignment edit distance over code points; cap + 1 once it exceeds cap.
  function osaDistance(a, b, cap) {
    a = Array.from(a); b = Array.from(b);
    if (Math.abs(a.length - b.length) > cap) return cap + 1;
    var prev2 = [], prev = [], i, j;
    for (j = 0; j <= b.length; j++) prev.push(j);
    for (i = 1; i <= a.length; i++) {
      var cur = [i], low = i;
      for (j = 1; j <= b.length; j++) {
        var v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2] + 1);
        cur.push(v);
        if (v < low) low = v;
      }
      if (low > cap) return cap + 1;
      prev2 = prev; prev = cur;
    }
    return prev[b.length];
  }
  // word's edit keys that may have words filed under them: all of them, but on an index that lists
  // the code points of the words its spelling files hold (edit_chars) none with a code point outside
  // that list, since no word is filed under such a key (a word in a script the site's words do not use
  // reads no e/ file).
  function filedKeys(smart, word) {
    var held = smart.edit_chars;
    return fmt.editKeys(word).filter(function (k) {
      return held === undefined || held === null || Array.from(k).every(function (c) { return held.indexOf(c) >= 0; });
    });
  }
  // [distance, -df, n, term] of the site's words close to word (at most one edit from a word of
  // up to 4 code points, two from a longer one), nearest first, then most frequent, then in the
  // order read: the words filed under word's edit keys (e/, three files), or on an index without
  // them the dictionary's words with the same first two code points (d/).
  async function near(index, word) {
    var cap = S.cpLen(word) <= 4 ? 1 : 2, smart = V.checkSmart(index.manifest.smart), shards = smart.edit_shards, entries = [];
    if (shards === undefined || shards === null) entries = await dictionary(index, fmt.dictKey(word));
    else {
      var keys = filedKeys(smart, word);
      var files = await Promise.all(keys.map(function (k) { return index.load(fmt.editShardName(k, shards), V.checkDict); }));
      files.forEach(function (f, i) { if (own.call(f, keys[i])) entries = entries.concat(f[keys[i]]); });
    }
    var seen = new Set(), scored = [];
    entries.forEach(function (e, n) {
      var term = e[0];
      if (seen.has(term) || term === word) return;
      seen.add(term);
      var d = osaDistance(word, term, cap);
      if (d <= cap) scored.push([d, -e[1], n, term]);
    });
    scored.sort(function (x, y) { return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; });
    return scored;
  }
  // Up to MAX_SUGGESTIONS close spellings of word from the site's own words (near).
  async function suggestions(index, word) {
    return (await near(index, word)).slice(0, C.MAX_SUGGESTIONS).map(function (x) { return x[3]; });
  }
  // The site's word that word (a word no page holds) is confidently a misspelling of, or null.
  async function correction(index, word) {
    if (S.cpLen(word) < C.MIN_CORRECTION || !fmt.correctable(word)) return null;
    var found = await near(index, word);
    if (!found.length) return null;
    var d = found[0][0], negDf = found[0][1];
    if (d > (S.cpLen(word) < C.LONG_WORD ? 1 : 2)) return null;
    if (found.length > 1 && found[1][0] === d && -negDf < C.CONFIDENCE * -found[1][1]) return null;
    return found[0][3];
  }
  // query with each word that is a key of fixes (a Map: query term -> correction) written as its
  // correction: every letter/number run whose term it is, replaced; the rest as typed.
  function correctedQuery(normaliser, text, fixes) {
    var out = '', at = 0;
    normaliser.wordRuns(text).forEach(function (r) {
      var found = normaliser.terms(r[2]);
      if (found.length === 1 && fixes.has(found[0])) {
        out += text.slice(at, r[1]) + fixes.get(found[0]);
        at = r[1] + r[2].length;
      }
    });
    return out + text.slice(at);
  }

  return { dictionary: dictionary, filedKeys: filedKeys, osaDistance: osaDistance, near: near, suggestions: suggestions, correction: correction,
    correctedQuery: correctedQuery };
});
