/* Mirrors okf_sphinx/engine/spelling.py: the site's own words (d/<shard>) — the dictionary, and
 * "did you mean" for a word it lacks. */
define('engine/spelling', function (use) {
  'use strict';
  var C = use('core/constants'), S = use('core/strings'), fmt = use('core/index_format'), V = use('engine/validators');
  var own = Object.prototype.hasOwnProperty;

  // [term, df] of the site's terms that start with key, most frequent first
  async function dictionary(index, key) {
    var shard = await index.load(fmt.dictShardName(key, V.checkSmart(index.manifest.smart).dict_shards), V.checkDict);
    return own.call(shard, key) ? shard[key] : [];
  }
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
  // Up to MAX_SUGGESTIONS close spellings of word: the closest first, then the dictionary's order.
  async function suggestions(index, word) {
    var cap = S.cpLen(word) <= 4 ? 1 : 2, scored = [];
    (await dictionary(index, fmt.dictKey(word))).forEach(function (e, n) {
      var d = osaDistance(word, e[0], cap);
      if (d <= cap) scored.push([d, n, e[0]]);
    });
    scored.sort(function (x, y) { return x[0] - y[0] || x[1] - y[1]; });
    return scored.slice(0, C.MAX_SUGGESTIONS).map(function (x) { return x[2]; });
  }

  return { dictionary: dictionary, osaDistance: osaDistance, suggestions: suggestions };
});
