/* Mirrors okf_sphinx/engine/validators.py: the checks every index file passes before the engine
 * trusts it. check<Kind>(name, value, …) returns what the engine keeps, or throws index_corrupt
 * naming the file; a check that needs more than the file is made by a factory taking it. */
define('engine/validators', function (use) {
  'use strict';
  var C = use('core/constants'), errors = use('core/errors'), fmt = use('core/index_format'), terms = use('core/terms');
  var OkfError = errors.OkfError, isInt = fmt.isInt, decodeInts = fmt.decodeInts;
  var own = Object.prototype.hasOwnProperty;

  function corrupt(name, what) {
    return new OkfError('index_corrupt', 'index file ' + name + '.js is corrupt: ' + what + '; rebuild the site', { file: name + '.js' });
  }
  function isFinite(v) { return typeof v === 'number' && Number.isFinite(v); }
  function isHex64(v) { return typeof v === 'string' && /^[0-9a-f]{64}$/.test(v); }
  function isObject(v) { return !!v && typeof v === 'object' && !Array.isArray(v); }
  function isStr(v) { return typeof v === 'string'; }

  // -- the manifest and the Unicode tables --------------------------------------------------------
  // a build identity (format 5): BUILD_DIGITS lower-case hex digits
  var BUILD = new RegExp('^[0-9a-f]{' + C.BUILD_DIGITS + '}$');
  function isBuild(v) { return typeof v === 'string' && BUILD.test(v); }
  function checkManifest(name, m) {
    if (!isObject(m) || m.format !== C.FORMAT) {
      throw new OkfError('index_corrupt', 'manifest.js is not an okf_sphinx index manifest; rebuild the site', { file: 'manifest.js' });
    }
    if (m.format_version !== C.FORMAT_VERSION) {
      throw new OkfError('index_version_unsupported', 'index format_version ' + errors.jsonText(m.format_version) +
        ' is not supported by this okf_sphinx (it reads version ' + C.FORMAT_VERSION + '); rebuild the site or upgrade okf_sphinx',
        { found: m.format_version === undefined ? null : m.format_version, supported: [C.FORMAT_VERSION] });
    }
    if (!['sections', 'sections_all', 'concepts', 'files', 'shards'].every(function (k) { return isInt(m[k]) && m[k] >= 0; })
      || m.shards < 1 || m.sections_all < m.sections) throw corrupt(name, 'counts are missing or invalid');
    if (!isFinite(m.avglen) || !(m.avglen > 0)) throw corrupt(name, 'avglen is missing or invalid');
    if (!(isFinite(m.k1) && m.k1 >= 0 && isFinite(m.b) && m.b >= 0 && m.b <= 1)) throw corrupt(name, 'the BM25 parameters k1 and b are missing or invalid');
    if (!isHex64(m.snapshot_revision) || !isStr(m.unicode_version)) throw corrupt(name, 'snapshot_revision or unicode_version is invalid');
    if (!isHex64(m.index_revision)) throw corrupt(name, 'index_revision is missing or invalid');
    if (!isBuild(m.build)) throw corrupt(name, 'build is missing or invalid');
    var counts = decodeInts(m.section_files);
    if (!(counts && counts.every(function (x) { return x >= 1; }) && counts.reduce(function (a, x) { return a + x; }, 0) === m.sections_all)) {
      throw corrupt(name, 'section_files is missing or invalid');
    }
    if (!(isInt(m.pages_per_file) && m.pages_per_file >= 1)) throw corrupt(name, 'pages_per_file is missing or invalid');
    if (m.bundles !== undefined && bundleMap(m.bundles) === null) throw corrupt(name, 'bundles is invalid');
    if (fmt.readIdfSteps(m.idf_steps) === null) throw corrupt(name, 'idf_steps is missing or invalid');
    if (m.shard_depths !== undefined && !isShardDepths(m.shard_depths)) throw corrupt(name, 'shard_depths is invalid');
    return m;
  }
  // The manifest's shard_depths (format_version 8): {start: code points}, each start
  // POSTING_SHARD_CODE_POINTS code points long, each depth longer than that and at most MAX_SHARD_DEPTH.
  function isShardDepths(depths) {
    return isObject(depths) && Object.keys(depths).every(function (k) {
      var d = depths[k];
      return Array.from(k).length === C.POSTING_SHARD_CODE_POINTS && isInt(d) && d > C.POSTING_SHARD_CODE_POINTS && d <= C.MAX_SHARD_DEPTH;
    });
  }
  // The manifest's bundles (format_version 7: [[name, ...], ...], bundle k is the file b/<k>) as
  // a Map name -> 'b/<k>'; null when it is not a list of non-empty lists of distinct names
  // (never the manifest, a bundle or the Unicode tables).
  function bundleMap(bundles) {
    if (!Array.isArray(bundles)) return null;
    var out = new Map();
    for (var k = 0; k < bundles.length; k++) {
      var names = bundles[k];
      if (!Array.isArray(names) || !names.length) return null;
      for (var i = 0; i < names.length; i++) {
        var n = names[i];
        if (!isStr(n) || out.has(n) || n === 'manifest' || n === 'unicode' || n.slice(0, 2) === 'b/') return null;
        out.set(n, 'b/' + k);
      }
    }
    return out;
  }
  function checkUnicode(name, value) {
    var t = fmt.readUnicodeFile(value), ok = t !== null;
    ok = ok && ['word', 'letter_number', 'assigned'].every(function (k) {
      var f = t[k];
      return Array.isArray(f) && f.length % 2 === 0 && f.every(function (x, i) { return isInt(x) && x >= 0 && x <= 0x10ffff && (i === 0 || f[i - 1] <= x); });
    });
    if (!ok || !Object.keys(t.casefold).every(function (k) { return isStr(t.casefold[k]); })
      || !Object.keys(t.casefold).every(function (k) { return /^(0|[1-9a-f][0-9a-f]*)$/.test(k); })) throw corrupt(name, 'the Unicode tables are invalid');
    return new terms.Normaliser(t);
  }
  function checkStemmerBlock(m) {
    if (!(isObject(m) && typeof m.stemmer === 'boolean' && isStr(m.language) && isStr(m.stemmer_version))) {
      throw corrupt('manifest', 'the smart block is missing or invalid');
    }
    return m;
  }
  function checkSmart(m) {
    if (m === undefined || m === null) {
      throw new OkfError('index_version_unsupported', "this index has no smart-mode data (built by an older okf_sphinx): rebuild the site, or use mode='keyword'");
    }
    var ok = isObject(m) && ['dict_shards', 'id_shards'].every(function (k) { return isInt(m[k]) && m[k] >= 1; })
      && ['name_shards', 'edit_shards', 'heading_shards'].every(function (k) { return m[k] === undefined || m[k] === null || (isInt(m[k]) && m[k] >= 1); })
      && isInt(m.pages) && m.pages >= 0 && isStr(m.language) && typeof m.stemmer === 'boolean'
      && isStr(m.stemmer_version) && isFinite(m.pavglen) && m.pavglen > 0 && isStr(m.idf_steps)
      && (m.edit_chars === undefined || m.edit_chars === null || increasingCodePoints(m.edit_chars));
    if (!ok) throw corrupt('manifest', 'the smart block is missing or invalid');
    return m;
  }
  // Is text a string of distinct code points in increasing order (smart.edit_chars)?
  function increasingCodePoints(text) {
    if (!isStr(text)) return false;
    var cps = Array.from(text, function (c) { return c.codePointAt(0); });
    return cps.every(function (c, i) { return i === 0 || cps[i - 1] < c; });
  }
  function checkLinkFirsts(firsts) {
    if (firsts === undefined || firsts === null) {
      throw new OkfError('index_version_unsupported', 'this index has no link data (built by an older okf_sphinx): rebuild the site, or leave out expand');
    }
    if (!Array.isArray(firsts) || !firsts.every(function (f, i) { return isInt(f) && f >= 0 && (i === 0 || firsts[i - 1] < f); })) {
      throw corrupt('manifest', 'smart.link_firsts is invalid');
    }
    return firsts;
  }

  // -- posting lists -----------------------------------------------------------------------------
  function checkShard(name, shard) {
    var keys = isObject(shard) ? Object.keys(shard).sort() : null;
    if (!keys || keys.length !== 2 || keys[0] !== 'groups' || keys[1] !== 'terms' || !isObject(shard.groups)) {
      throw corrupt(name, 'a posting shard must be an object of groups and terms');
    }
    Object.keys(shard.groups).forEach(function (stem) {
      var g = shard.groups[stem];
      if (Array.isArray(g) && (g.length === 3 || g.length === 4) && Array.isArray(g[2]) && g[2].length === 0) g[2] = [stem];  // [] is [stem]
      if (!(Array.isArray(g) && (g.length === 3 || g.length === 4) && isInt(g[0]) && isInt(g[1]) && Array.isArray(g[2]) && g[2].every(isStr)
        && (g.length === 3 || (isObject(g[3]) && Object.keys(g[3]).every(function (t) { return g[2].indexOf(t) >= 0 && isStr(g[3][t]); }))))) {
        throw corrupt(name, 'a stem-group shard is malformed');
      }
    });
    checkEntries(name, shard.terms);
    return shard;
  }
  function checkEntries(name, shard) {
    if (!isObject(shard)) throw corrupt(name, 'a shard must be an object');
    Object.keys(shard).forEach(function (term) {  // every entry: both engines refuse the same files
      var e = shard[term];
      if (!(isStr(e) || (Array.isArray(e) && e.length === 2 && isInt(e[0]) && Array.isArray(e[1]) && e[1].length === 1 && isStr(e[1][0])))) {
        throw corrupt(name, 'the entry of term ' + errors.jsonText(term) + ' is malformed');
      }
    });
    return shard;
  }
  function checkFlat(name, flat) {
    if (!isStr(flat)) throw corrupt(name, 'a posting file must hold a string');
    return flat;
  }
  // A posting list's integers: df triples of sid gap, weighted frequency and length; [sids, freqs, lengths].
  function checkPostings(name, text, df, sections) {
    var flat = decodeInts(text), sids = [], freqs = [], lengths = [], sid = -1;
    if (!flat || flat.length % 3 || (df !== null && flat.length / 3 !== df)) throw corrupt(name, 'a posting list is malformed');
    for (var i = 0; i < flat.length; i += 3) {
      sid = i === 0 ? flat[0] : sid + flat[i];
      if ((i && flat[i] === 0) || sid >= sections || flat[i + 1] === 0) throw corrupt(name, 'a posting list is out of order or out of range');
      sids.push(sid); freqs.push(flat[i + 1]); lengths.push(flat[i + 2]);
    }
    return [sids, freqs, lengths];
  }

  // -- sections and pages ------------------------------------------------------------------------
  function checkSections(name, chunk, first, end) {
    if (!(isObject(chunk) && chunk.first === first && isInt(chunk.first) && Array.isArray(chunk.pages) && Array.isArray(chunk.files)
      && Array.isArray(chunk.sections) && chunk.sections.length === end - first)) throw corrupt(name, 'a section file is malformed');
    var pages = chunk.pages, files = chunk.files;
    if (!pages.every(function (p) { return Array.isArray(p) && p.length === 5 && isStr(p[0]) && isStr(p[1]) && typeof p[2] === 'boolean' && isStr(p[3]) && isStr(p[4]); })
      || !files.every(function (f) { return Array.isArray(f) && (f.length === 2 || (f.length === 3 && isStr(f[2]) && f[2] !== f[0])) && isStr(f[0]) && isHex64(f[1]); })) {
      throw corrupt(name, "a section file's page or file table is malformed");
    }
    chunk.sections.forEach(function (r) {
      if (!(Array.isArray(r) && (r.length === 8 || r.length === 9) && isInt(r[0]) && r[0] >= 0 && r[0] < pages.length
        && isInt(r[1]) && r[1] >= 0 && r[1] < files.length && isStr(r[2]) && isInt(r[3]) && isInt(r[4]) && isInt(r[5])
        && r[4] >= 1 && r[4] <= r[5] && isStr(r[6]) && isStr(r[7]) && (r.length === 8 || (isObject(r[8]) && objectFieldsOk(r[8]))))) {
        throw corrupt(name, 'a section record is malformed');
      }
    });
    return fmt.sectionRecords(chunk);
  }
  function objectFieldsOk(fields) {
    return Object.keys(fields).every(function (k) {
      var want = own.call(C.OBJECT_FIELDS, k) ? C.OBJECT_FIELDS[k] : undefined;
      return want === true ? fields[k] === true : want !== undefined && typeof fields[k] === want;
    });
  }
  function checkConcepts(name, c) {
    if (!Array.isArray(c) || !c.every(function (e) {
      return Array.isArray(e) && e.length === 5 && isStr(e[0]) && isStr(e[1]) && isInt(e[2]) && typeof e[3] === 'boolean'
        && Array.isArray(e[4]) && e[4].every(isStr);
    })) throw corrupt(name, 'the concept list is malformed');
    return c;
  }
  function checkPages(count) {
    return function (name, pages) {
      if (!Array.isArray(pages) || pages.length !== count) throw corrupt(name, 'an outline file does not hold the pages it should');
      pages.forEach(function (p) {
        if (!isObject(p) || !isStr(p.concept_id) || !Array.isArray(p.sections)) throw corrupt(name, 'a page outline is malformed');
        p.sections.forEach(function (s) {
          if (!(isObject(s) && isInt(s.sid) && isStr(s.heading) && isInt(s.level) && isInt(s.line_start) && isInt(s.line_end)
            && isStr(s.path) && (s.parent === undefined || s.parent === null || isInt(s.parent)))) throw corrupt(name, 'a page outline entry is malformed');
        });
      });
      return pages;
    };
  }

  // -- smart mode's files ------------------------------------------------------------------------
  function checkPageTable(sections) {
    return function (name, v) {
      var obj = isObject(v);
      var counts = obj ? decodeInts(v.counts) : null, lengths = obj ? decodeInts(v.lengths) : null, priors = obj ? v.priors : null;
      if (!counts || !lengths || !Array.isArray(priors) || counts.length !== lengths.length || counts.length !== priors.length
        || !counts.every(function (c) { return c > 0; }) || !priors.every(function (p) { return isFinite(p) && p > 0; })) {
        throw corrupt(name, 'the page table is malformed');
      }
      var at = 0, firsts = counts.map(function (c) { var first = at; at += c; return first; });
      if (at !== sections) throw corrupt(name, 'the page table does not cover the sections in order');
      return { firsts: firsts, lengths: lengths, priors: priors };
    };
  }
  function checkPaths(pages) {
    return function (name, v) {
      if (!Array.isArray(v) || v.length !== pages || !v.every(isStr)) throw corrupt(name, 'the page paths are malformed');
      return v;
    };
  }
  function checkMeta(name, v) {
    var ok = isObject(v) && Object.keys(v).every(function (p) {
      var m = v[p];
      return isObject(m) && Object.keys(m).every(function (k) { return isStr(m[k]) || (Array.isArray(m[k]) && m[k].every(isStr)); });
    });
    if (!ok) throw corrupt(name, 'the page metadata is malformed');
    return v;
  }
  function checkDict(name, v) {
    if (!isObject(v) || !Object.keys(v).every(function (k) { return (v[k] = fmt.decodeWordList(v[k])) !== null; })) {
      throw corrupt(name, 'a dictionary shard is malformed');
    }
    return v;
  }
  function checkNames(name, v) {
    if (!isObject(v) || !Object.keys(v).every(function (k) {
      return Array.isArray(v[k]) && v[k].every(function (x) { return Array.isArray(x) && x.length === 3 && isStr(x[0]) && isStr(x[1]) && isInt(x[2]) && x[2] >= 0; });
    })) throw corrupt(name, 'an object-name shard is malformed');
    return v;
  }
  function checkHeadings(name, v) {
    if (!isObject(v) || !Object.keys(v).every(function (k) {
      return Array.isArray(v[k]) && v[k].every(function (x) { return Array.isArray(x) && x.length === 2 && isStr(x[0]) && isInt(x[1]) && x[1] >= 0; });
    })) throw corrupt(name, 'a heading shard is malformed');
    return v;
  }
  function checkLinks(name, v) {
    if (!isObject(v) || !Object.keys(v).every(function (k) {
      return /^[0-9]+$/.test(k) && Array.isArray(v[k]) && v[k].every(function (x) { return Array.isArray(x) && x.length === 2 && isInt(x[0]) && x[0] >= 0 && C.LINK_VIAS.indexOf(x[1]) >= 0; });
    })) throw corrupt(name, 'a link shard is malformed');
    return v;
  }

  return {
    corrupt: corrupt, isObject: isObject, isStr: isStr, isFinite: isFinite, isHex64: isHex64, isBuild: isBuild, checkManifest: checkManifest, isShardDepths: isShardDepths, bundleMap: bundleMap, checkUnicode: checkUnicode,
    checkStemmerBlock: checkStemmerBlock, checkSmart: checkSmart, increasingCodePoints: increasingCodePoints, checkLinkFirsts: checkLinkFirsts, checkShard: checkShard,
    checkEntries: checkEntries, checkFlat: checkFlat, checkPostings: checkPostings, checkSections: checkSections,
    objectFieldsOk: objectFieldsOk, checkConcepts: checkConcepts, checkPages: checkPages, checkPageTable: checkPageTable,
    checkPaths: checkPaths, checkMeta: checkMeta, checkDict: checkDict, checkNames: checkNames, checkHeadings: checkHeadings, checkLinks: checkLinks
  };
});
