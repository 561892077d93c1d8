/* Mirrors okf_sphinx/engine/headings.py: the sections whose heading is, or starts with, the
 * query (smart mode's heading tiers, h/<shard>). */
define('engine/headings', function (use) {
  'use strict';
  var C = use('core/constants'), fmt = use('core/index_format'), V = use('engine/validators');
  var own = Object.prototype.hasOwnProperty;

  function same(a, b, n) {
    for (var i = 0; i < n; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  // sid -> tier of the searchable sections whose heading is, or starts with, the query's terms
  // words; prefix: the last word may be the start of the heading's next term (only when it has
  // at least DICT_KEY_CODE_POINTS code points or is not the first word)
  async function headingTiers(index, words, prefix) {
    var shards = V.checkSmart(index.manifest.smart).heading_shards;
    if (!shards || !words.length) return new Map();
    var n = words.length;
    var complete = prefix && (n > 1 || Array.from(words[0]).length >= C.DICT_KEY_CODE_POINTS);
    var key = fmt.dictKey(words[0]);
    var shard = await index.load(fmt.headingShardName(key, shards), V.checkHeadings);
    var out = new Map();
    (own.call(shard, key) ? shard[key] : []).forEach(function (e) {
      var sid = e[1];
      if (sid >= index.sectionCount) throw V.corrupt('manifest', 'a heading shard refers to a section past the searchable ones');
      var head = e[0].split(' ');
      if (head.length === n && same(head, words, n)) out.set(sid, C.HEADING_IS);
      else if (head.length > n && same(head, words, n)) out.set(sid, C.HEADING_STARTS);
      else if (complete && head.length >= n && same(head, words, n - 1) && head[n - 1].startsWith(words[n - 1])) out.set(sid, C.HEADING_STARTS);
    });
    return out;
  }

  return { headingTiers: headingTiers };
});
