/* Mirrors okf_sphinx/engine/query.py: keyword search, the contract (docs/contract.md, "Queries" to "Results"):
 * AND over the query's terms, BM25 with the build's idf floats and the manifest's k1 and b,
 * ordered by score then sid. */
define('engine/query', function (use) {
  'use strict';
  var C = use('core/constants'), S = use('core/strings'), errors = use('core/errors'), fmt = use('core/index_format');
  var terms = use('core/terms');
  var OkfError = errors.OkfError;

  // What both modes do first, in this order: check the query, split it into terms with the
  // index's tables (none for an ASCII query), check the limit. [terms, limit]
  async function prepare(index, query, limit) {
    terms.checkQuery(query);
    await index.open();
    var normaliser = await index.normaliserFor(query);
    return [normaliser.queryTerms(query), terms.validateLimit(limit)];
  }

  // [total, best]: how many sections match every term, and the best limit of them as
  // [score, sid], by score descending then sid ascending.
  async function rank(index, words, limit) {
    var postings = await Promise.all(words.map(function (t) { return index.posting(t); }));
    if (postings.some(function (p) { return p === null; })) return [0, []];
    var avglen = index.avglen, k = index.bm25;
    // [-score, sid] pairs: their order is the contract's order, and negation is exact
    if (postings.length === 1) {
      // 0.0 + part is the part itself: the same float as the general sum below
      var ranked = postings[0].ranked(avglen, k[0], k[1]);
      return [ranked.length, ranked.slice(0, limit).map(function (r) { return [-r[0], r[1]]; })];
    }
    var parts = postings.map(function (p) { return p.parts(avglen, k[0], k[1]); });
    var smallest = postings.reduce(function (a, p) { return p.df < a.df ? p : a; });
    var maps = postings.map(function (p) { return p.positions; });
    var scored = [];
    smallest.sids.forEach(function (sid) {
      if (!maps.every(function (m) { return m.has(sid); })) return;
      var score = 0.0;
      for (var i = 0; i < maps.length; i++) score += parts[i][maps[i].get(sid)];  // query order: the contract's fixed sum
      scored.push([-score, sid]);
    });
    scored.sort(function (x, y) { return x[0] !== y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] - y[1]; });
    return [scored.length, scored.slice(0, limit).map(function (r) { return [-r[0], r[1]]; })];
  }

  // The contract's hit for section sid: its place, score and the snippet for words; present
  // (JavaScript only) adds what a page shows (url, title, level, snippet_offset, text_length).
  async function hit(index, sid, score, words, present) {
    var s = await index.section(sid);
    if (!s.searchable) throw new OkfError('index_corrupt', 'posting refers to non-searchable section ' + sid + '; rebuild the site');
    // without unicode.js when the build's Unicode lets an ASCII query's snippet be proven
    var start = terms.ASCII.snippetStart(s.text, words, C.ASCII_SEPARATORS_UNICODE.test(index.manifest.unicode_version));
    if (start === null) start = (await index.normaliser()).snippetStart(s.text, words);
    var h = {
      concept_id: s.concept_id, path: s.path, heading: s.heading, locator: s.locator, line_start: s.line_start,
      line_end: s.line_end, content_sha256: s.content_sha256, snippet: S.cpSlice(s.text, start, start + C.SNIPPET_CODE_POINTS),
      score: score, matched_terms: words.slice()
    };
    if (present) {
      h.url = s.url; h.title = s.title; h.level = s.level; h.snippet_offset = start; h.text_length = S.cpLen(s.text);
      if (typeof s.kind === 'string') { h.kind = s.kind; h.signature = typeof s.signature === 'string' ? s.signature : ''; }
    }
    return h;
  }

  // result unless its canonical JSON is over MAX_RESPONSE_BYTES (resource_limit)
  function checkSize(result) {
    var size = S.utf8(fmt.canonicalJson(result, false)).length;
    if (size > C.MAX_RESPONSE_BYTES) {
      throw new OkfError('resource_limit', 'the answer is ' + size + ' bytes, over the 1 MiB limit: lower limit', { limit: C.MAX_RESPONSE_BYTES, actual: size });
    }
    return result;
  }

  // search_sections in keyword mode: the contract's result
  async function search(index, query, limit, present) {
    var q = await prepare(index, query, limit), words = q[0];
    limit = q[1];
    var r = await rank(index, words, limit), total = r[0];
    var hits = await Promise.all(r[1].map(function (b) { return hit(index, b[1], b[0], words, present); }));
    var result = { query: query, terms: words, snapshot_revision: index.snapshotRevision, total: total, truncated: total > limit, hits: hits };
    return present ? result : checkSize(result);  // the cap counts the contract's answer, not what a page adds
  }

  return { prepare: prepare, rank: rank, hit: hit, checkSize: checkSize, search: search };
});
