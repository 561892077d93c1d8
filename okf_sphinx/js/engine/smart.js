/* Mirrors okf_sphinx/engine/smart.py: smart mode, the readers' ranking (docs/smart.md). Every
 * float operation runs in the Python twin's fixed order, so scores are equal bit for bit. Files
 * are read in parallel where the Python twin reads them one after another (the browser pays a
 * round trip per read); the answer is the same. */
define('engine/smart', function (use) {
  'use strict';
  var C = use('core/constants'), S = use('core/strings'), errors = use('core/errors'), fmt = use('core/index_format');
  var segment = use('core/segment');
  var V = use('engine/validators'), query = use('engine/query'), phrasesOf = use('engine/phrases'), source = use('engine/source');
  var objectNames = use('engine/object_names'), headings = use('engine/headings'), linkLabels = use('engine/link_labels');
  var W = use('engine/words');
  var OkfError = errors.OkfError;
  var own = Object.prototype.hasOwnProperty;
  // JavaScript only: the evidence of this many words stays cached per build (Python bounds its
  // cache in bytes, okf_sphinx/engine/cache.py)
  var CACHE_WORDS = 256;

  // What every BM25 part of one answer reads: the page table and the index's statistics.
  function Scoring(lengths, firsts, avglen, pavglen, k1, b) {
    this.lengths = lengths;  // per page: its weighted length
    this.firsts = firsts;  // per page: its first sid
    this.avglen = avglen;
    this.pavglen = pavglen;
    this.k1 = k1;
    this.b = b;
  }
  function smartMeta(index) { return V.checkSmart(index.manifest.smart); }
  // The build's stemmer (null: the site's language has none, words match exactly).
  function stemmer(index) {
    smartMeta(index);
    return index.stem();
  }
  // The build's segmenter (core/segment.js) on a Chinese, Japanese or Korean site, else null;
  // one this engine does not know is index_version_unsupported.
  function segmenter(index) {
    var found = smartMeta(index).segmenter;
    if (found !== undefined && found !== C.SEGMENTER) {
      throw new OkfError('index_version_unsupported', 'this index splits CJK words with ' + errors.jsonText(found) +
        ', which this okf_sphinx does not know (it has ' + errors.jsonText(C.SEGMENTER) + '): rebuild the site or use the okf_sphinx that built it',
        { found: found, supported: [C.SEGMENTER] });
    }
    return found === undefined ? null : found;
  }
  // The stem group [section df, page df, [terms]] of stem, from the posting shard that also
  // holds those terms' posting lists.
  async function group(index, stem) {
    var shard = await index.shard(index.keyShard(stem));
    return own.call(shard.groups, stem) ? shard.groups[stem] : null;
  }
  // Up to MAX_COMPLETIONS dictionary terms (most frequent first) that complete word and are not
  // in have (a Set), from at most MAX_COMPLETION_GROUPS stem groups besides the word's own.
  function completions(entries, word, have, stem) {
    var ownKey = fmt.postingKey(word, stem), groups = [], out = [];
    for (var i = 0; i < entries.length; i++) {
      var t = entries[i];
      if (t.slice(0, word.length) !== word || have.has(t)) continue;
      var key = fmt.postingKey(t, stem);
      if (key !== ownKey && groups.indexOf(key) < 0) {
        if (groups.length === C.MAX_COMPLETION_GROUPS) continue;
        groups.push(key);
      }
      out.push(t);
      if (out.length === C.MAX_COMPLETIONS) break;
    }
    return out;
  }
  // [[[term, weight]…], section idf, page idf] of one query word; no terms: it occurs nowhere.
  async function variants(index, word, stem, complete) {
    var g = await group(index, fmt.postingKey(word, stem)), out = [], sidf = 0.0, pidf = 0.0;
    if (g !== null) {
      sidf = index.idf(g[0]); pidf = index.idf(g[1], true);
      var part = C.PART + word;  // the word as a unit of longer CJK terms (a part key)
      if (g[2].indexOf(word) >= 0) out.push([word, C.EXACT]);
      if (g[2].indexOf(part) >= 0) out.push([part, C.EXACT]);
      g[2].forEach(function (t) { if (t !== word && t !== part) out.push([t, C.STEM]); });
    }
    if (complete && S.cpLen(word) >= C.MIN_PREFIX) {
      var have = new Set(out.map(function (x) { return x[0]; }));
      var entries = await index.dictionary(fmt.dictKey(word));
      var extra = completions(entries.map(function (e) { return e[0]; }), word, have, stem);
      if (extra.length && g === null) {
        // the word is no whole word of the site: weigh it as its most frequent completion's group
        var first = await group(index, fmt.postingKey(extra[0], stem));
        if (first === null) throw new OkfError('index_corrupt', 'dictionary term ' + errors.jsonText(extra[0]) + ' has no stem group; rebuild the site');
        sidf = index.idf(first[0]); pidf = index.idf(first[1], true);
      }
      extra.forEach(function (t) { out.push([t, C.PREFIX]); });
    }
    return [out, sidf, pidf];
  }
  // The posting list of a term of a stem group (the build wrote one for each), as smart mode
  // weighs it: occurrences in links' labels count less (engine/link_labels.js).
  async function formPosting(index, term) {
    var p = await index.posting(term);
    if (p === null) throw new OkfError('index_corrupt', 'stem group term ' + errors.jsonText(term) + ' has no postings; rebuild the site');
    return linkLabels.labelledPosting(index, term, p);
  }
  // The query's distinct identifiers as written, at most MAX_QUERY_IDENTIFIERS.
  function queryIdentifiers(text) {
    var out = [];
    fmt.identifiers(text).forEach(function (i) { if (out.indexOf(i) < 0 && out.length < C.MAX_QUERY_IDENTIFIERS) out.push(i); });
    return out;
  }
  // The page number of section sid (firsts: each page's first sid).
  function pageOf(firsts, sid) { return S.bisectRight(firsts, sid) - 1; }

  // One word's (or identifier's) evidence, cached per build when unfiltered: see computeEvidence.
  function evidence(index, key, postings, sidf, pidf, scoring, allowed) {
    if (allowed !== null) return computeEvidence(postings, sidf, pidf, scoring, allowed);
    var cache = index.memo('smart-evidence', function () { return new Map(); });
    if (cache.has(key)) return cache.get(key);
    var e = computeEvidence(postings, sidf, pidf, scoring, null);
    if (cache.size >= CACHE_WORDS) cache.delete(cache.keys().next().value);
    cache.set(key, e);
    return e;
  }
  // Weighted frequency (acc) and BM25 part (sec) per section, sections per page (byPage), the
  // page-level BM25 part (pagePart) and best section part (pageBest) per page.
  function computeEvidence(postings, sidf, pidf, scoring, allowed) {
    var acc = new Map(), length = new Map(), k1 = scoring.k1, b = scoring.b;
    postings.forEach(function (x) {
      var p = x[0], weight = x[1];
      for (var k = 0; k < p.sids.length; k++) {
        var sid = p.sids[k];
        if (allowed !== null && !allowed.has(sid)) continue;
        var prev = acc.get(sid);
        acc.set(sid, (prev === undefined ? 0.0 : prev) + weight * p.freqs[k]);
        length.set(sid, p.lengths[k]);
      }
    });
    var sec = new Map(), byPage = new Map(), ptf = new Map(), pagePart = new Map(), pageBest = new Map();
    acc.forEach(function (f, sid) { sec.set(sid, fmt.bm25Part(sidf, f, length.get(sid), scoring.avglen, k1, b)); });
    Array.from(acc.keys()).sort(byNumber).forEach(function (sid) {
      var page = pageOf(scoring.firsts, sid), list = byPage.get(page);
      if (!list) byPage.set(page, list = []);
      list.push(sid);
      ptf.set(page, (ptf.has(page) ? ptf.get(page) : 0.0) + acc.get(sid));
    });
    ptf.forEach(function (tf, page) { pagePart.set(page, fmt.bm25Part(pidf, tf, scoring.lengths[page], scoring.pavglen, k1, b)); });
    byPage.forEach(function (sids, page) {
      var best = sec.get(sids[0]);
      for (var i = 1; i < sids.length; i++) if (sec.get(sids[i]) > best) best = sec.get(sids[i]);
      pageBest.set(page, best);
    });
    return { acc: acc, sec: sec, byPage: byPage, pagePart: pagePart, pageBest: pageBest };
  }
  function byNumber(x, y) { return x - y; }

  // [score, sid] of the page's sections that hold a word or are a named object: the words'
  // BM25 parts in query order, then the identifiers', then for each quoted phrase the section
  // holds its words' parts once more.
  function sectionScores(ev, iv, pv, page, namedSids) {
    var set = new Set(namedSids || []);
    ev.forEach(function (e) { (e.byPage.get(page) || []).forEach(function (sid) { set.add(sid); }); });
    return Array.from(set).sort(byNumber).map(function (sid) {
      var score = 0.0;
      ev.forEach(function (e) { var v = e.sec.get(sid); if (v !== undefined) score += v; });
      iv.forEach(function (e) { var v = e.sec.get(sid); if (v !== undefined) score += v; });
      pv.forEach(function (x) { if (x[0].has(sid)) x[1].forEach(function (e) { score += e.sec.get(sid); }); });
      return [score, sid];
    });
  }

  // The pages an answer ranks, and what each holds.
  function Candidates(pages, count, needed, full, phrasePages, tier, namedByPage, factor, heading) {
    this.pages = pages;  // in the order they were found (named pages last)
    this.count = count;  // per page: how many of the query's words and phrases it holds
    this.needed = needed;  // words + phrases: what a full match holds
    this.full = full;  // does some page hold them all
    this.phrasePages = phrasePages;  // per phrase: the pages holding it
    this.tier = tier;  // per page holding a named object: its best tier
    this.namedByPage = namedByPage;  // per page: its named sections
    this.factor = factor;  // per page: its coverage to the power (engine/words.js), its score's factor
    this.heading = heading;  // per page with a heading that is (or starts with) the query: its best heading tier
  }
  // Pages: how many words (and phrases) each holds and its coverage (weights: each word's, then
  // each phrase's idf; engine/words.js); when some page holds all, those and the pages
  // Coverage.shown keeps, else every page holding one; and every page holding an object the
  // query names; heads: the heading tiers by sid.
  function candidates(ev, pv, names, heads, firsts, pageOk, weights) {
    var tier = new Map(), namedByPage = new Map(), count = new Map(), heading = new Map();
    Array.from(names.keys()).sort(byNumber).forEach(function (sid) {
      var page = pageOf(firsts, sid), t = names.get(sid);
      tier.set(page, Math.min(tier.has(page) ? tier.get(page) : C.UNNAMED, t));
      if (!namedByPage.has(page)) namedByPage.set(page, []);
      namedByPage.get(page).push(sid);
    });
    Array.from(heads.keys()).sort(byNumber).forEach(function (sid) {
      var page = pageOf(firsts, sid);
      heading.set(page, Math.min(heading.has(page) ? heading.get(page) : C.NO_HEADING, heads.get(sid)));
    });
    ev.forEach(function (e) { e.pagePart.forEach(function (v, page) { count.set(page, (count.get(page) || 0) + 1); }); });
    var phrasePages = pv.map(function (x) {
      var pages = new Set();
      x[0].forEach(function (sid) { pages.add(pageOf(firsts, sid)); });
      return pages;
    });
    phrasePages.forEach(function (pages) { pages.forEach(function (page) { count.set(page, count.get(page) + 1); }); });
    var needed = ev.length + pv.length;
    var cover = new W.Coverage(weights, ev.map(function (e) { return e.pagePart; }).concat(phrasePages));
    var pages = Array.from(count.keys()).filter(function (page) { return pageOk === null || pageOk(page); });
    var full = pages.some(function (page) { return count.get(page) === needed; });
    var coverage = new Map();
    pages.forEach(function (page) { coverage.set(page, cover.of(page)); });
    if (full) pages = pages.filter(function (page) { return count.get(page) === needed || cover.shown(page, coverage.get(page)); });
    var inPages = new Set(pages);
    Array.from(tier.keys()).sort(byNumber).forEach(function (page) { if (!inPages.has(page)) { pages.push(page); inPages.add(page); } });
    tier.forEach(function (t, page) {
      if (!count.has(page)) count.set(page, 0);
      if (!coverage.has(page)) coverage.set(page, cover.of(page));
    });
    var factor = new Map();
    pages.forEach(function (page) { factor.set(page, W.power(coverage.get(page))); });
    return new Candidates(pages, count, needed, full, phrasePages, tier, namedByPage, factor, heading);
  }
  // Python's tuple order of [tier, heading tier, -score, page]
  function byRank(x, y) {
    for (var i = 0; i < 4; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
  }
  // [ranked, scored]: the best limit candidate pages as [tier, heading tier, -score, page], best first,
  // and the section scores computed on the way (by page). Every candidate's page part, and a
  // bound on its score from each word's best section there: IEEE rounding is monotonic, so a
  // sum of maxima (same order) bounds the best section's sum, and a product with the same
  // non-negative factors bounds the product. Pages are scored exactly in bound order until no
  // bound can reach the limit-th score.
  function rankPages(ev, iv, pv, found, priors, limit) {
    var single = ev.length === 1 && !iv.length && !pv.length && !found.tier.size ? ev[0] : null;
    var bounds = found.pages.map(function (page) {
      var part = 0.0, top = 0.0;
      ev.forEach(function (e) { var v = e.pagePart.get(page); if (v !== undefined) { part += v; top += e.pageBest.get(page); } });
      iv.forEach(function (e) { var v = e.pagePart.get(page); if (v !== undefined) { part += v; top += e.pageBest.get(page); } });
      pv.forEach(function (x, k) { if (found.phrasePages[k].has(page)) x[1].forEach(function (e) { top += e.pageBest.get(page); }); });
      return [found.tier.has(page) ? found.tier.get(page) : C.UNNAMED, found.heading.has(page) ? found.heading.get(page) : C.NO_HEADING,
        -((part + top) * priors[page] * found.factor.get(page)), page, part];
    });
    bounds.sort(byRank);
    var ranked = [], scored = new Map();
    for (var i = 0; i < bounds.length; i++) {
      var bd = bounds[i], page = bd[3], best;
      var last = ranked[limit - 1];
      if (ranked.length >= limit && byRank([bd[0], bd[1], bd[2], 0], [last[0], last[1], last[2], 0]) > 0) {
        break;  // neither this page nor any after it can reach the shown pages
      }
      if (single !== null) best = single.pageBest.get(page);
      else {
        var secs = sectionScores(ev, iv, pv, page, found.namedByPage.get(page));
        scored.set(page, secs);
        best = secs[0][0];
        for (var j = 1; j < secs.length; j++) if (secs[j][0] > best) best = secs[j][0];
      }
      ranked.push([bd[0], bd[1], -((bd[4] + best) * priors[page] * found.factor.get(page)), page]);
      if (ranked.length >= limit) {
        ranked.sort(byRank);
        ranked.length = limit;
      }
    }
    ranked.sort(byRank);
    return [ranked, scored];
  }
  // Section sid's tier among its page's hits, lower first: [its object-name tier (names), its heading tier (heads)].
  function sectionTier(sid, names, heads) {
    return [names.has(sid) ? names.get(sid) : C.UNNAMED, heads.has(sid) ? heads.get(sid) : C.NO_HEADING];
  }
  // A page's hits [score, sid]: its named sections first (by tier), then its sections by heading
  // tier (heads), then those holding the query as a sentence (said), then by score, then sid;
  // the first always, further ones up to HITS_PER_PAGE that score at least SUB_HIT_FLOOR × the first's.
  function pageHits(secs, names, heads, said) {
    var saidOf = function (sid) { return said && said.has(sid) ? 0 : 1; };
    var ranked = secs.map(function (x) {
      var t = sectionTier(x[1], names, heads);
      return [t[0], t[1], saidOf(x[1]), -x[0], x[1]];
    }).sort(function (x, y) {
      for (var i = 0; i < 5; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
      return 0;
    });
    var floor = C.SUB_HIT_FLOOR * -ranked[0][3];
    return ranked.filter(function (r, j) { return j === 0 || -r[3] >= floor; }).slice(0, C.HITS_PER_PAGE)
      .map(function (r) { return [-r[3], r[4]]; });
  }
  // The sections of one page (secs) that hold the query as a sentence, as far as pageHits can
  // tell them apart: of the SENTENCE_SECTIONS best-scoring ones holding every counted word, those
  // whose text holds its terms in order. Only the checks that can change the page's hits are made
  // (each reads a section's text): the first hit is the best-scoring section of the first tier
  // (names, then headings) that holds the sentence, else the tier's best; the others are drawn
  // from the sections scoring at least SUB_HIT_FLOOR × the first's, so one below is never checked.
  async function sentenceHits(index, sentence, ev, secs, prefix, names, heads) {
    var full = secs.filter(function (x) { return ev.every(function (e) { return e.acc.has(x[1]); }); })
      .map(function (x) { return [-x[0], x[1]]; }).sort(function (x, y) {
        return x[0] !== y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] - y[1];
      }).slice(0, C.SENTENCE_SECTIONS);
    if (!full.length) return new Set();
    var tier = function (sid) { return sectionTier(sid, names, heads); };
    var same = function (a, b) { return a[0] === b[0] && a[1] === b[1]; };
    var top = secs.map(function (x) { return tier(x[1]); }).reduce(function (a, b) { return b[0] < a[0] || (b[0] === a[0] && b[1] < a[1]) ? b : a; });
    var said = new Set(), checked = new Set(), first = null;
    for (var i = 0; i < full.length; i++) {
      var sid = full[i][1];
      if (!same(tier(sid), top)) continue;
      checked.add(sid);
      if (await phrasesOf.sectionHolds(index, sid, sentence, prefix)) {
        said.add(sid);
        first = -full[i][0];
        break;
      }
    }
    if (first === null) {
      first = -Infinity;
      secs.forEach(function (x) { if (same(tier(x[1]), top) && x[0] > first) first = x[0]; });
    }
    var floor = C.SUB_HIT_FLOOR * first;
    var rest = full.filter(function (x) { return !checked.has(x[1]) && -x[0] >= floor; }).map(function (x) { return x[1]; });
    (await phrasesOf.sectionsHolding(index, rest, sentence, prefix)).forEach(function (sid) { said.add(sid); });
    return said;
  }
  // One page of the answer, with its hits best: each hit's snippet is cut for the word forms
  // the section holds, its matched_terms are the query words it holds (said: the query text of
  // those words, core/segment.js spans).
  async function page(index, score, missing, partial, found, ev, best, said, present) {
    var hits = await Promise.all(best.map(async function (b) {
      var sid = b[1], forms = [], at = [];
      ev.forEach(function (e, i) { if (e.acc.has(sid)) at.push(i); });
      for (var k = 0; k < at.length; k++) {
        var fs = found[at[k]][0];
        for (var j = 0; j < fs.length; j++) if (await holds(index, fs[j][0], sid)) forms.push(fs[j][0]);
      }
      var h = await query.hit(index, sid, b[0], forms, present);
      h.matched_terms = said(at);
      return h;
    }));
    var top = await index.section(best[0][1]);
    return {
      concept_id: top.concept_id, title: top.title, path: top.page_path, url: top.url.split('#')[0],
      score: score, partial: partial, missing_terms: missing, hits: hits
    };
  }
  async function holds(index, term, sid) {
    var p = await index.posting(term);
    return p !== null && p.positions.has(sid);
  }
  function kindOf(section) { return own.call(section, 'kind') ? section.kind : 'section'; }
  // engine/filters and engine/expansion, once their part of the runtime is read (engine/source.js loadPart)
  function optionsPart() {
    return source.loadPart('okf-options.js').then(function () { return [use('engine/filters'), use('engine/expansion')]; });
  }
  // engine/spelling, once its part of the runtime is read: only for a word no page holds
  function spellingPart() {
    return source.loadPart('okf-spelling.js').then(function () { return use('engine/spelling'); });
  }

  // search_sections in smart mode: the page-grouped answer of docs/smart.md.
  // hitSidsOut (the blend's, engine/semantic.js) gets the sids of the answer's hits in order,
  // stateOut whether some page holds every word (full), the query's terms as corrected (terms)
  // and those of them that count (counted, engine/words.js).
  async function search(index, text, limit, options, present, hitSidsOut, stateOut) {
    var prefix = own.call(options, 'prefix') ? options.prefix : false, expand = own.call(options, 'expand') ? options.expand : false;
    var correct = own.call(options, 'correct') ? options.correct : true;
    var q = await query.prepare(index, text, limit), words = q[0];
    limit = q[1];
    [['prefix', prefix], ['expand', expand], ['correct', correct]].forEach(function (x) {
      if (typeof x[1] !== 'boolean') throw new OkfError('schema_validation', x[0] + ' must be true or false, got ' + errors.jsonText(x[1]), { field: x[0] });
    });
    // the filters and link expansion are a part of the runtime (okf-options.js) read only for a
    // request that uses them: without a filter, none applies
    var filtering = [options.under, options.meta, options.kind].some(function (v) { return v !== undefined && v !== null; });
    var extra = filtering || expand ? await optionsPart() : null, filters = extra && extra[0];
    var f = filtering ? filters.checkFilters(options.under, options.meta, options.kind) : [null, null, null];
    var units = f[0], wanted = f[1], kinds = f[2];
    var m = smartMeta(index);
    var got = await Promise.all([index.load('smart', V.checkPageTable(index.sectionCount)), wanted !== null ? index.load('meta', V.checkMeta) : {}]);
    var table = got[0], firsts = table.firsts, priors = table.priors, metas = got[1];
    var paths = units !== null ? await index.load('paths', V.checkPaths(firsts.length)) : [];
    var pageOk = filtering ? filters.pageFilter(paths, units, wanted, metas) : null;
    var stem = stemmer(index), k = index.bm25;
    var scoring = new Scoring(table.lengths, firsts, index.avglen, m.pavglen, k[0], k[1]);
    // the words smart mode matches: the query's terms, or on a CJK site their units
    // (core/segment.js); CJK units are neither completed, corrected nor spelled out
    var foundUnits = segmenter(index) === null ? words.map(function (w, i) { return [i, 0, w]; }) : segment.queryUnits(words);
    var smartWords = foundUnits.map(function (x) { return x[2]; }), paired = smartWords.map(segment.hasCjk);
    var last = smartWords.length - 1;
    // quoted phrases (their words all count), and which words count (engine/words.js): not the
    // stop words, unless being completed or quoted
    var normaliser = await index.normaliserFor(text);
    var quoted = phrasesOf.phrases(normaliser, text).filter(function (ph) { return ph.every(function (t) { return smartWords.indexOf(t) >= 0; }); });
    var inPhrase = new Set();
    quoted.forEach(function (ph) { ph.forEach(function (t) { inPhrase.add(smartWords.indexOf(t)); }); });
    var kept = new Set(inPhrase);
    if (prefix) kept.add(last);
    var stops = W.stopWords(m.language), counts = W.counting(smartWords, stops, kept);

    // per word: its forms with their weights, and their idfs; a word without forms occurs nowhere
    // and, when a site's word is confidently what it misspells, is that word (correct)
    var complete = function (i) { return prefix && i === last && !paired[i]; };
    var found = await Promise.all(smartWords.map(function (w, i) { return counts[i] ? variants(index, w, stem, complete(i)) : null; }));
    // the spelling part of the runtime (okf-spelling.js) is read only when a counted word occurs nowhere
    var spelling = found.some(function (fw, i) { return counts[i] && !fw[0].length && !paired[i]; }) ? await spellingPart() : null;
    var fixing = await Promise.all(smartWords.map(function (w, i) {
      var ask = counts[i] && !found[i][0].length && correct && !paired[i] && !inPhrase.has(i) && words[foundUnits[i][0]] === w;
      return ask ? spelling.correction(index, w) : null;
    }));
    var fixes = new Map();
    for (var i = 0; i < smartWords.length; i++) {
      var fix = fixing[i];
      if (fix === null) continue;
      fixes.set(i, fix);
      found[i] = await variants(index, fix, stem, complete(i));
      var others = false;
      for (var j = 0; j < counts.length; j++) if (counts[j] && j !== i) others = true;
      if (stops.has(fix) && !kept.has(i) && others) counts[i] = false;  // corrected into a stop word: it counts no more than one
    }
    var active = [];
    for (i = 0; i < smartWords.length; i++) if (counts[i]) active.push(i);
    var unknown = active.filter(function (i) { return !found[i][0].length && !paired[i]; }).map(function (i) { return smartWords[i]; });
    // the query as corrected: its terms, and the units smart mode matches (a corrected unit is a whole term)
    var saidWords = words.slice(), saidUnits = foundUnits.slice();
    fixes.forEach(function (f, i) { saidWords[foundUnits[i][0]] = f; saidUnits[i] = [foundUnits[i][0], 0, f]; });
    var actUnits = active.map(function (i) { return saidUnits[i]; }), actWords = actUnits.map(function (x) { return x[2]; });
    found = active.map(function (i) { return found[i]; });
    var said = function (chosen) { return segment.spans(saidWords, actUnits, chosen); };
    var idents = queryIdentifiers(text);
    got = await Promise.all([
      Promise.all(found.map(function (fw) { return Promise.all(fw[0].map(function (x) { return formPosting(index, x[0]); })); })),
      Promise.all(idents.map(function (i) { return index.posting(i, 'x', m.id_shards); })),
      objectNames.named(index, text, kinds),
      headings.headingTiers(index, words, prefix)
    ]);
    var postings = got[0], identified = [];
    idents.forEach(function (ident, n) { if (got[1][n] !== null) identified.push([ident, got[1][n]]); });
    var allowed = null;
    if (kinds !== null) {  // a section-level filter: page sums change, so nothing cached applies
      var union = new Set();
      postings.forEach(function (ps) { ps.forEach(function (p) { p.sids.forEach(function (sid) { union.add(sid); }); }); });
      var passing = Array.from(union).sort(byNumber).filter(function (sid) { return pageOk === null || pageOk(pageOf(firsts, sid)); });
      var secs = await Promise.all(passing.map(function (sid) { return index.section(sid); }));
      allowed = new Set(passing.filter(function (sid, n) { return kinds.indexOf(kindOf(secs[n])) >= 0; }));
    }
    var ev = found.map(function (fw, i) {
      return evidence(index, 'w' + JSON.stringify(fw[0]), fw[0].map(function (x, j) { return [postings[i][j], x[1]]; }), fw[1], fw[2], scoring, allowed);
    });
    var iv = identified.map(function (x) { return evidence(index, 'x' + x[0], [[x[1], C.EXACT]], x[1].idf, x[1].idf, scoring, allowed); });
    // quoted phrases: the sections holding each, and the words whose section parts it adds again
    var keep = function (sid) { return (allowed === null || allowed.has(sid)) && (pageOk === null || pageOk(pageOf(firsts, sid))); };
    var sets = await Promise.all(quoted.map(function (ph) { return phrasesOf.phraseSections(index, ph, keep); }));
    var pv = sets.map(function (set, n) { return [set, quoted[n].map(function (t) { return ev[actWords.indexOf(t)]; })]; });
    // the objects the whole query names (they rank first)
    var names = new Map();
    got[2].forEach(function (t, sid) { if (pageOk === null || pageOk(pageOf(firsts, sid))) names.set(sid, t); });

    // each word counts by its page idf, each phrase by its words' (engine/words.js)
    var weights = found.map(function (fw) { return fw[2]; });
    quoted.forEach(function (ph) {
      var total = 0.0;
      ph.forEach(function (t) { total += weights[actWords.indexOf(t)]; });
      weights.push(total);
    });
    var heads = new Map();
    got[3].forEach(function (t, sid) { if (allowed === null || allowed.has(sid)) heads.set(sid, t); });
    var pages = candidates(ev, pv, names, heads, firsts, pageOk, weights);
    var r = rankPages(ev, iv, pv, pages, priors, limit), ranked = r[0], scored = r[1];
    var suggesting = Promise.all(unknown.map(function (w) { return spelling.suggestions(index, w); }));  // read meanwhile
    // a query of several words and no quoted phrase may be a sentence pasted from the site
    var sentence = words.length >= C.SENTENCE_TERMS && !quoted.length && segmenter(index) === null && ev.length ? words : null;
    var shownPages = ranked.slice(0, limit).map(function (rk) {
      var p = rk[3];
      return [rk, scored.has(p) ? scored.get(p) : sectionScores(ev, iv, pv, p, pages.namedByPage.get(p))];
    });
    var saidBy = await Promise.all(shownPages.map(function (x) {
      return sentence ? sentenceHits(index, sentence, ev, x[1], prefix, names, heads) : new Set();
    }));
    var hitSids = [];
    var shown = await Promise.all(shownPages.map(function (x, n) {
      var rk = x[0], p = rk[3], secs = x[1];
      var best = pageHits(secs, names, heads, saidBy[n]);
      best.forEach(function (b) { hitSids.push(b[1]); });
      var missing = said(ev.map(function (e, i) { return i; }).filter(function (i) { return !ev[i].pagePart.has(p); }));
      quoted.forEach(function (ph, n) { if (!pages.phrasePages[n].has(p)) missing.push('"' + ph.join(' ') + '"'); });
      return page(index, -rk[2], missing, pages.count.get(p) < pages.needed, found, ev, best, said, present);
    }));
    var total = pages.pages.length;
    var result = { query: text, mode: 'smart', terms: words };
    if (fixes.size) {
      var byTerm = new Map(), order = Array.from(fixes.keys()).sort(byNumber);
      order.forEach(function (i) { byTerm.set(smartWords[i], fixes.get(i)); });
      result.corrected = {
        query: spelling.correctedQuery(normaliser, text, byTerm),
        words: order.map(function (i) { return { from: smartWords[i], to: fixes.get(i) }; })
      };
    }
    result.snapshot_revision = index.snapshotRevision;
    result.total = total;
    result.truncated = total > limit;
    result.pages = shown;
    if (hitSidsOut) hitSids.forEach(function (sid) { hitSidsOut.push(sid); });
    if (stateOut) {
      stateOut.full = pages.full;
      stateOut.terms = saidWords;
      var ws = new Set();
      actUnits.forEach(function (u) { ws.add(u[0]); });
      stateOut.counted = Array.from(ws).sort(byNumber).map(function (w) { return saidWords[w]; });
    }
    if (expand) {
      result.expanded = await extra[1].expanded(index, hitSids, function (sid) {
        if (pageOk !== null && !pageOk(pageOf(firsts, sid))) return false;
        return kinds === null || index.section(sid).then(function (s) { return kinds.indexOf(kindOf(s)) >= 0; });
      });
    }
    var sugg = await suggesting;
    result.suggestions = unknown.map(function (w, i) { return { term: w, candidates: sugg[i] }; });
    return present ? result : query.checkSize(result);  // the cap counts the contract's answer, not what a page adds
  }

  return {
    Scoring: Scoring, smartMeta: smartMeta, stemmer: stemmer, segmenter: segmenter, group: group, completions: completions, variants: variants,
    formPosting: formPosting, queryIdentifiers: queryIdentifiers, pageOf: pageOf, evidence: evidence,
    computeEvidence: computeEvidence, sectionScores: sectionScores, Candidates: Candidates, candidates: candidates,
    rankPages: rankPages, sectionTier: sectionTier, pageHits: pageHits, sentenceHits: sentenceHits, page: page, search: search
  };
});
