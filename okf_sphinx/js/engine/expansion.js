/* Mirrors okf_sphinx/engine/expansion.py: link expansion — the sections a smart answer's hits
 * link to (link shards l/<shard>, the manifest's smart.link_firsts). */
define('engine/expansion', function (use) {
  'use strict';
  var C = use('core/constants'), S = use('core/strings'), V = use('engine/validators'), query = use('engine/query');
  var own = Object.prototype.hasOwnProperty;

  // [[to sid, via], …] of a searchable section, in document order
  async function links(index, sid) {
    var firsts = V.checkLinkFirsts(V.checkSmart(index.manifest.smart).link_firsts);
    var k = S.bisectRight(firsts, sid) - 1;
    if (k < 0) return [];
    var shard = await index.load('l/' + k.toString(16), V.checkLinks);
    return own.call(shard, String(sid)) ? shard[String(sid)] : [];
  }
  // The sections the answer's hits (sources, in answer order) link to, each hit's links in
  // document order: none already a hit, each once, those keep(sid) allows (a boolean or a
  // Promise of one); at most MAX_EXPANDED, each with via and the hit it came from.
  async function expanded(index, sources, keep) {
    var seen = new Set(sources), picked = [];
    for (var i = 0; i < sources.length; i++) {
      if (picked.length >= C.MAX_EXPANDED) break;
      var ls = await links(index, sources[i]);
      for (var j = 0; j < ls.length; j++) {
        if (picked.length >= C.MAX_EXPANDED) break;
        var to = ls[j][0], via = ls[j][1];
        if (seen.has(to)) continue;
        if (to >= index.sectionCount) throw V.corrupt('manifest', 'a link shard refers to a section past the searchable ones');
        seen.add(to);
        if (await keep(to)) picked.push([to, via, sources[i]]);
      }
    }
    return Promise.all(picked.map(function (p) { return linked(index, p[0], p[1], p[2]); }));
  }
  // One entry of an answer's expanded: section to, linked via from hit source.
  async function linked(index, to, via, source) {
    var h = await query.hit(index, to, 0.0, [], false), s = await index.section(to), from = await index.section(source);
    return {
      concept_id: h.concept_id, title: s.title, path: h.path, heading: h.heading, url: s.url, locator: h.locator,
      line_start: h.line_start, line_end: h.line_end, content_sha256: h.content_sha256, snippet: h.snippet,
      via: via, from: from.locator
    };
  }

  return { links: links, expanded: expanded, linked: linked };
});
