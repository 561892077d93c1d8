/* Mirrors okf_sphinx/engine/semantic.py: semantic mode, and smart mode's blend of words and
 * meaning (docs/smart.md, "Meaning"). Every score is the twin's integer arithmetic and fixed
 * order of IEEE operations; ties break as Python's tuple sorts break them. */
define('engine/semantic', function (use) {
  'use strict';
  var C = use('core/constants'), errors = use('core/errors'), sem = use('core/semantic'), terms = use('core/terms');
  var V = use('engine/validators'), files = use('engine/vector_files');
  var query = use('engine/query'), smart = use('engine/smart'), filters = use('engine/filters'), expansion = use('engine/expansion');
  var OkfError = errors.OkfError;
  var own = Object.prototype.hasOwnProperty;

  function semanticMeta(index) { return files.checkSemantic(index.manifest.semantic, C.SEMANTIC_SETTING); }
  function byScore(x, y) { return x[0] !== y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] - y[1]; }  // [-score, n] ascending

  // [the query's integer vector, the words the model knows]
  async function queryVector(index, words) {
    var m = semanticMeta(index), dims = m.dims, prefix = m.prefix, shards = m.token_shards, check = files.checkTokens(dims);
    var multi = words.length ? (await index.load('semantic', files.checkCentroids(m.clusters, dims))).multi : null;
    function lookup(piece) {
      return index.load(sem.tokenShard(piece, prefix, shards), check).then(function (t) { return t.get(piece); });
    }
    var total = new Array(dims).fill(0), known = [];
    for (var i = 0; i < words.length; i++) {
      var vectors = await sem.wordPieces(words[i], lookup, prefix, m.max_chars, multi);
      if (vectors === null) continue;
      known.push(words[i]);
      vectors.forEach(function (v) { sem.addInto(total, v); });
    }
    return [total, known];
  }
  // [score, sid] of the sections in the probe clusters (by default the index's) nearest to q
  // that pass keep, best first.
  async function ranked(index, q, keep, probe) {
    var m = semanticMeta(index), qq = sem.dot(q, q);
    if (qq === 0 || m.clusters === 0) return [];
    var cents = (await index.load('semantic', files.checkCentroids(m.clusters, m.dims))).centroids, near = [];
    cents.forEach(function (c, k) { if (c[1]) near.push([-sem.cosine(sem.dot(q, c[0]), qq, c[1]), k]); });
    near.sort(byScore);
    var check = files.checkCluster(m.dims, index.sectionCount);
    var clusters = await Promise.all(near.slice(0, probe === undefined ? m.probe : Math.min(probe, m.probe)).map(function (n) { return index.load('v/' + n[1].toString(16), check); }));
    var out = [];
    for (var i = 0; i < clusters.length; i++) {
      for (var j = 0; j < clusters[i].length; j++) {
        var e = clusters[i][j];
        if (keep === null || await keep(e[0])) out.push([-sem.cosine(sem.dot(q, e[1]), qq, e[2]), e[0]]);
      }
    }
    out.sort(byScore);
    return out.map(function (x) { return [-x[0], x[1]]; });
  }
  // The section filter of under, meta and kind (null: no filter); it may answer a promise.
  async function sectionFilter(index, under, meta, kind) {
    var f = filters.checkFilters(under, meta, kind), units = f[0], wanted = f[1], kinds = f[2];
    if (units === null && wanted === null && kinds === null) return null;
    var table = await index.load('smart', V.checkPageTable(index.sectionCount));
    var metas = wanted !== null ? await index.load('meta', V.checkMeta) : {};
    var paths = units !== null ? await index.load('paths', V.checkPaths(table.firsts.length)) : [];
    var pageOk = filters.pageFilter(paths, units, wanted, metas);
    return async function (sid) {
      if (pageOk !== null && !pageOk(smart.pageOf(table.firsts, sid))) return false;
      if (kinds === null) return true;
      var s = await index.section(sid);
      return kinds.indexOf(typeof s.kind === 'string' ? s.kind : 'section') >= 0;
    };
  }
  // Pages in the order of their best section: [page, [[score, sid] …]].
  async function byPage(index, sections) {
    var firsts = (await index.load('smart', V.checkPageTable(index.sectionCount))).firsts, order = [], groups = new Map();
    sections.forEach(function (x) {
      var page = smart.pageOf(firsts, x[1]);
      if (!groups.has(page)) { order.push(page); groups.set(page, []); }
      groups.get(page).push(x);
    });
    return order.map(function (page) { return [page, groups.get(page)]; });
  }
  // A page's hits by meaning: its best section, and the next ones (up to HITS_PER_PAGE) that
  // score at least SUB_HIT_FLOOR × the best.
  async function meaningHits(index, secs, words, present) {
    var floor = C.SUB_HIT_FLOOR * secs[0][0], chosen = [];
    for (var j = 0; j < Math.min(secs.length, C.HITS_PER_PAGE); j++) {
      if (j && secs[j][0] < floor) break;
      chosen.push(secs[j]);
    }
    return Promise.all(chosen.map(async function (x) {
      var h = await query.hit(index, x[1], x[0], words, present);
      h.matched_terms = [];
      h.matched = 'meaning';
      return h;
    }));
  }
  // The answer's record of the page whose best section is sid.
  async function pageRecordFor(index, sid, score, hits) {
    var top = await index.section(sid);
    return {
      concept_id: top.concept_id, title: top.title, path: top.page_path, url: top.url.split('#')[0],
      score: score, partial: false, missing_terms: [], hits: hits
    };
  }
  function expandOpt(options) { return own.call(options, 'expand') ? options.expand : false; }
  // mode 'semantic': pages ranked by their best section's meaning alone.
  async function search(index, text, limit, options, present) {
    var q = await query.prepare(index, text, limit), words = q[0], expand = expandOpt(options);
    limit = q[1];
    if (typeof expand !== 'boolean') throw new OkfError('schema_validation', 'expand must be true or false, got ' + errors.jsonText(expand), { field: 'expand' });
    var keep = await sectionFilter(index, options.under, options.meta, options.kind);
    var qv = (await queryVector(index, words))[0];
    var pages = await byPage(index, await ranked(index, qv, keep)), hitSids = [];
    var shown = await Promise.all(pages.slice(0, limit).map(async function (p) {
      var secs = p[1], hits = await meaningHits(index, secs, words, present);
      return [await pageRecordFor(index, secs[0][1], secs[0][0], hits), secs.slice(0, hits.length).map(function (x) { return x[1]; })];
    }));
    shown.forEach(function (s) { s[1].forEach(function (sid) { hitSids.push(sid); }); });
    var result = {
      query: text, mode: 'semantic', terms: words, snapshot_revision: index.snapshotRevision,
      total: pages.length, truncated: pages.length > limit, pages: shown.map(function (s) { return s[0]; })
    };
    if (expand) result.expanded = await expansion.expanded(index, hitSids, keep || function () { return true; });
    result.suggestions = [];
    return present ? result : query.checkSize(result);
  }
  // How much the meaning's ranking counts in the blend, from smart mode's stateOut.
  function meaningWeight(state) {
    if (!state.full) return C.MEANING_PARTIAL;
    if (state.counted.length < state.terms.length) return C.MEANING_QUESTION;
    return state.counted.length >= C.LONG_QUERY ? C.MEANING_LONG : C.MEANING;
  }
  // Whether meaning's ranking (byPage) is sure of its first page: that page's cosine at least
  // MEANING_MARGIN above the second page's (0 without a second).
  function meaningSure(pages) {
    if (pages.length === 0) return false;
    var second = pages.length > 1 ? pages[1][1][0][0] : 0.0;
    return pages[0][1][0][0] - second >= C.MEANING_MARGIN;
  }
  // Whether the words' first page is titled with every counted word, stemmed as smart mode stems.
  async function wordsNamePage(index, answer, counted) {
    if (answer.pages.length === 0 || counted.length === 0) return false;
    var stem = smart.stemmer(index) || function (t) { return t; }, text = answer.pages[0].title;
    var title = new Set((await index.normaliserFor(text)).terms(text).map(stem));
    return counted.every(function (w) { return title.has(stem(w)); });
  }
  // Smart mode on an index with vectors: the words' pages and the meaning's pages fused by
  // weighted reciprocal ranks (meaning's weight halved unless meaningSure), each ranking cut at limit; meaning not looked up when it weighs
  // nothing and the words fill the answer (engine/semantic.py's blend).
  async function blend(index, text, limit, options, present) {
    var wordsSids = [], state = {};
    var wordsAnswer = await smart.search(index, text, limit, options, present, wordsSids, state);
    limit = terms.validateLimit(limit);  // smart.search checked it
    var words = state.terms, keep = await sectionFilter(index, options.under, options.meta, options.kind);
    var weight = meaningWeight(state), meaningAll = [];
    if (weight > 0 && await wordsNamePage(index, wordsAnswer, state.counted)) weight = C.MEANING;
    if (weight > 0 || wordsAnswer.pages.length < limit) {
      var qv = (await queryVector(index, words))[0];
      meaningAll = await byPage(index, await ranked(index, qv, keep, C.BLEND_PROBE));
      if (!meaningSure(meaningAll)) weight = weight * C.MEANING_UNSURE;
    }
    var firsts = (await index.load('smart', V.checkPageTable(index.sectionCount))).firsts;
    var fused = new Map(), at = 0;  // page -> [score, words rank, page record or null, meaning sections, sids]
    wordsAnswer.pages.forEach(function (page, i) {
      var sids = wordsSids.slice(at, at + page.hits.length);
      fused.set(smart.pageOf(firsts, sids[0]), [C.WORDS / (C.FUSION_K + (i + 1)), i + 1, page, null, sids]);
      at += page.hits.length;
    });
    meaningAll.slice(0, limit).forEach(function (p, i) {
      var entry = fused.get(p[0]);
      if (entry === undefined) { entry = [0.0, wordsAnswer.pages.length + (i + 1), null, null, []]; fused.set(p[0], entry); }
      entry[0] = entry[0] + weight / (C.FUSION_K + (i + 1));
      entry[3] = p[1];
    });
    // ranks are distinct, so the order needs no third key
    var order = Array.from(fused.values()).sort(function (x, y) {
      if (x[0] !== y[0]) return x[0] > y[0] ? -1 : 1;
      return x[1] - y[1];
    }).slice(0, limit);
    var built = await Promise.all(order.map(async function (e) {
      var score = e[0], record = e[2], secs = e[3];
      if (record === null) {
        var hits = await meaningHits(index, secs, state.counted, present);
        return [await pageRecordFor(index, secs[0][1], score, hits), secs.slice(0, hits.length).map(function (x) { return x[1]; })];
      }
      var w = await wordsHits(index, record.hits, e[4], secs, state.counted, weight, present), copy = {};
      Object.keys(record).forEach(function (k) { copy[k] = record[k]; });
      copy.hits = w[0];
      copy.score = score;
      return [copy, w[1]];
    }));
    var hitSids = [];
    built.forEach(function (b) { b[1].forEach(function (sid) { hitSids.push(sid); }); });
    var total = Math.max(wordsAnswer.total, meaningAll.length);
    var result = { query: wordsAnswer.query, mode: wordsAnswer.mode, terms: wordsAnswer.terms };
    if (wordsAnswer.corrected !== undefined) result.corrected = wordsAnswer.corrected;
    result.snapshot_revision = wordsAnswer.snapshot_revision;
    result.total = total;
    result.truncated = total > limit || wordsAnswer.truncated;
    result.pages = built.map(function (b) { return b[0]; });
    if (expandOpt(options)) result.expanded = await expansion.expanded(index, hitSids, keep || function () { return true; });
    result.suggestions = wordsAnswer.suggestions;
    return present ? result : query.checkSize(result);
  }
  // A words page's hits and its best sections by meaning, fused as pages are; and their sids.
  async function wordsHits(index, hits, sids, secs, words, weight, present) {
    var byMeaning = new Map();
    (secs || []).slice(0, C.HITS_PER_PAGE).forEach(function (x, i) { byMeaning.set(x[1], [i + 1, x[0]]); });
    var entries = [];
    hits.forEach(function (h, i) {
      var sid = sids[i], f = C.WORDS / (C.FUSION_K + (i + 1)), copy = {};
      if (byMeaning.has(sid)) f = f + weight / (C.FUSION_K + byMeaning.get(sid)[0]);
      Object.keys(h).forEach(function (k) { copy[k] = h[k]; });
      copy.matched = byMeaning.has(sid) ? 'both' : 'words';
      entries.push([-f, i + 1, sid, copy]);
    });
    byMeaning.forEach(function (rs, sid) {
      if (sids.indexOf(sid) < 0 && (rs[0] === 1 || weight > 0)) entries.push([-(weight / (C.FUSION_K + rs[0])), hits.length + rs[0], sid, rs[1]]);
    });
    entries.sort(function (x, y) { return x[0] !== y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] - y[1]; });
    var kept = entries.slice(0, C.HITS_PER_PAGE);
    var out = await Promise.all(kept.map(async function (e) {
      if (typeof e[3] === 'object') return e[3];
      var h = await query.hit(index, e[2], e[3], words, present);  // a section only meaning found: made once it is shown
      h.matched_terms = [];
      h.matched = 'meaning';
      return h;
    }));
    return [out, kept.map(function (e) { return e[2]; })];
  }

  return {
    semanticMeta: semanticMeta, queryVector: queryVector, ranked: ranked, byPage: byPage, meaningHits: meaningHits,
    search: search, pageRecordFor: pageRecordFor, meaningWeight: meaningWeight, meaningSure: meaningSure, wordsNamePage: wordsNamePage, blend: blend
  };
});
