/* Mirrors okf_sphinx/engine/link_labels.py: smart mode weighs the words of a link to another
 * page less on the page that holds them (the counts are in the term's stem group). */
define('engine/link_labels', function (use) {
  'use strict';
  var C = use('core/constants'), fmt = use('core/index_format'), V = use('engine/validators'), Posting = use('engine/index').Posting;
  var own = Object.prototype.hasOwnProperty;

  // posting (term's) as smart mode weighs it: each section's frequency less 1 - LABEL_WEIGHT per
  // occurrence that is a link's label (the same object when none is)
  async function labelledPosting(index, term, posting) {
    var name = index.shardOf(term), shard = await index.shard(name), key = fmt.postingKey(term, index.stem());
    var group = own.call(shard.groups, key) ? shard.groups[key] : null;
    if (group === null || group.length < 4 || !own.call(group[3], term)) return posting;
    return index.memo('labelled:' + term, function () {
      var counts = checkLabels(name, group[3][term], posting), cut = 1.0 - C.LABEL_WEIGHT, freqs = [];
      for (var k = 0; k < posting.sids.length; k++) {
        var c = counts.get(posting.sids[k]);
        freqs.push(c === undefined ? posting.freqs[k] : posting.freqs[k] - cut * c);
      }
      return new Posting(posting.idf, posting.df, posting.sids, freqs, posting.lengths);
    });
  }
  // A term's label counts (an integer list of pairs: sid difference, count): sid -> count, every
  // sid one of the term's sections, sids increasing, each count from 1 to the section's frequency.
  function checkLabels(name, text, posting) {
    var flat = fmt.decodeInts(text), out = new Map(), sid = -1;
    if (!flat || flat.length % 2) throw V.corrupt(name, "a stem group's link-label counts are malformed");
    for (var i = 0; i < flat.length; i += 2) {
      sid = i === 0 ? flat[0] : sid + flat[i];
      var at = (i === 0 || flat[i]) ? posting.positions.get(sid) : undefined;
      if (at === undefined || !(flat[i + 1] >= 1 && flat[i + 1] <= posting.freqs[at])) {
        throw V.corrupt(name, "a stem group's link-label counts are out of order or out of range");
      }
      out.set(sid, flat[i + 1]);
    }
    return out;
  }

  return { labelledPosting: labelledPosting, checkLabels: checkLabels };
});
