/* okf_sphinx browser runtime: exact BM25 section search over the sharded _okf/ index.
 * Plain script, no dependencies, no build step; index files are loaded with <script>
 * tags (okfLoad wrapper, docs/index-format.md) so it works over http(s) and file://.
 * Implements SEARCH_CONTRACT.md exactly like okf_sphinx/engine/query.py + terms.py.
 * In Node: require() it and use nodeLoader(dir) (the JSON is parsed, never evaluated).
 * All index text reaches the page through textContent / text nodes only. */
(function (root, factory) {
  var api = factory(root);
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.OkfSearch = api;
})(this, function (root) {
  'use strict';
  var MAX_Q = 512, MAX_TERMS = 32, MAX_TERM = 4096, SNIP = 512, LEAD = 80, MAX_BYTES = 1048576;
  var own = Object.prototype.hasOwnProperty;
  var FORMAT_VERSION = 4; // docs/index-format.md (format.FORMAT_VERSION)
  var doc = root && root.document;
  var thisScript = doc && doc.currentScript;

  // -- errors: the contract's envelope ------------------------------------------------
  function OkfError(code, message, details) {
    var e = { code: code, message: message };
    for (var k in details || {}) e[k] = details[k];
    this.code = code;
    this.message = message;
    this.envelope = { error: e };
  }
  OkfError.prototype = Object.create(Error.prototype);
  OkfError.prototype.name = 'OkfError';
  function fail(code, message, details) { throw new OkfError(code, message, details); }
  function corrupt(name, what) {
    return new OkfError('index_corrupt', 'index file ' + name + '.js is corrupt: ' + what + '; rebuild the site', { file: name + '.js' });
  }

  // Python's repr() for the values a request can carry (error messages quote it).
  function pyRepr(v) {
    if (v === null || v === undefined) return 'None';
    if (v === true) return 'True';
    if (v === false) return 'False';
    if (typeof v === 'number') {
      if (v !== v) return 'nan';
      if (!isFinite(v)) return v > 0 ? 'inf' : '-inf';
      if (Number.isInteger(v) && Math.abs(v) < 1e300) return BigInt(v).toString();
      var m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(v.toExponential());
      var digits = m[2] + (m[3] || ''), e = +m[4];
      if (e >= -4 && e < 16) {
        var s = e < 0 ? '0.' + '0'.repeat(-e - 1) + digits
          : digits.length > e + 1 ? digits.slice(0, e + 1) + '.' + digits.slice(e + 1)
          : digits + '0'.repeat(e + 1 - digits.length) + '.0';
        return m[1] + s;
      }
      return m[1] + m[2] + (m[3] ? '.' + m[3] : '') + 'e' + (e < 0 ? '-' : '+') + (Math.abs(e) < 10 ? '0' : '') + Math.abs(e);
    }
    if (typeof v === 'string') {
      var q = v.indexOf("'") >= 0 && v.indexOf('"') < 0 ? '"' : "'";
      return q + v.replace(/[\\\x00-\x1f\x7f'"]/g, function (c) {
        if (c === '\\') return '\\\\';
        if (c === '\n') return '\\n';
        if (c === '\r') return '\\r';
        if (c === '\t') return '\\t';
        if (c === "'" || c === '"') return c === q ? '\\' + c : c;
        return '\\x' + ('0' + c.charCodeAt(0).toString(16)).slice(-2);
      }) + q;
    }
    if (Array.isArray(v)) return '[' + v.map(pyRepr).join(', ') + ']';
    return '{' + Object.keys(v).map(function (k) { return pyRepr(k) + ': ' + pyRepr(v[k]); }).join(', ') + '}';
  }

  // -- code points ------------------------------------------------------------------------
  function cpAt(s, i) { return s.codePointAt(i); }
  function cpLen(s) { var n = 0; for (var i = 0; i < s.length; i++) { var c = s.charCodeAt(i); if (c < 0xdc00 || c > 0xdfff || i === 0 || (s.charCodeAt(i - 1) & 0xfc00) !== 0xd800) n++; } return n; }
  function wellFormed(s) { return !/[\ud800-\udbff](?![\udc00-\udfff])|(?:^|[^\ud800-\udbff])[\udc00-\udfff]/.test(s); }
  // s sliced by code-point offsets [a, b)
  function cpSlice(s, a, b) {
    var i = 0, n = 0, start = -1;
    while (i < s.length && n < b) {
      if (n === a) start = i;
      i += cpAt(s, i) > 0xffff ? 2 : 1;
      n++;
    }
    if (start < 0) start = n === a ? i : s.length;
    return s.slice(start, i);
  }
  function utf8(s) {
    var out = [];
    for (var i = 0; i < s.length; i++) {
      var c = cpAt(s, i);
      if (c > 0xffff) i++;
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | c >> 6, 0x80 | c & 63);
      else if (c < 0x10000) out.push(0xe0 | c >> 12, 0x80 | c >> 6 & 63, 0x80 | c & 63);
      else out.push(0xf0 | c >> 18, 0x80 | c >> 12 & 63, 0x80 | c >> 6 & 63, 0x80 | c & 63);
    }
    return out;
  }
  function fnv1a32(term) {
    var h = 0x811c9dc5, b = utf8(term);
    for (var i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 0x01000193) >>> 0;
    return h;
  }
  // the shard <folder>/<hex> of a key (format.py shard_name)
  function shardName(folder, key, shards) { return folder + '/' + (fnv1a32(key) % shards).toString(16); }
  // what places a term's posting list: its stem when the build stemmed; a part key (" 数据")
  // by its unit (format.py posting_key)
  function postingKey(term, stem) {
    if (term.charAt(0) === PART) term = term.slice(1);
    return stem ? stem(term) : term;
  }

  // -- Chinese, Japanese and Korean words: character pairs (segment.py, docs/smart.md) -------
  // On a zh/ja/ko site a term holding a CJK character is cut where CJK characters meet others;
  // a CJK part of one character is one unit, a longer one gives its overlapping pairs, any
  // other part is one unit. Offsets count code points, as Python's.
  var SEGMENTER = 'cjk-pairs-1', PART = ' ', MAX_UNITS = 32;
  var CJK_RANGES = [0x1100, 0x11FF, 0x2E80, 0x2FDF, 0x3005, 0x3007, 0x3021, 0x3029, 0x3031, 0x3035, 0x3038, 0x303C,
    0x3041, 0x30FF, 0x3105, 0x318F, 0x31A0, 0x31BF, 0x31F0, 0x31FF, 0x3400, 0x4DBF, 0x4E00, 0x9FFF, 0xA960, 0xA97F,
    0xAC00, 0xD7FF, 0xF900, 0xFAFF, 0xFF66, 0xFFDC, 0x1AFF0, 0x1B16F, 0x20000, 0x323AF];
  function isCjk(cp) { return inRanges(CJK_RANGES, cp); }
  function hasCjk(term) {
    for (var i = 0; i < term.length; i++) { var cp = cpAt(term, i); if (cp > 0xffff) i++; if (isCjk(cp)) return true; }
    return false;
  }
  // [code-point offset, part, is CJK] of a term cut where CJK characters meet others
  function segmentParts(term) {
    var cps = Array.from(term), out = [], start = 0;
    for (var i = 1; i <= cps.length; i++) {
      if (i === cps.length || isCjk(cpAt(cps[i], 0)) !== isCjk(cpAt(cps[start], 0))) {
        out.push([start, cps.slice(start, i).join(''), isCjk(cpAt(cps[start], 0))]);
        start = i;
      }
    }
    return out;
  }
  // [code-point offset, unit] of a term: [[0, term]] when it holds no CJK character
  function segmentUnits(term) {
    if (!hasCjk(term)) return [[0, term]];
    var out = [];
    segmentParts(term).forEach(function (p) {
      var cps = Array.from(p[1]);
      if (p[2] && cps.length > 1) for (var i = 0; i + 1 < cps.length; i++) out.push([p[0] + i, cps[i] + cps[i + 1]]);
      else out.push([p[0], p[1]]);
    });
    return out;
  }
  // [word index, offset, unit] of a query's terms: distinct units in query order, at most MAX_UNITS
  function queryUnits(words) {
    var seen = {}, out = [];
    words.forEach(function (word, w) {
      segmentUnits(word).forEach(function (u) {
        if (!own.call(seen, u[1]) && out.length < MAX_UNITS) { seen[u[1]] = 1; out.push([w, u[0], u[1]]); }
      });
    });
    return out;
  }
  // the query text the chosen units (indexes into found) cover, units of one term that touch or
  // overlap joined (segment.py spans): matched_terms and missing_terms
  function segmentSpans(words, found, chosen) {
    var out = [], run = null;
    chosen.slice().sort(function (a, b) { return found[a][0] - found[b][0] || found[a][1] - found[b][1]; }).forEach(function (k) {
      var w = found[k][0], at = found[k][1], end = at + cpLen(found[k][2]);
      if (run !== null && run[0] === w && at <= run[2]) { run[2] = Math.max(run[2], end); return; }
      if (run !== null) out.push(cpSlice(words[run[0]], run[1], run[2]));
      run = [w, at, end];
    });
    if (run !== null) out.push(cpSlice(words[run[0]], run[1], run[2]));
    return out;
  }

  function isAscii(s) { return !/[^\x00-\x7f]/.test(s); }

  // -- terms (contract §2): ASCII needs no tables; anything else uses the build's tables ---
  function inRanges(flat, cp) {
    var lo = 0, hi = flat.length; // bisect_right
    while (lo < hi) { var mid = (lo + hi) >> 1; if (cp < flat[mid]) hi = mid; else lo = mid + 1; }
    return lo % 2 === 1 || (lo > 0 && flat[lo - 1] === cp);
  }
  function asciiWord(c) { return c >= 48 && c <= 57 || c >= 65 && c <= 90 || c >= 97 && c <= 122; }
  // Non-ASCII code points that are assigned, not letter/number/mark and unchanged by case
  // folding in Unicode 14 *and* 17 (punctuation, symbols, spaces, emoji: what English docs
  // hold), as "gap.length" hex pairs. They let an ASCII query cut its snippet without the
  // tables when the build's Unicode version is 14-17 (tests/test_js_unit.py checks them).
  var SEPS = 'a0.9,2.6,3.0,2.2,3.0,4.0,18.0,20.0,1cb.3,d.d,6.6,2.0,2.10,76.0,9.0,6.1,2.0,6f.0,8c.0,d8.5,2a.1,3.2,2f.0,2.0,3.0,3.0,2d.1,c.f,c.4,4b.3,67.0,9.1,b.0,14.1,2.d,2.0,e7.3,5.1,31.e,20.0,2a.0,8.1,51.0,82.1,b.0,82.1,7.1,2.0,79.0,7a.1,7f.0,83.7,7d.0,8.0,5.0,cb.0,2a.0,7b.0,4b.0,10.0,b.1,a6.16,3.5,15.0,2.0,2.0,2.3,48.0,39.7,2.5,2.c,70.5,4f.1,5c.0,265.8,28.9,67.0,26d.1,12.0,1b.1,4f.2,48.1,9e.2,2.3,25.a,4.0,132.0,4.1,99.21,1f.1,81.6,2.5,ad.10,a.a,7e.3,3c.4,3f.1,41.7,c.0,2ea.0,2.2,c.2,e.2,e.2,e.1,2.64,2.9,b.4,c.4,12.20,40.1,2.3,2.1,b.0,2.2,6.5,2.0,2.0,2.0,5.0,c.1,5.4,6.3,2.0,3b.1,5.296,1a.a,52.19,1b.19,17.275,1f.3df,3.1f,2.68,e6.5,f.3,2.1,71.0,90.2e,2.2d,23.19,2.58,d.d5,1b.b,5.4,4.18,10.0,6.1,6.2,cdd1.9,17.22,2.12,2.3,94.0,2.e,b.6,1b.5,1b.a,7b.6,2.6,b.4,f003.2b,5.63,d.e,3.e,2.e,2.24,18.a0,39.1c,e.2b,5.8,8.1,f.5,9b.3d7,6.f,4.c,4.73,d.58,8.b,5.0,10.b,5.37,9.9,7.27,9.1d,3.1,4f.153,d.d,3.4,4.4,4.6,a.1c,4.a,6.5,b.9,7.7,9.6', SEP = null;
  function isSep(cp) {
    if (!SEP) {
      SEP = [];
      SEPS.split(',').reduce(function (end, pair) {
        var g = pair.split('.'), lo = end + parseInt(g[0], 16), hi = lo + parseInt(g[1], 16);
        SEP.push(lo, hi);
        return hi;
      }, 0);
    }
    return inRanges(SEP, cp);
  }

  function Normaliser(t) {
    this.t = t;
  }
  Normaliser.prototype.isWord = function (cp) { return this.t ? inRanges(this.t.word, cp) : cp < 128 && asciiWord(cp); };
  // NFC(casefold(text)) with the build's fold table, NFC per run of code points the build knew
  Normaliser.prototype.normalise = function (text) {
    if (!this.t) return text.toLowerCase();
    var fold = this.t.casefold, assigned = this.t.assigned, out = '', seg = '';
    for (var i = 0; i < text.length; i++) {
      var cp = cpAt(text, i), ch = String.fromCodePoint(cp);
      if (cp > 0xffff) i++;
      var key = cp.toString(16), f = own.call(fold, key) ? fold[key] : ch;
      for (var j = 0; j < f.length; j++) {
        var c = cpAt(f, j), cs = String.fromCodePoint(c);
        if (c > 0xffff) j++;
        if (inRanges(assigned, c)) seg += cs;
        else { out += seg.normalize('NFC') + cs; seg = ''; }
      }
    }
    return out + seg.normalize('NFC');
  };
  // maximal word runs of raw text: [code-point offset, utf16 index, run]
  Normaliser.prototype.runs = function (text, stopAt) {
    var out = [], n = 0, start = -1, startN = 0;
    for (var i = 0; i <= text.length; ) {
      var cp = i < text.length ? cpAt(text, i) : -1, w = cp >= 0 && this.isWord(cp);
      if (w && start < 0) { start = i; startN = n; }
      if (!w && start >= 0) {
        out.push([startN, start, text.slice(start, i)]);
        start = -1;
        if (stopAt && stopAt(out[out.length - 1])) break;
      }
      if (cp < 0) break;
      i += cp > 0xffff ? 2 : 1;
      n++;
    }
    return out;
  };
  Normaliser.prototype.terms = function (text) {
    return this.runs(this.normalise(text)).map(function (r) { return r[2]; });
  };
  Normaliser.prototype.hasLetterNumber = function (text) {
    if (!this.t) return /[0-9A-Za-z]/.test(text);
    for (var i = 0; i < text.length; i++) {
      var cp = cpAt(text, i);
      if (cp > 0xffff) i++;
      if (inRanges(this.t.letter_number, cp)) return true;
    }
    return false;
  };
  var ASCII = new Normaliser(null);

  // Query checks before any table is needed (same order and messages as terms.py).
  function checkQuery(query) {
    if (typeof query !== 'string') fail('schema_validation', 'query must be a string');
    if (!wellFormed(query)) fail('schema_validation', 'query is not valid Unicode (it holds a lone surrogate)');
    var n = cpLen(query);
    if (n < 1) fail('schema_validation', 'query is empty: give 1 to 512 characters with at least one letter or number');
    if (n > MAX_Q) fail('schema_validation', 'query is ' + n + ' characters long; the limit is ' + MAX_Q + ': shorten it', { limit: MAX_Q, actual: n });
  }
  function queryTerms(norm, query) {
    if (!norm.hasLetterNumber(query)) fail('schema_validation', 'query has no letter or number: add at least one word');
    if (norm.t) checkKnown(norm.t, query);
    var seen = {}, result = [], words = norm.terms(query);
    for (var i = 0; i < words.length; i++) {
      var w = words[i], len = cpLen(w);
      if (len > MAX_TERM) fail('resource_limit', 'a query term is ' + len + ' characters after normalisation; the limit is ' + MAX_TERM, { limit: MAX_TERM, actual: len });
      if (!own.call(seen, w)) { seen[w] = 1; result.push(w); }
    }
    if (!result.length) fail('schema_validation', 'query has no searchable term: add a word');
    if (result.length > MAX_TERMS) fail('resource_limit', 'query has ' + result.length + ' distinct terms; the limit is ' + MAX_TERMS + ': remove some words', { limit: MAX_TERMS, actual: result.length });
    return result;
  }
  // A code point the build's Unicode assigned but this engine's does not: its NFC is unknown
  // here, so refuse the query (as terms.py's Normaliser.check_known, same envelope).
  var UNASSIGNED = null;
  function checkKnown(t, query) {
    if (isAscii(query)) return;
    if (!UNASSIGNED) UNASSIGNED = new RegExp('\\p{Cn}', 'u');
    for (var i = 0; i < query.length; i++) {
      var cp = cpAt(query, i), ch = String.fromCodePoint(cp);
      if (cp > 0xffff) i++;
      if (cp > 0x7f && UNASSIGNED.test(ch) && inRanges(t.assigned, cp)) {
        var u = 'U+' + ('000' + cp.toString(16).toUpperCase()).slice(-Math.max(4, cp.toString(16).length));
        fail('index_version_unsupported', 'the query holds ' + u + ", which the index's Unicode " + t.unicode_version +
          " assigns but this engine's Unicode tables do not know, so it cannot normalise the query as the build did: " +
          'query with a newer Python or browser (Unicode ' + t.unicode_version + ' or later), or leave the character out',
          { unicode_version: t.unicode_version, code_point: u });
      }
    }
  }
  function checkLimit(limit) {
    if (limit === undefined || limit === null) return 20;
    if (typeof limit !== 'number' || !Number.isInteger(limit)) fail('schema_validation', 'limit must be an integer from 1 to 100, got ' + pyRepr(limit));
    if (limit < 1 || limit > 100) fail('schema_validation', 'limit must be from 1 to 100, got ' + pyRepr(limit));
    return limit;
  }

  // Letters whose NFC(casefold()) is ASCII (ß ſ ẞ K ﬀ-ﬆ): they can make an ASCII term.
  function toAscii(c) { return c === 0xdf || c === 0x17f || c === 0x1e9e || c === 0x212a || (c >= 0xfb00 && c <= 0xfb06); }

  // Snippet start (contract §5), a code-point offset. Without tables (ASCII query, build
  // Unicode 14-17), a run of ASCII letters/digits counts only when known separators or ASCII
  // punctuation surround it: next to another non-ASCII code point it may be part of a longer
  // run, whose term then holds that code point and so cannot be an ASCII query term (in the
  // build's tables NFC(casefold()) of letters/marks gives letters/marks: tests check it), unless
  // that run would have matched. null means the build's tables must decide.
  function snippetAt(norm, text, terms, seps) {
    var wanted = {}, found = -1, units = {}, anyUnit = false;
    // a part key (" 数据") matches a run holding CJK text that has its unit among its units
    terms.forEach(function (t) { if (t.charAt(0) === PART) { units[t.slice(1)] = 1; anyUnit = true; } else wanted[t] = 1; });
    if (!norm.t) {
      if (!seps && !isAscii(text)) return null;
      for (var i = 0, s = -1, dirty = false, prevOdd = false; i <= text.length; i += c > 0xffff ? 2 : 1) {
        var c = i < text.length ? cpAt(text, i) : 32, odd = c > 127 && !isSep(c);
        if (odd && toAscii(c)) return null;
        if (c < 128 && asciiWord(c)) { if (s < 0) { s = i; dirty = prevOdd; } }
        else if (s >= 0) {
          if (own.call(wanted, text.slice(s, i).toLowerCase())) {
            if (dirty || odd) return null;
            found = cpLen(text.slice(0, s));
            break;
          }
          s = -1;
        }
        prevOdd = odd;
      }
    } else {
      norm.runs(text, function (r) {
        var t = norm.terms(r[2]);
        if (t.length && (own.call(wanted, t[0]) || (anyUnit && hasCjk(t[0]) && segmentUnits(t[0]).some(function (u) { return own.call(units, u[1]); })))) {
          found = r[0];
          return true;
        }
        return false;
      });
    }
    return found < 0 ? 0 : Math.max(0, found - LEAD);
  }

  // Size of the canonical JSON (format.canonical_json) of a result, for the 1 MiB cap.
  function jsonBytes(v) {
    if (typeof v === 'number') return Number.isInteger(v) ? String(v).length : pyRepr(v).length;
    if (typeof v === 'string') return utf8(JSON.stringify(v)).length + 5 * (v.match(/[<>&]/g) || []).length + 3 * (v.match(/[\u2028\u2029]/g) || []).length;
    if (typeof v !== 'object' || v === null) return String(v).length;
    if (Array.isArray(v)) return v.reduce(function (a, x) { return a + jsonBytes(x) + 1; }, v.length ? 1 : 2);
    var keys = Object.keys(v);
    return keys.reduce(function (a, k) { return a + jsonBytes(k) + 2 + jsonBytes(v[k]); }, keys.length ? 1 : 2);
  }

  // -- checks of loaded files (index.py) ---------------------------------------------------
  function isInt(v) { return typeof v === 'number' && Number.isInteger(v); }
  function isHex64(v) { return typeof v === 'string' && /^[0-9a-f]{64}$/.test(v); }
  function checkManifest(m) {
    if (!m || typeof m !== 'object' || m.format !== 'okf-sphinx-index') fail('index_corrupt', 'manifest.js is not an okf_sphinx index manifest; rebuild the site', { file: 'manifest.js' });
    if (m.format_version !== FORMAT_VERSION) fail('index_version_unsupported', 'index format_version ' + pyRepr(m.format_version) + ' is not supported by this okf_sphinx (it reads version ' + FORMAT_VERSION + '); rebuild the site or upgrade okf_sphinx', { found: m.format_version === undefined ? null : m.format_version, supported: [FORMAT_VERSION] });
    if (!['sections', 'sections_all', 'concepts', 'files', 'shards'].every(function (k) { return isInt(m[k]) && m[k] >= 0; }) || m.shards < 1 || m.sections_all < m.sections) throw corrupt('manifest', 'counts are missing or invalid');
    if (typeof m.avglen !== 'number' || !(m.avglen > 0) || !isFinite(m.avglen)) throw corrupt('manifest', 'avglen is missing or invalid');
    if (!isHex64(m.snapshot_revision) || typeof m.unicode_version !== 'string') throw corrupt('manifest', 'snapshot_revision or unicode_version is invalid');
    if (!isHex64(m.index_revision)) throw corrupt('manifest', 'index_revision is missing or invalid');
    var counts = decodeInts(m.section_files);
    if (!(counts && counts.every(function (x) { return x >= 1; })
      && counts.reduce(function (a, x) { return a + x; }, 0) === m.sections_all)) throw corrupt('manifest', 'section_files is missing or invalid');
    if (!(isInt(m.pages_per_file) && m.pages_per_file >= 1)) throw corrupt('manifest', 'pages_per_file is missing or invalid');
    return m;
  }
  function checkUnicode(t) {
    var ok = t && typeof t === 'object' && typeof t.unicode_version === 'string' && t.casefold && typeof t.casefold === 'object' && !Array.isArray(t.casefold);
    ok = ok && ['word', 'letter_number', 'assigned'].every(function (k) {
      var f = t[k];
      return Array.isArray(f) && f.length % 2 === 0 && f.every(function (x, i) { return isInt(x) && x >= 0 && x <= 0x10ffff && (i === 0 || f[i - 1] <= x); });
    });
    if (!ok || !Object.keys(t.casefold).every(function (k) { return typeof t.casefold[k] === 'string'; })) throw corrupt('unicode', 'the Unicode tables are invalid');
    return new Normaliser(t);
  }
  // integer lists written as text (index_format.py encode_ints / decode_ints): null unless canonical
  var INT_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', MAX_INT_DIGITS = 7, DIGIT = [];
  for (var dv = 0; dv < 128; dv++) DIGIT.push(INT_DIGITS.indexOf(String.fromCharCode(dv)));
  function decodeInts(text) {
    if (typeof text !== 'string') return null;
    var out = [], n = 0, shift = 0, mult = 1;
    for (var i = 0; i < text.length; i++) {
      var c = text.charCodeAt(i), d = c < 128 ? DIGIT[c] : -1;
      if (d < 0) return null;
      if (d < 32) {
        if (shift && !d) return null;  // a zero last digit after others: not canonical
        out.push(n + d * mult);
        n = 0; shift = 0; mult = 1;
      } else if (shift === 5 * (MAX_INT_DIGITS - 1)) return null;
      else { n += (d - 32) * mult; mult *= 32; shift += 5; }
    }
    return shift ? null : out;
  }
  // {term: [idf, df, postings]} (index.py _check_entries): an x/ shard, or a t/ shard's terms
  function checkEntries(name, shard) {
    if (!shard || typeof shard !== 'object' || Array.isArray(shard)) throw corrupt(name, 'a shard must be an object');
    Object.keys(shard).forEach(function (term) {  // every entry, as index.py does: both refuse the same files
      var e = shard[term];
      if (!(Array.isArray(e) && e.length === 3 && typeof e[0] === 'number' && isFinite(e[0]) && isInt(e[1]) && (typeof e[2] === 'string' || (Array.isArray(e[2]) && e[2].length === 1 && typeof e[2][0] === 'string')))) throw corrupt(name, 'the entry of term ' + pyRepr(term) + ' is malformed');
    });
    return shard;
  }
  // a t/ shard (index.py _check_shard): {groups, terms}
  function checkShard(name, shard) {
    var keys = shard && typeof shard === 'object' && !Array.isArray(shard) ? Object.keys(shard).sort() : null;
    if (!keys || keys.length !== 2 || keys[0] !== 'groups' || keys[1] !== 'terms' || !shard.groups || typeof shard.groups !== 'object' || Array.isArray(shard.groups)) throw corrupt(name, 'a posting shard must be an object of groups and terms');
    Object.keys(shard.groups).forEach(function (stem) {
      var g = shard.groups[stem];
      if (!(Array.isArray(g) && g.length === 3 && typeof g[0] === 'number' && isFinite(g[0]) && typeof g[1] === 'number' && isFinite(g[1])
            && Array.isArray(g[2]) && g[2].every(function (t) { return typeof t === 'string'; }))) throw corrupt(name, 'a stem-group shard is malformed');
    });
    checkEntries(name, shard.terms);
    return shard;
  }
  var OBJECT_FIELDS = { kind: 'string', name: 'string', signature: 'string', generated: true, continued: true };
  // A section file s/<k> (index.py _check_sections): sids first … end-1; its records, by sid.
  function checkSections(name, c, first, end) {
    if (!(c && typeof c === 'object' && !Array.isArray(c) && c.first === first && Array.isArray(c.pages) && Array.isArray(c.files)
      && Array.isArray(c.sections) && c.sections.length === end - first)) throw corrupt(name, 'a section file is malformed');
    var pages = c.pages, files = c.files;
    if (!pages.every(function (p) { return Array.isArray(p) && p.length === 5 && typeof p[0] === 'string' && typeof p[1] === 'string' && typeof p[2] === 'boolean' && typeof p[3] === 'string' && typeof p[4] === 'string'; })
      || !files.every(function (f) { return Array.isArray(f) && (f.length === 2 || (f.length === 3 && typeof f[2] === 'string' && f[2] !== f[0])) && typeof f[0] === 'string' && isHex64(f[1]); })) throw corrupt(name, "a section file's page or file table is malformed");
    return c.sections.map(function (r, i) {
      var ok = Array.isArray(r) && (r.length === 8 || r.length === 9) && isInt(r[0]) && r[0] >= 0 && r[0] < pages.length
        && isInt(r[1]) && r[1] >= 0 && r[1] < files.length && typeof r[2] === 'string' && isInt(r[3]) && isInt(r[4]) && isInt(r[5])
        && r[4] >= 1 && r[4] <= r[5] && typeof r[6] === 'string' && typeof r[7] === 'string'
        && (r.length === 8 || (r[8] && typeof r[8] === 'object' && !Array.isArray(r[8]) && Object.keys(r[8]).every(function (k) {
          var want = own.call(OBJECT_FIELDS, k) ? OBJECT_FIELDS[k] : undefined;
          return want === true ? r[8][k] === true : want !== undefined && typeof r[8][k] === want;
        })));
      if (!ok) throw corrupt(name, 'a section record is malformed');
      // locator and url are derived as index_format.py section_records does
      var p = pages[r[0]], f = files[r[1]];
      var rec = { sid: first + i, concept_id: p[0], title: p[1], path: f[0], heading: r[2], level: r[3], line_start: r[4], line_end: r[5],
        locator: (f.length === 3 ? f[2] : f[0]) + '#L' + r[4] + '-L' + r[5], content_sha256: f[1],
        url: r[6] ? p[3].split('#')[0] + '#' + r[6] : p[3], anchor: r[6], searchable: p[2], text: r[7], page_path: p[4] };
      if (r.length === 9) Object.keys(r[8]).forEach(function (k) { rec[k] = r[8][k]; });
      return rec;
    });
  }
  var NAME = /^(manifest|unicode|concepts|files|smart|meta|paths|[tx]\/[0-9a-f]{1,8}(-[0-9]{1,9})?|[gdnl]\/[0-9a-f]{1,8}|[spf]\/[0-9]{1,9})$/;

  // -- the engine ----------------------------------------------------------------------------
  // loader(name, fresh) -> Promise of the parsed JSON value of _okf/<name>.js (fresh: past any HTTP cache)
  function Engine(loader) {
    this.loader = loader;
    this.cache = {};
    this.postings = {};
    this.manifest = null;
    this.loads = 0; // files requested so far (a search that requested none needs no re-check)
  }
  Engine.prototype.load = function (name, check) {
    var c = this.cache, self = this;
    if (!own.call(c, name)) {
      if (!NAME.test(name)) return Promise.reject(new OkfError('index_corrupt', 'index refers to an invalid file name ' + pyRepr(name) + '; rebuild the site'));
      this.loads++;
      c[name] = Promise.resolve().then(function () { return self.loader(name); }).then(function (v) { return check ? check(name, v) : v; });
      c[name].catch(function () { delete c[name]; });
    }
    return c[name];
  };
  Engine.prototype.open = function () {
    var self = this;
    return this.load('manifest', function (n, m) { return checkManifest(m); }).then(function (m) { self.manifest = m; return m; });
  };
  Engine.prototype.tables = function () {
    return this.load('unicode', function (n, t) { return checkUnicode(t); });
  };
  // the build's stemmer (index.py Index.stem): a term's posting list sits in its stem's shard
  Engine.prototype.stem = function () {
    var m = this.manifest.smart;
    if (!(m && typeof m === 'object' && !Array.isArray(m) && typeof m.stemmer === 'boolean' && typeof m.language === 'string' && typeof m.stemmer_version === 'string')) throw corrupt('manifest', 'the smart block is missing or invalid');
    if (!m.stemmer) return null;
    var S = stemmers || (root && root.OkfStemmer) || null, have = S ? S.VERSION : 'no';
    var f = S && m.stemmer_version === S.VERSION ? S.forLanguage(m.language) : null;
    if (!f) fail('index_version_unsupported', 'this index was built with the ' + m.stemmer_version + ' stemmer for ' + pyRepr(m.language) + ', which this okf_sphinx does not have (it has ' + have + '): rebuild the site or use the okf_sphinx that built it', { found: m.stemmer_version, supported: [have] });
    return f;
  };
  // the posting shard t/<hex> of a term (index.py Index.shard_of)
  Engine.prototype.shardOf = function (term) {
    var stem = this.stem();
    return shardName('t', postingKey(term, stem), this.manifest.shards);
  };
  // folder 'x' (with its shard count): smart mode's identifier postings (index.py posting)
  Engine.prototype.posting = function (term, folder, shards) {
    folder = folder || 't';
    var self = this, m = this.manifest, name;
    var cache = folder === 't' ? this.postings : (this.idPostings = this.idPostings || {});
    if (own.call(cache, term)) return Promise.resolve(cache[term]);
    try { name = folder === 't' ? this.shardOf(term) : shardName(folder, term, shards); } catch (err) { return Promise.reject(err); }
    return this.load(name, folder === 't' ? checkShard : checkEntries).then(function (shard) {
      var entries = folder === 't' ? shard.terms : shard;
      if (!own.call(entries, term)) return null;
      var e = entries[term];
      var digits = typeof e[2] === 'string' ? e[2] : self.load(e[2][0], function (n, f) { if (typeof f !== 'string') throw corrupt(n, 'a posting file must hold a string'); return f; });
      return Promise.resolve(digits).then(function (digits) {
        var flat = decodeInts(digits), sids = [], fs = [], lens = [], sid = -1;
        if (!flat || flat.length % 3 || flat.length / 3 !== e[1]) throw corrupt(name, 'a posting list is malformed');
        for (var i = 0; i < flat.length; i += 3) {
          sid = i === 0 ? flat[0] : sid + flat[i];
          if ((i && flat[i] === 0) || sid >= m.sections || flat[i + 1] === 0) throw corrupt(name, 'a posting list is out of order or out of range');
          sids.push(sid); fs.push(flat[i + 1]); lens.push(flat[i + 2]);
        }
        return (cache[term] = { idf: e[0], df: e[1], sids: sids, fs: fs, lens: lens });
      });
    });
  };
  Engine.prototype.section = function (sid) {
    var m = this.manifest;
    if (this.startsOf !== m) {  // the first sid of each section file, once per manifest
      var counts = decodeInts(m.section_files);  // checked with the manifest
      this.starts = counts.reduce(function (a, n, i) { a.push(i ? a[i - 1] + counts[i - 1] : 0); return a; }, []);
      this.startsOf = m;
    }
    var st = this.starts, lo = 0, hi = st.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (st[mid] <= sid) lo = mid + 1; else hi = mid; }
    var k = lo - 1, first = st[k], end = k + 1 < st.length ? st[k + 1] : this.manifest.sections_all;
    return this.load('s/' + k, function (name, c) { return checkSections(name, c, first, end); }).then(function (recs) { return recs[sid - first]; });
  };
  // Every matching section as [score, sid], best first (query.py rank).
  function rank(postings, avglen) {
    var order = postings.slice().sort(function (a, b) { return a.df - b.df; });
    var cand = order[0].sids;
    var out = [];
    for (var c = 0; c < cand.length; c++) {
      var sid = cand[c], idx = [], ok = true;
      for (var p = 0; p < postings.length && ok; p++) {
        var a = postings[p].sids, lo = 0, hi = a.length;
        while (lo < hi) { var mid = (lo + hi) >> 1; if (a[mid] < sid) lo = mid + 1; else hi = mid; }
        if (a[lo] === sid) idx.push(lo); else ok = false;
      }
      if (!ok) continue;
      var score = 0.0;
      for (p = 0; p < postings.length; p++) {
        var P = postings[p], f = P.fs[idx[p]];
        score += P.idf * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * P.lens[idx[p]] / avglen));
      }
      out.push([score, sid]);
    }
    out.sort(function (x, y) { return x[0] !== y[0] ? (x[0] > y[0] ? -1 : 1) : x[1] - y[1]; });
    return out;
  }
  // One build per search (index.py's Index.consistent): when a search read files and the
  // loader can re-read the manifest cheaply (loader.revalidate: Node), the manifest is read
  // again afterwards; in the browser (a fresh manifest costs a round trip per query) only
  // when a file fails its checks. A changed index_revision means the site was rebuilt under
  // the search: the engine drops what it cached and answers again from the new build.
  var MAX_ATTEMPTS = 4;
  Engine.prototype.moved = function () {
    var self = this, old = this.manifest;
    return Promise.resolve().then(function () { return self.loader('manifest', true); }).then(function (m) {
      m = checkManifest(m);
      if (!old || m.index_revision === old.index_revision) return false;
      self.cache = { manifest: Promise.resolve(m) };
      self.postings = {};
      self.manifest = m;
      return true;
    });
  };
  // search_sections: the contract's result; opts.present adds presentation fields to hits
  // (url: the rendered section, relative to the site root; title: the page title).
  // search(query, limit, opts) or search(query, {mode, limit, prefix, present}): index.py Index.search
  Engine.prototype.search = function (query, limit, opts) {
    var self = this, attempts = 0;
    function again(moved, otherwise) {
      if (!moved) return otherwise();
      if (++attempts >= MAX_ATTEMPTS) fail('source_unavailable', 'the index was rebuilt ' + MAX_ATTEMPTS + ' times while answering; ask again');
      return once();
    }
    function once() {
      var loads = self.loads, known = !!self.manifest;
      return self.dispatch(query, limit, opts).then(function (result) {
        if (!self.loader.revalidate || self.loads === loads) return result;
        return self.moved().then(function (moved) { return again(moved, function () { return result; }); });
      }, function (err) {
        var suspect = err instanceof OkfError && known && self.loads !== loads
          && (err.code === 'index_corrupt' || self.loader.revalidate);
        if (!suspect) throw err;
        return self.moved().then(function (moved) { return again(moved, function () { throw err; }); });
      });
    }
    return once();
  };
  // search(query, limit, opts) or search(query, {mode, limit, prefix, present}): index.py Index.search
  Engine.prototype.dispatch = function (query, limit, opts) {
    if (limit !== null && typeof limit === 'object' && !Array.isArray(limit)) { opts = limit; limit = opts.limit; }
    var self = this, options = {}, mode = opts && opts.mode !== undefined ? opts.mode : 'keyword';
    for (var k in opts || {}) if (own.call(opts, k) && k !== 'mode' && k !== 'limit' && k !== 'present' && opts[k] !== undefined) options[k] = opts[k];
    var names = Object.keys(options).sort();
    if (mode === 'keyword') {
      if (names.length) return Promise.reject(new OkfError('schema_validation', names[0] + " applies to mode 'smart' only; add mode='smart' or leave it out", { field: names[0] }));
      return this.keyword(query, limit, opts);
    }
    if (mode === 'smart') {
      var unknown = names.filter(function (n) { return SMART_OPTIONS.indexOf(n) < 0; });
      if (unknown.length) return Promise.reject(new OkfError('schema_validation', 'search does not take ' + pyRepr(unknown[0]) + '; smart mode takes ' + SMART_OPTIONS.join(', '), { field: unknown[0] }));
      return this.smart(query, limit, options, opts);
    }
    return Promise.reject(new OkfError('schema_validation', "mode must be 'keyword' or 'smart', got " + pyRepr(mode), { field: 'mode' }));
  };
  // Hit objects of the contract for these sections (query.py hit); terms[i]: the snippet's terms
  // of hit i, scores[i] its score, matched[i] its matched_terms.
  Engine.prototype.hits = function (norm, sections, terms, scores, matched, opts) {
    var self = this;
    var at = sections.map(function (s, i) {
      if (!s.searchable) fail('index_corrupt', 'posting refers to non-searchable section ' + s.sid + '; rebuild the site');
      // a non-ASCII snippet term (or a part key: CJK text) needs the tables even when the query is ASCII
      if (!norm.t && !terms[i].every(function (t) { return isAscii(t) && t.charAt(0) !== PART; })) return null;
      return snippetAt(norm, s.text, terms[i], /^1[4-7]\./.test(self.manifest.unicode_version));
    });
    var need = norm.t || at.every(function (x) { return x !== null; }) ? null : self.tables();
    return Promise.resolve(need).then(function (full) {
      return sections.map(function (s, i) {
        var p = at[i] !== null ? at[i] : snippetAt(full, s.text, terms[i]);
        var h = {
          concept_id: s.concept_id, path: s.path, heading: s.heading, locator: s.locator,
          line_start: s.line_start, line_end: s.line_end, content_sha256: s.content_sha256,
          snippet: cpSlice(s.text, p, p + SNIP), score: scores[i], matched_terms: matched[i].slice()
        };
        if (opts && opts.present) {
          h.url = s.url; h.title = s.title; h.level = s.level;
          h.snippet_offset = p; h.text_length = cpLen(s.text);
          if (typeof s.kind === 'string') { h.kind = s.kind; h.signature = typeof s.signature === 'string' ? s.signature : ''; }
        }
        return h;
      });
    });
  };
  // What both modes do first, in this order (index.py / query.py): check the query, open
  // the index, pick the tables, split the query into terms, check the limit.
  Engine.prototype.prepare = function (query, limit) {
    var self = this;
    return Promise.resolve().then(function () {
      checkQuery(query);
      return self.manifest || self.open();
    }).then(function () {
      return isAscii(query) ? ASCII : self.tables();
    }).then(function (n) {
      return { norm: n, terms: queryTerms(n, query), lim: checkLimit(limit) };
    });
  };
  Engine.prototype.keyword = function (query, limit, opts) {
    var self = this, terms, norm, lim, ranked;
    return this.prepare(query, limit).then(function (q) {
      norm = q.norm;
      terms = q.terms;
      lim = q.lim;
      return Promise.all(terms.map(function (t) { return self.posting(t); }));
    }).then(function (postings) {
      ranked = postings.every(Boolean) ? rank(postings, self.manifest.avglen) : [];
      return Promise.all(ranked.slice(0, lim).map(function (r) { return self.section(r[1]); }));
    }).then(function (sections) {
      var each = sections.map(function () { return terms; });
      return self.hits(norm, sections, each, ranked.map(function (r) { return r[0]; }), each, opts).then(function (hits) {
        var result = {
          query: query, terms: terms, snapshot_revision: self.manifest.snapshot_revision,
          total: ranked.length, truncated: ranked.length > lim, hits: hits
        };
        var size = jsonBytes(result);
        if (!(opts && opts.present) && size > MAX_BYTES) fail('resource_limit', 'the answer is ' + size + ' bytes, over the 1 MiB limit: lower limit', { limit: MAX_BYTES, actual: size });
        return result;
      });
    });
  };
  // -- smart mode (okf_sphinx/engine/smart.py; docs/smart.md) -------------------------------------
  var EXACT = 1.0, STEM = 0.5, PREFIX = 0.25, MAX_COMPLETIONS = 8, MAX_COMPLETION_GROUPS = 3, MIN_PREFIX = 2, HITS_PER_PAGE = 3, SUB_HIT_FLOOR = 0.7, MAX_SUGGESTIONS = 3;
  var SMART_OPTIONS = ['prefix', 'under', 'meta', 'kind', 'expand'];
  var KIND = /^[a-z][a-z0-9_-]*(:[a-z0-9_.-]+)?$/;
  function badOption(field, what, value) { return new OkfError('schema_validation', field + ' must be ' + what + ', got ' + pyRepr(value), { field: field }); }
  // smart.py check_filters: [path units or null, metadata pairs or null, kinds or null]
  function checkFilters(under, meta, kind) {
    var units = null, kinds = null, UNDER = 'a path prefix relative to the site\'s source root, such as \'guide\' or \'ref/contrib\'';
    if (under !== undefined && under !== null) {
      if (typeof under !== 'string' || !under.replace(/^\/+|\/+$/g, '') || under.indexOf('\\') >= 0 || under.charAt(0) === '/') throw badOption('under', UNDER, under);
      units = under.replace(/^\/+|\/+$/g, '').split('/');
      if (units.some(function (u) { return u === '' || u === '.' || u === '..'; })) throw badOption('under', UNDER, under);
    }
    if (meta !== undefined && meta !== null) {
      if (typeof meta !== 'object' || Array.isArray(meta) || !Object.keys(meta).length || !Object.keys(meta).every(function (k) { return k && typeof meta[k] === 'string'; })) {
        throw badOption('meta', 'an object of page metadata fields and their text values, such as {"status": "draft"}', meta);
      }
    } else meta = null;
    if (kind !== undefined && kind !== null) {
      kinds = typeof kind === 'string' ? [kind] : kind;
      if (!Array.isArray(kinds) || !kinds.length || !kinds.every(function (k) { return typeof k === 'string' && KIND.test(k); })) throw badOption('kind', "'section' or an object kind such as 'py:function' (or a list of them)", kind);
    }
    return [units, meta, kinds];
  }
  function stemPath(path) {
    var units = path.split('/'), name = units[units.length - 1], dot = name.lastIndexOf('.');
    if (dot > 0 && dot < name.length - 1) units[units.length - 1] = name.slice(0, dot);
    return units;
  }
  function pageOk(paths, page, units, wanted, metas) {
    if (units !== null) {
      var have = stemPath(paths[page]);
      if (have.length < units.length || units.some(function (u, i) { return have[i] !== u; })) return false;
    }
    if (wanted !== null) {
      var m = own.call(metas, String(page)) ? metas[String(page)] : {};
      for (var k in wanted) {
        if (!own.call(wanted, k)) continue;
        var v = own.call(m, k) ? m[k] : undefined;
        if (!(v === wanted[k] || (Array.isArray(v) && v.indexOf(wanted[k]) >= 0))) return false;
      }
    }
    return true;
  }
  function checkMeta(name, v) {
    var ok = v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).every(function (p) {
      var m = v[p];
      return m && typeof m === 'object' && !Array.isArray(m) && Object.keys(m).every(function (k) {
        var x = m[k];
        return typeof x === 'string' || (Array.isArray(x) && x.every(function (y) { return typeof y === 'string'; }));
      });
    });
    if (!ok) throw corrupt(name, 'the page metadata is malformed');
    return v;
  }
  var stemmers = root && root.OkfStemmer ? root.OkfStemmer : null;
  if (!stemmers && typeof require === 'function') { try { stemmers = require('./okf-stemmer.js'); } catch (e) { stemmers = null; } }
  // format.py identifiers: identifiers as written, lower-cased
  function identifiers(text) {
    var out = [], re = /[A-Za-z0-9_.:-]+/g, m;
    while ((m = re.exec(text)) !== null) {
      var token = m[0], rest = token.replace(/^-+/, ''), lead = token.length - rest.length;
      var core = rest.replace(/^[.:-]+|[.:-]+$/g, '');
      if (core.length < 2 || !/[A-Za-z]/.test(core) || !(lead || /[_.:-]/.test(core))) continue;
      out.push(('--'.slice(0, Math.min(lead, 2)) + core).toLowerCase());
    }
    return out;
  }
  var MAX_QUERY_IDENTIFIERS = 8;
  function bm25Part(idf, f, len, avglen) { return idf * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * len / avglen)); }
  function dictKey(term) { return Array.from(term).slice(0, 2).join(''); }
  function isNum(x) { return typeof x === 'number'; }
  // code-point order (Python's str order), not UTF-16 order
  function cpCompare(a, b) {
    var x = Array.from(a), y = Array.from(b);
    for (var i = 0; i < x.length && i < y.length; i++) if (x[i] !== y[i]) return cpAt(x[i], 0) - cpAt(y[i], 0);
    return x.length - y.length;
  }
  // smart.py _page_table_check: rows [first sid, sections, length, prior]
  function pageTableCheck(sections) {
    return function (name, v) {
      var obj = v && typeof v === 'object' && !Array.isArray(v);
      var counts = obj ? decodeInts(v.counts) : null, lengths = obj ? decodeInts(v.lengths) : null, priors = obj ? v.priors : null;
      if (!counts || !lengths || !Array.isArray(priors) || counts.length !== lengths.length || counts.length !== priors.length
        || !counts.every(function (c) { return c > 0; }) || !priors.every(function (p) { return isNum(p) && p > 0; })) throw corrupt(name, 'the page table is malformed');
      var at = 0, rows = counts.map(function (c, i) { var row = [at, c, lengths[i], priors[i]]; at += c; return row; });
      if (at !== sections) throw corrupt(name, 'the page table does not cover the sections in order');
      return { rows: rows, firsts: rows.map(function (r) { return r[0]; }) };
    };
  }
  // smart.py _paths_check: one source path per page
  function pathsCheck(pages) {
    return function (name, v) {
      if (!Array.isArray(v) || v.length !== pages || !v.every(function (p) { return typeof p === 'string'; })) throw corrupt(name, 'the page paths are malformed');
      return v;
    };
  }
  function checkDict(name, v) {
    if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.keys(v).every(function (k) {
      return Array.isArray(v[k]) && v[k].every(function (x) { return Array.isArray(x) && x.length === 2 && typeof x[0] === 'string' && isInt(x[1]); });
    })) throw corrupt(name, 'a dictionary shard is malformed');
    return v;
  }
  Engine.prototype.smartMeta = function () {
    var m = this.manifest.smart;
    if (m === undefined || m === null) fail('index_version_unsupported', "this index has no smart-mode data (built by an older okf_sphinx): rebuild the site, or use mode='keyword'");
    var ok = typeof m === 'object' && !Array.isArray(m) && ['dict_shards', 'id_shards'].every(function (k) { return isInt(m[k]) && m[k] >= 1; })
      && (m.name_shards === undefined || (isInt(m.name_shards) && m.name_shards >= 1))
      && isInt(m.pages) && m.pages >= 0 && typeof m.language === 'string' && typeof m.stemmer === 'boolean'
      && typeof m.stemmer_version === 'string' && isNum(m.pavglen) && m.pavglen > 0;
    if (!ok) throw corrupt('manifest', 'the smart block is missing or invalid');
    return m;
  };
  // the exact-name boost (smart.py named, format.py object_name_query): sid -> tier
  var FULL_NAME = 0, FULL_NAME_ANY_CASE = 1, TAIL_NAME = 2, TAIL_NAME_ANY_CASE = 3, UNNAMED = 4;
  function asciiLower(s) { return s.replace(/[A-Z]/g, function (c) { return String.fromCharCode(c.charCodeAt(0) + 32); }); }
  function objectNameQuery(query) {
    var q = query.replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, '');
    if (q.slice(-2) === '()') q = q.slice(0, -2);
    return q || null;
  }
  function nameKey(name) { return name.slice(name.lastIndexOf('.') + 1); }
  function checkNames(name, v) {
    if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.keys(v).every(function (k) {
      return Array.isArray(v[k]) && v[k].every(function (x) { return Array.isArray(x) && x.length === 3 && typeof x[0] === 'string' && typeof x[1] === 'string' && isInt(x[2]) && x[2] >= 0; });
    })) throw corrupt(name, 'an object-name shard is malformed');
    return v;
  }
  Engine.prototype.named = function (query, kinds) {
    var shards = this.smartMeta().name_shards, written = objectNameQuery(query), sections = this.manifest.sections;
    if (!shards || written === null) return Promise.resolve(new Map());
    var q = asciiLower(written), key = nameKey(q);
    function endsWith(s, tail) { return s.length > tail.length && s.slice(-tail.length - 1) === '.' + tail; }
    return this.load(shardName('n', key, shards), checkNames).then(function (shard) {
      var out = new Map();
      (own.call(shard, key) ? shard[key] : []).forEach(function (e) {
        if (kinds !== null && kinds.indexOf(e[1]) < 0) return;
        if (e[2] >= sections) throw corrupt('manifest', 'an object-name shard refers to a section past the searchable ones');
        var lowered = asciiLower(e[0]);
        if (lowered === q) out.set(e[2], e[0] === written ? FULL_NAME : FULL_NAME_ANY_CASE);
        else if (endsWith(lowered, q)) out.set(e[2], endsWith(e[0], written) ? TAIL_NAME : TAIL_NAME_ANY_CASE);
      });
      return out;
    });
  };
  Engine.prototype.stemmer = function () {
    this.smartMeta();
    return this.stem();
  };
  // the build's segmenter on a Chinese, Japanese or Korean site, else null (smart.py segmenter)
  Engine.prototype.segmenter = function () {
    var found = this.smartMeta().segmenter;
    if (found !== undefined && found !== SEGMENTER) {
      fail('index_version_unsupported', 'this index splits CJK words with ' + pyRepr(found) + ', which this okf_sphinx does not know (it has ' +
        pyRepr(SEGMENTER) + '): rebuild the site or use the okf_sphinx that built it', { found: found, supported: [SEGMENTER] });
    }
    return found === undefined ? null : found;
  };
  // a stem group, from the posting shard that also holds its terms' lists (smart.py group)
  Engine.prototype.group = function (stem) {
    return this.load(shardName('t', stem, this.manifest.shards), checkShard).then(function (shard) { return own.call(shard.groups, stem) ? shard.groups[stem] : null; });
  };
  Engine.prototype.dictionary = function (key) {
    var name = shardName('d', key, this.smartMeta().dict_shards);
    return this.load(name, checkDict).then(function (shard) { return own.call(shard, key) ? shard[key] : []; });
  };
  // optimal-string-alignment distance over code points; cap + 1 once over cap (smart.py osa_distance)
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
  Engine.prototype.suggestions = function (word) {
    var cap = cpLen(word) <= 4 ? 1 : 2;
    return this.dictionary(dictKey(word)).then(function (entries) {
      var scored = [];
      entries.forEach(function (e) { var d = osaDistance(word, e[0], cap); if (d <= cap) scored.push([d, e[0]]); });
      scored.sort(function (x, y) { return x[0] - y[0]; });  // stable: the dictionary's order breaks ties
      return scored.slice(0, MAX_SUGGESTIONS).map(function (x) { return x[1]; });
    });
  };
  // smart.py completions: the most frequent completions of a prefix, from a few stem groups
  function completions(entries, word, have, stem) {
    var ownKey = postingKey(word, stem), groups = [], out = [];
    for (var i = 0; i < entries.length && out.length < MAX_COMPLETIONS; i++) {
      var t = entries[i];
      if (t.slice(0, word.length) !== word || own.call(have, t)) continue;
      var key = postingKey(t, stem);
      if (key !== ownKey && groups.indexOf(key) < 0) {
        if (groups.length === MAX_COMPLETION_GROUPS) continue;
        groups.push(key);
      }
      out.push(t);
    }
    return out;
  }
  // [[term, weight]...], section idf, page idf of one query word (smart.py variants)
  Engine.prototype.variants = function (word, stem, complete) {
    var self = this, out = [], sidf = 0.0, pidf = 0.0, g;
    return this.group(postingKey(word, stem)).then(function (grp) {
      g = grp;
      if (g !== null) {
        sidf = g[0]; pidf = g[1];
        var part = PART + word;  // the word as a unit of longer CJK terms (a part key)
        if (g[2].indexOf(word) >= 0) out.push([word, EXACT]);
        if (g[2].indexOf(part) >= 0) out.push([part, EXACT]);
        g[2].forEach(function (t) { if (t !== word && t !== part) out.push([t, STEM]); });
      }
      if (!(complete && cpLen(word) >= MIN_PREFIX)) return null;
      return self.dictionary(dictKey(word)).then(function (entries) {
        var have = {};
        out.forEach(function (x) { have[x[0]] = 1; });
        var extra = completions(entries.map(function (e) { return e[0]; }), word, have, stem);
        var first = extra.length && g === null ? self.group(postingKey(extra[0], stem)) : null;
        return Promise.resolve(first).then(function (f) {
          if (extra.length && g === null) {
            if (f === null) fail('index_corrupt', 'dictionary term ' + pyRepr(extra[0]) + ' has no stem group; rebuild the site');
            sidf = f[0]; pidf = f[1];
          }
          extra.forEach(function (t) { out.push([t, PREFIX]); });
        });
      });
    }).then(function () { return [out, sidf, pidf]; });
  };
  Engine.prototype.smart = function (query, limit, options, opts) {
    var self = this, words, norm, lim, prefix = own.call(options, 'prefix') ? options.prefix : false;
    var expand = own.call(options, 'expand') ? options.expand : false;
    var table, stem, forms, idfs, ev, unknown = [], filters, metas = {}, paths = [], idPostings = [], pageFilter = null, names;
    var found, swords, paired, said;  // the words smart mode matches: the query's terms, or on a CJK site their units
    return this.prepare(query, limit).then(function (q) {
      norm = q.norm;
      words = q.terms;
      lim = q.lim;
      if (typeof prefix !== 'boolean') fail('schema_validation', 'prefix must be true or false, got ' + pyRepr(prefix), { field: 'prefix' });
      if (typeof expand !== 'boolean') fail('schema_validation', 'expand must be true or false, got ' + pyRepr(expand), { field: 'expand' });
      filters = checkFilters(options.under, options.meta, options.kind);
      self.smartMeta();
      return Promise.all([self.load('smart', pageTableCheck(self.manifest.sections)), filters[1] !== null ? self.load('meta', checkMeta) : {}]).then(function (got) {
        return filters[0] === null ? got.concat([[]]) : self.load('paths', pathsCheck(got[0].rows.length)).then(function (p) { return got.concat([p]); });
      });
    }).then(function (got) {
      table = got[0]; metas = got[1]; paths = got[2];
      stem = self.stemmer();
      found = self.segmenter() === null ? words.map(function (w, i) { return [i, 0, w]; }) : queryUnits(words);
      swords = found.map(function (x) { return x[2]; });
      paired = swords.map(hasCjk);  // CJK units are neither completed nor spelled out
      said = function (chosen) { return segmentSpans(words, found, chosen); };
      return Promise.all(swords.map(function (w, i) { return self.variants(w, stem, prefix && i === swords.length - 1 && !paired[i]); }));
    }).then(function (vs) {
      forms = vs.map(function (v) { return v[0]; });
      idfs = vs.map(function (v) { return [v[1], v[2]]; });
      var idents = [];
      identifiers(query).forEach(function (i) { if (idents.indexOf(i) < 0 && idents.length < MAX_QUERY_IDENTIFIERS) idents.push(i); });
      return Promise.all([
        Promise.all(forms.map(function (fs) { return Promise.all(fs.map(function (x) { return self.posting(x[0]); })); })),
        Promise.all(idents.map(function (i) { return self.posting(i, 'x', self.smartMeta().id_shards); })),
        idents,
        self.named(query, filters[2])
      ]);
    }).then(function (got) {
      var postings = got[0], rows = table.rows, firsts = table.firsts;
      postings.forEach(function (ps, i) {
        ps.forEach(function (P, j) { if (P === null) fail('index_corrupt', 'stem group term ' + pyRepr(forms[i][j][0]) + ' has no postings; rebuild the site'); });
        if (!ps.length && !paired[i]) unknown.push(swords[i]);
      });
      idPostings = [];
      got[1].forEach(function (P, k) { if (P) idPostings.push([got[2][k], P]); });
      pageFilter = filters[0] !== null || filters[1] !== null ? function (page) { return pageOk(paths, page, filters[0], filters[1], metas); } : null;
      names = new Map();
      got[3].forEach(function (t, sid) { if (pageFilter === null || pageFilter(pageOf(firsts, sid))) names.set(sid, t); });
      if (filters[2] === null) return [postings, null];
      // a section-level filter: page sums change, so nothing cached applies (smart.py search)
      var seen = new Set();
      postings.forEach(function (ps) { ps.forEach(function (P) { P.sids.forEach(function (sid) { seen.add(sid); }); }); });
      var union = Array.from(seen).sort(function (x, y) { return x - y; }).filter(function (sid) { return pageFilter === null || pageFilter(pageOf(firsts, sid)); });
      return Promise.all(union.map(function (sid) { return self.section(sid); })).then(function (secs) {
        var allowed = new Set();
        union.forEach(function (sid, i) { if (filters[2].indexOf(own.call(secs[i], 'kind') ? secs[i].kind : 'section') >= 0) allowed.add(sid); });
        return [postings, allowed];
      });
    }).then(function (got) {
      var postings = got[0], allowed = got[1], rows = table.rows, ctx = [rows, table.firsts, self.manifest.avglen, self.smartMeta().pavglen];
      ev = postings.map(function (ps, i) {
        return self.evidence('w' + JSON.stringify(forms[i]), ps.map(function (P, j) { return [P, forms[i][j][1]]; }), idfs[i][0], idfs[i][1], ctx, allowed);
      });
      var iv = idPostings.map(function (x) { return self.evidence('x' + x[0], [[x[1], EXACT]], x[1].idf, x[1].idf, ctx, allowed); });
      // quoted phrases: the sections holding each, and the words whose section parts it adds again
      var quoted = phrases(norm, query).filter(function (ph) { return ph.every(function (t) { return swords.indexOf(t) >= 0; }); });
      var keep = function (sid) { return (allowed === null || allowed.has(sid)) && (pageFilter === null || pageFilter(pageOf(table.firsts, sid))); };
      return Promise.all(quoted.map(function (ph) { return self.phraseSections(ph, keep); })).then(function (sets) {
        return [ev, iv, quoted, sets.map(function (set, k) { return [set, quoted[k].map(function (t) { return ev[swords.indexOf(t)]; })]; })];
      });
    }).then(function (got) {
      var iv = got[1], quoted = got[2], pv = got[3], rows = table.rows;
      // pages: how many words each holds; when some page holds all, only those
      var count = new Map();
      ev.forEach(function (e) { e.pagePart.forEach(function (v, page) { count.set(page, (count.get(page) || 0) + 1); }); });
      var phrasePages = pv.map(function (x) {
        var pages = new Set();
        x[0].forEach(function (sid) { pages.add(pageOf(table.firsts, sid)); });
        pages.forEach(function (page) { count.set(page, count.get(page) + 1); });
        return pages;
      });
      var units = swords.length + pv.length;
      var candidates = Array.from(count.keys()).filter(function (page) { return pageFilter === null || pageFilter(page); });
      var full = candidates.some(function (page) { return count.get(page) === units; });
      if (full) candidates = candidates.filter(function (page) { return count.get(page) === units; });
      // the objects the whole query names: each page's best tier, its named sections (they rank first)
      var tier = new Map(), namedOf = new Map();
      Array.from(names.keys()).sort(function (x, y) { return x - y; }).forEach(function (sid) {
        var page = pageOf(table.firsts, sid), t = names.get(sid);
        if (!tier.has(page) || t < tier.get(page)) tier.set(page, t);
        if (!namedOf.has(page)) namedOf.set(page, []);
        namedOf.get(page).push(sid);
      });
      Array.from(tier.keys()).sort(function (x, y) { return x - y; }).forEach(function (page) {
        if (candidates.indexOf(page) < 0) candidates.push(page);
        if (!count.has(page)) count.set(page, 0);
      });
      var scored = new Map(), single = ev.length === 1 && !iv.length && !pv.length && !tier.size ? ev[0] : null;
      var ranked = candidates.map(function (page) {
        var best, score = 0.0;
        if (single !== null) best = single.pageBest.get(page);
        else {
          var secs = sectionScores(ev, iv, pv, page, namedOf.get(page) || []);
          scored.set(page, secs);
          best = secs[0][0];
          for (var j = 1; j < secs.length; j++) if (secs[j][0] > best) best = secs[j][0];
        }
        ev.forEach(function (e) { var v = e.pagePart.get(page); if (v !== undefined) score += v; });
        iv.forEach(function (e) { var v = e.pagePart.get(page); if (v !== undefined) score += v; });
        return [count.get(page), (score + best) * rows[page][3], page, tier.has(page) ? tier.get(page) : UNNAMED];
      });
      ranked.sort(function (x, y) { return x[3] !== y[3] ? x[3] - y[3] : x[0] !== y[0] ? y[0] - x[0] : x[1] !== y[1] ? (x[1] > y[1] ? -1 : 1) : x[2] - y[2]; });
      // smart.py _page: the first hit always, further ones that clear SUB_HIT_FLOOR × its score
      var subHits = function (top) {
        var floor = SUB_HIT_FLOOR * top[0][0];
        return top.filter(function (t, j) { return j === 0 || t[0] >= floor; }).slice(0, HITS_PER_PAGE);
      };
      var shown = ranked.slice(0, lim).map(function (r) {
        var top = (scored.get(r[2]) || sectionScores(ev, iv, pv, r[2], namedOf.get(r[2]) || [])).slice();
        var tierOf = function (sid) { return names.has(sid) ? names.get(sid) : UNNAMED; };
        top.sort(function (x, y) { var a = tierOf(x[1]), b = tierOf(y[1]); return a !== b ? a - b : x[0] !== y[0] ? (x[0] > y[0] ? -1 : 1) : x[1] - y[1]; });
        var missing = said(swords.map(function (w, i) { return i; }).filter(function (i) { return !ev[i].pagePart.has(r[2]); }));
        quoted.forEach(function (ph, k) { if (!phrasePages[k].has(r[2])) missing.push('"' + ph.join(' ') + '"'); });
        return { rank: r, missing: missing, top: subHits(top), partial: !full || count.get(r[2]) < units };
      });
      return Promise.all([
        Promise.all(shown.map(function (p) { return Promise.all(p.top.map(function (t) { return self.section(t[1]); })); })),
        Promise.all(unknown.map(function (w) { return self.suggestions(w); })),
        Promise.resolve(shown), Promise.resolve(full), Promise.resolve(ranked.length)
      ]);
    }).then(function (got) {
      var secs = got[0], sugg = got[1], shown = got[2], full = got[3], total = got[4];
      return Promise.all(shown.map(function (p, n) {
        var terms = [], matched = [];
        p.top.forEach(function (t) {
          var sid = t[1], ts = [], ms = [];
          ev.forEach(function (e, i) {
            if (!e.acc.has(sid)) return;
            ms.push(i);
            forms[i].forEach(function (x) { var P = self.postings[x[0]]; if (P && sidIn(P.sids, sid)) ts.push(x[0]); });
          });
          terms.push(ts); matched.push(said(ms));
        });
        return self.hits(norm, secs[n], terms, p.top.map(function (t) { return t[0]; }), matched, opts).then(function (hits) {
          var top = secs[n][0];
          return {
            concept_id: top.concept_id, title: top.title, path: top.page_path, url: top.url.split('#')[0],
            score: p.rank[1], partial: p.partial, missing_terms: p.missing, hits: hits
          };
        });
      })).then(function (pages) {
        if (!expand) return [pages, null];
        var sources = [];
        shown.forEach(function (p) { p.top.forEach(function (t) { sources.push(t[1]); }); });
        var keep = function (sid) {
          if (pageFilter !== null && !pageFilter(pageOf(table.firsts, sid))) return false;
          if (filters[2] === null) return true;
          return self.section(sid).then(function (s) { return filters[2].indexOf(own.call(s, 'kind') ? s.kind : 'section') >= 0; });
        };
        return self.expanded(sources, keep).then(function (more) { return [pages, more]; });
      }).then(function (got) {
        var result = {
          query: query, mode: 'smart', terms: words, snapshot_revision: self.manifest.snapshot_revision,
          total: total, truncated: total > lim, pages: got[0]
        };
        if (got[1] !== null) result.expanded = got[1];
        result.suggestions = unknown.map(function (w, i) { return { term: w, candidates: sugg[i] }; });
        var size = jsonBytes(result);
        if (!(opts && opts.present) && size > MAX_BYTES) fail('resource_limit', 'the answer is ' + size + ' bytes, over the 1 MiB limit: lower limit', { limit: MAX_BYTES, actual: size });
        return result;
      });
    });
  };
  // link expansion (smart.py links / expanded)
  var MAX_EXPANDED = 5, VIAS = ['ref', 'doc', 'toctree', 'object'];
  function checkLinks(name, v) {
    if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.keys(v).every(function (k) {
      return /^[0-9]+$/.test(k) && Array.isArray(v[k]) && v[k].every(function (x) { return Array.isArray(x) && x.length === 2 && isInt(x[0]) && x[0] >= 0 && VIAS.indexOf(x[1]) >= 0; });
    })) throw corrupt(name, 'a link shard is malformed');
    return v;
  }
  Engine.prototype.links = function (sid) {
    var firsts = this.manifest.smart.link_firsts;
    if (firsts === undefined || firsts === null) fail('index_version_unsupported', 'this index has no link data (built by an older okf_sphinx): rebuild the site, or leave out expand');
    if (!Array.isArray(firsts) || !firsts.every(function (f, i) { return isInt(f) && f >= 0 && (i === 0 || firsts[i - 1] < f); })) throw corrupt('manifest', 'smart.link_firsts is invalid');
    var k = pageOf(firsts, sid);
    if (k < 0) return Promise.resolve([]);
    return this.load('l/' + k.toString(16), checkLinks).then(function (shard) { return own.call(shard, String(sid)) ? shard[String(sid)] : []; });
  };
  // the sections the hits (sources, in answer order) link to: each once, none a hit, those keep() allows
  Engine.prototype.expanded = function (sources, keep) {
    var self = this, seen = new Set(sources), picked = [], i = 0;
    function next() {
      if (i >= sources.length) return Promise.resolve();
      var from = sources[i++];
      return Promise.resolve(self.links(from)).then(function (links) {
        var j = 0;
        function step() {
          if (j >= links.length || picked.length >= MAX_EXPANDED) return Promise.resolve();
          var to = links[j][0], via = links[j][1];
          j++;
          if (seen.has(to)) return step();
          if (to >= self.manifest.sections) throw corrupt('manifest', 'a link shard refers to a section past the searchable ones');
          seen.add(to);
          return Promise.resolve(keep(to)).then(function (ok) { if (ok) picked.push([to, via, from]); return step(); });
        }
        return step();
      }).then(function () { return picked.length >= MAX_EXPANDED ? null : next(); });
    }
    return next().then(function () {
      return Promise.all(picked.map(function (x) { return Promise.all([self.section(x[0]), self.section(x[2])]); }));
    }).then(function (secs) {
      return secs.map(function (pair, n) {
        var s = pair[0];
        if (!s.searchable) fail('index_corrupt', 'posting refers to non-searchable section ' + s.sid + '; rebuild the site');
        return {
          concept_id: s.concept_id, title: s.title, path: s.path, heading: s.heading, url: s.url, locator: s.locator,
          line_start: s.line_start, line_end: s.line_end, content_sha256: s.content_sha256,
          snippet: cpSlice(s.text, 0, SNIP), via: picked[n][1], from: pair[1].locator
        };
      });
    });
  };
  // [score, sid] of the page's sections that hold a word (smart.py _section_scores)
  function sectionScores(ev, iv, pv, page, namedSids) {
    var set = new Set(namedSids);
    ev.forEach(function (e) { (e.byPage.get(page) || []).forEach(function (sid) { set.add(sid); }); });
    return Array.from(set).sort(function (x, y) { return x - y; }).map(function (sid) {
      var score = 0.0;
      ev.forEach(function (e) { var v = e.sec.get(sid); if (v !== undefined) score += v; });
      iv.forEach(function (e) { var v = e.sec.get(sid); if (v !== undefined) score += v; });
      pv.forEach(function (x) { if (x[0].has(sid)) x[1].forEach(function (e) { score += e.sec.get(sid); }); });
      return [score, sid];
    });
  }
  var MAX_PHRASES = 4, MAX_PHRASE_SECTIONS = 200;
  // smart.py phrases: quoted phrases of at least two terms, distinct, in order
  function phrases(norm, query) {
    var marks = [], re = /["\u201c\u201d]/g, m, out = [];
    while ((m = re.exec(query)) !== null) marks.push(m.index);
    for (var i = 0; i + 1 < marks.length; i += 2) {
      var terms = norm.terms(query.slice(marks[i] + 1, marks[i + 1]));
      if (terms.length >= 2 && !out.some(function (o) { return o.join('\u0000') === terms.join('\u0000'); }) && out.length < MAX_PHRASES) out.push(terms);
    }
    return out;
  }
  function holdsPhrase(terms, phrase) {
    for (var i = 0; i + phrase.length <= terms.length; i++) {
      var j = 0;
      while (j < phrase.length && terms[i + j] === phrase[j]) j++;
      if (j === phrase.length) return true;
    }
    return false;
  }
  // smart.py _phrase_sections: sections holding the phrase's words in order, checked in their text
  Engine.prototype.phraseSections = function (phrase, keep) {
    var self = this;
    return Promise.all(phrase.map(function (t) { return self.posting(t); })).then(function (ps) {
      if (ps.some(function (P) { return P === null; })) return new Set();
      var both = ps[0].sids.filter(function (sid) { return ps.slice(1).every(function (P) { return sidIn(P.sids, sid); }) && keep(sid); });
      var checked = both.slice(0, MAX_PHRASE_SECTIONS);
      return Promise.all(checked.map(function (sid) { return self.section(sid); })).then(function (secs) {
        var need = secs.some(function (s) { return !isAscii(s.text); }) ? self.tables() : null;
        return Promise.resolve(need).then(function (full) {
          var found = new Set();
          secs.forEach(function (s, i) { if (holdsPhrase((isAscii(s.text) ? ASCII : full).terms(s.text), phrase)) found.add(checked[i]); });
          both.slice(MAX_PHRASE_SECTIONS).forEach(function (sid) { found.add(sid); });
          return found;
        });
      });
    });
  };
  var CACHE_WORDS = 256;
  // one word's (or identifier's) evidence, cached per engine when unfiltered (smart.py _evidence)
  Engine.prototype.evidence = function (key, postings, sidf, pidf, ctx, allowed) {
    var cache = this.evidenceCache || (this.evidenceCache = new Map());
    if (allowed === null && cache.has(key)) return cache.get(key);
    var rows = ctx[0], firsts = ctx[1], avglen = ctx[2], pavglen = ctx[3];
    var acc = new Map(), length = new Map();
    postings.forEach(function (x) {
      var P = x[0], weight = x[1];
      for (var k = 0; k < P.sids.length; k++) {
        var sid = P.sids[k];
        if (allowed !== null && !allowed.has(sid)) continue;
        var prev = acc.get(sid);
        acc.set(sid, (prev === undefined ? 0.0 : prev) + weight * P.fs[k]);
        length.set(sid, P.lens[k]);
      }
    });
    var sec = new Map(), byPage = new Map(), ptf = new Map(), pagePart = new Map(), pageBest = new Map();
    acc.forEach(function (f, sid) { sec.set(sid, bm25Part(sidf, f, length.get(sid), avglen)); });
    Array.from(acc.keys()).sort(function (x, y) { return x - y; }).forEach(function (sid) {
      var page = pageOf(firsts, sid), list = byPage.get(page);
      if (!list) byPage.set(page, list = []);
      list.push(sid);
      ptf.set(page, (ptf.get(page) || 0.0) + acc.get(sid));
      var b = pageBest.get(page), v = sec.get(sid);
      if (b === undefined || v > b) pageBest.set(page, v);
    });
    ptf.forEach(function (tf, page) { pagePart.set(page, bm25Part(pidf, tf, rows[page][2], pavglen)); });
    var e = { acc: acc, sec: sec, byPage: byPage, pagePart: pagePart, pageBest: pageBest };
    if (allowed === null) {
      if (cache.size >= CACHE_WORDS) cache.delete(cache.keys().next().value);
      cache.set(key, e);
    }
    return e;
  };
  function pageOf(firsts, sid) {  // bisect_right(firsts, sid) - 1
    var lo = 0, hi = firsts.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (sid < firsts[mid]) hi = mid; else lo = mid + 1; }
    return lo - 1;
  }
  function sidIn(a, sid) {
    var lo = 0, hi = a.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (a[mid] < sid) lo = mid + 1; else hi = mid; }
    return a[lo] === sid;
  }
  // Terms of arbitrary text with the tables this query needs (for highlighting).
  Engine.prototype.normaliser = function (text) {
    return isAscii(text) ? Promise.resolve(ASCII) : this.tables();
  };

  // -- loaders -------------------------------------------------------------------------------
  // Browser: one <script> per file; the wrapper calls okfLoad(name, value) while the tag runs.
  function scriptLoader(base) {
    root.okfLoad = function (name, value) {
      var s = doc.currentScript;
      if (s && s.okfName !== undefined) { if (name === s.okfName) s.okfValue = [value]; else s.okfBad = 1; }
    };
    return function (name, fresh) {
      return new Promise(function (resolve, reject) {
        var s = doc.createElement('script');
        s.okfName = name;
        s.async = true;
        s.src = base + name + '.js' + (fresh ? '?fresh=' + Date.now() : '');
        s.onload = function () {
          s.remove();
          if (s.okfValue && !s.okfBad) resolve(s.okfValue[0]);
          else reject(new OkfError('index_corrupt', 'index file ' + name + '.js does not have the okfLoad wrapper for ' + pyRepr(name) + ' (truncated or foreign); rebuild the site', { file: name + '.js' }));
        };
        s.onerror = function () {
          s.remove();
          reject(new OkfError(name === 'manifest' ? 'index_not_found' : 'index_corrupt', 'index file ' + name + '.js could not be loaded from ' + base + '; rebuild the site', { file: name + '.js' }));
        };
        doc.head.appendChild(s);
      });
    };
  }
  // Node: read the file, check the exact wrapper, JSON.parse the value (never eval).
  function nodeLoader(dir) {
    var fs = require('fs'), path = require('path');
    var loader = function (name) {
      var data;
      try { data = fs.readFileSync(path.join(dir, name + '.js')); } catch (e) {
        fail(name === 'manifest' ? 'index_not_found' : 'index_corrupt', 'index file ' + name + '.js under ' + dir + ' is missing; rebuild the site', { file: name + '.js' });
      }
      var text;
      try { text = new TextDecoder('utf-8', { fatal: true }).decode(data); } catch (e) {
        fail('index_corrupt', 'index file ' + name + '.js is not UTF-8; rebuild the site', { file: name + '.js' });
      }
      var head = 'okfLoad(' + JSON.stringify(name) + ',';
      if (text.slice(0, head.length) !== head || text.slice(-3) !== ');\n') fail('index_corrupt', 'index file ' + name + '.js does not have the okfLoad wrapper for ' + pyRepr(name) + ' (truncated or foreign); rebuild the site', { file: name + '.js' });
      try { return JSON.parse(text.slice(head.length, -3)); } catch (e) {
        fail('index_corrupt', 'index file ' + name + '.js holds invalid JSON; rebuild the site', { file: name + '.js' });
      }
    };
    loader.revalidate = true; // a local file: re-reading the manifest costs nothing
    return loader;
  }

  var api = {
    Engine: Engine, OkfError: OkfError, scriptLoader: scriptLoader, nodeLoader: nodeLoader,
    fnv1a32: fnv1a32, pyRepr: pyRepr, cpSlice: cpSlice, Normaliser: Normaliser,
    segment: { SEGMENTER: SEGMENTER, RANGES: CJK_RANGES, MAX_UNITS: MAX_UNITS, isCjk: isCjk, parts: segmentParts, units: segmentUnits, queryUnits: queryUnits, spans: segmentSpans }
  };
  var defaultEngine = null;
  // The site's default index: the search page's data-okf-index, else this script tag's (MkDocs),
  // else ../_okf/ beside _static/.
  api.engine = function () {
    if (!defaultEngine) {
      var el = doc.getElementById('okf-search'), base = el && el.getAttribute('data-okf-index');
      base = base || (thisScript && thisScript.getAttribute('data-okf-index'));
      base = base ? new URL(base, doc.baseURI).href : new URL('../_okf/', thisScript ? thisScript.src : doc.baseURI).href;
      defaultEngine = new Engine(scriptLoader(base));
    }
    return defaultEngine;
  };
  api.search = function (query, limit, opts) { return api.engine().search(query, limit, opts); };

  // [start, end) UTF-16 offsets of the runs of text whose terms are query terms (or, with stem,
  // their word forms; with prefix, words starting with it); used by highlight and page landing.
  // With segmented (a Chinese, Japanese or Korean site: Engine.segmenter()), inside a run that
  // holds CJK text the query's CJK units are marked where they occur, and its other parts when
  // they are query words: the pieces smart mode matched, not the whole run.
  function matches(norm, text, terms, stem, prefix, segmented) {
    var wanted = {}, out = [], pairs = {}, anyPair = false;
    terms.forEach(function (t) { wanted[t] = 1; if (stem) wanted['\u0000' + stem(t)] = 1; });
    if (segmented) terms.forEach(function (t) { segmentUnits(t).forEach(function (u) { if (hasCjk(u[1])) { pairs[u[1]] = 1; anyPair = true; } else wanted[u[1]] = 1; }); });
    function want(t) { return own.call(wanted, t) || (stem && own.call(wanted, '\u0000' + stem(t))) || (prefix && t.length > prefix.length && t.slice(0, prefix.length) === prefix); }
    function odd(j) { var c = j >= 0 && j < text.length ? cpAt(text, j) : 32; return c > 127 && !isSep(c); }
    norm.runs(text).forEach(function (r) {
      if (segmented && hasCjk(r[2])) {  // the pieces of a CJK run (display only: raw text, case-folded Latin parts)
        var at = r[1];
        segmentParts(r[2]).forEach(function (p) {
          var piece = p[1], from = at;
          at += piece.length;
          if (!p[2]) { if (norm.terms(piece).some(want)) out.push([from, from + piece.length]); return; }
          if (!anyPair) return;
          Object.keys(pairs).forEach(function (u) {
            for (var k = piece.indexOf(u); k >= 0; k = piece.indexOf(u, k + 1)) out.push([from + k, from + k + u.length]);
          });
        });
        return;
      }
      if (!norm.terms(r[2]).some(want)) return;
      var end = r[1] + r[2].length;  // without the tables, skip runs glued to unknown letters
      var b = r[1] - 1;
      if (b > 0 && (text.charCodeAt(b) & 0xfc00) === 0xdc00) b--;
      if (!norm.t && (odd(end) || odd(b))) return;
      out.push([r[1], end]);
    });
    if (!segmented) return out;
    // overlapping or touching marks of one run (数据 + 据库) become one
    out.sort(function (x, y) { return x[0] - y[0] || x[1] - y[1]; });
    return out.reduce(function (acc, m) {
      var last = acc[acc.length - 1];
      if (last && m[0] <= last[1]) last[1] = Math.max(last[1], m[1]); else acc.push([m[0], m[1]]);
      return acc;
    }, []);
  }
  api.matches = matches;
  // snippet text as a <p class=okf-snippet> (text nodes only) with the matches() runs wrapped in
  // <mark>; used by the search page and the dialog
  function highlight(norm, text, terms, stem, prefix, segmented) {
    var p = doc.createElement('p'), at = 0;
    p.className = 'okf-snippet';
    matches(norm, text, terms, stem, prefix, segmented).forEach(function (r) {
      if (r[0] > at) p.appendChild(doc.createTextNode(text.slice(at, r[0])));
      var m = doc.createElement('mark'); m.textContent = text.slice(r[0], r[1]); p.appendChild(m);
      at = r[1];
    });
    if (at < text.length) p.appendChild(doc.createTextNode(text.slice(at)));
    return p;
  }
  api.highlight = highlight;

  // -- the search page -----------------------------------------------------------------------
  // results per step: 10 sections in keyword mode; 5 pages (each with up to 3 sections) in
  // smart mode, as Pagefind's UI shows 5 — the first answer reads the sections it shows
  var PAGE = 10, SMART_PAGE = 5;
  var VIA_SAID = { ref: 'linked from a result', doc: 'a page a result links to', toctree: 'in a result\u2019s table of contents', object: 'an object a result names' };
  function initPage() {
    var box = doc.getElementById('okf-search');
    if (!box) return;
    var form = box.querySelector('form'), input = box.querySelector('input[name=q]');
    var status = box.querySelector('.okf-status'), list = box.querySelector('.okf-results');
    var more = box.querySelector('.okf-more'), siteRoot = box.getAttribute('data-okf-root') || '';
    var token = 0, current = null, shown = PAGE;
    var defaultMode = box.getAttribute('data-okf-mode') === 'keyword' ? 'keyword' : 'smart', mode = defaultMode;
    function pageSize() { return mode === 'smart' ? SMART_PAGE : PAGE; }
    var under = null, kinds = [], expand = false;  // smart options, from the URL (?under=guide&kind=py:function&expand=1)

    function el(tag, cls, text) {
      var e = doc.createElement(tag);
      if (cls) e.className = cls;
      if (text !== undefined) e.textContent = text;
      return e;
    }
    function say(text, isError) {
      status.textContent = text;
      status.className = 'okf-status' + (isError ? ' okf-error' : '');
    }
    var segmented = null;  // the answer's site splits CJK words (smart mode): marks inside runs
    function highlighted(norm, text, terms, stem) { return highlight(norm, text, terms, stem, undefined, segmented); }
    // one section row (keyword hits; smart hits inside their page)
    function hitItem(h, result, norm, stem, pageTitle) {
      // url "" = a section this build renders nowhere (singlehtml: a page outside the toctree)
      var li = el('li', 'okf-hit'), a = el(h.url ? 'a' : 'span', 'okf-link');
      if (h.url) a.href = siteRoot + h.url;
      a.appendChild(el('span', 'okf-heading', h.heading || h.title || h.concept_id));
      li.appendChild(a);
      // a documented object: its kind as a badge, its signature as code (text only)
      if (h.kind) li.insertBefore(el('span', 'okf-kind', h.kind), a);
      if (h.signature) li.appendChild(el('span', 'okf-signature', h.signature));
      if (!pageTitle && h.heading && h.title && h.heading !== h.title) li.appendChild(el('span', 'okf-page', h.title));
      var snip = highlighted(norm, h.snippet, result.terms, stem);
      if (h.snippet_offset > 0) snip.insertBefore(doc.createTextNode('\u2026 '), snip.firstChild);
      if (h.snippet_offset + cpLen(h.snippet) < h.text_length) snip.appendChild(doc.createTextNode(' \u2026'));
      li.appendChild(snip);
      return li;
    }
    // link expansion (?expand=1): the sections the results link to, after the results, each with
    // how it is linked (via) — a list of its own, never counted in the status line's total
    var related = null;
    function renderRelated(items) {
      if (!related) {
        related = el('section', 'okf-related');
        related.setAttribute('aria-labelledby', 'okf-related-title');
        list.parentNode.insertBefore(related, list.nextSibling);
      }
      related.textContent = '';
      related.hidden = !items.length;
      if (!items.length) return;
      var title = el('h2', 'okf-related-title', 'Linked from these results');
      title.id = 'okf-related-title';
      related.appendChild(title);
      var ol = el('ol', 'okf-sections');
      items.forEach(function (e) {
        var li = el('li', 'okf-related-hit'), a = el(e.url ? 'a' : 'span', 'okf-link');
        if (e.url) a.href = siteRoot + e.url;
        a.appendChild(el('span', 'okf-heading', e.heading || e.title || e.concept_id));
        li.appendChild(a);
        if (e.heading && e.title && e.heading !== e.title) li.appendChild(el('span', 'okf-page', e.title));
        li.appendChild(el('span', 'okf-via', VIA_SAID[e.via] || e.via));
        ol.appendChild(li);
      });
      related.appendChild(ol);
    }
    function renderSmart(result, norm, stem) {
      list.textContent = '';
      renderRelated(result.expanded || []);
      var n = result.pages.length, partial = n > 0 && result.pages[0].partial;
      var msg;
      if (!result.total) msg = 'No page contains ' + result.terms.join(', ') + '.';
      else if (partial) msg = 'No page contains all of: ' + result.terms.join(', ') + '. ' + result.total + (result.total === 1 ? ' page has' : ' pages have') + ' some of them' + (result.truncated ? '; showing the first ' + n + '.' : '.');
      else msg = result.total + (result.total === 1 ? ' page matches' : ' pages match') + (result.truncated ? '; showing the first ' + n + '.' : '; showing all ' + n + '.');
      if (under || kinds.length) msg += ' Filters: ' + (under ? 'under ' + under : '') + (under && kinds.length ? '; ' : '') + (kinds.length ? 'kind ' + kinds.join(', ') : '') + '.';
      result.suggestions.forEach(function (s) {
        if (s.candidates.length) msg += ' No page has \u201c' + s.term + '\u201d: did you mean ' + s.candidates.join(', ') + '?';
      });
      say(msg);
      result.pages.forEach(function (pg) {
        var li = el('li', 'okf-page-result'), a = el(pg.url ? 'a' : 'span', 'okf-page-link', pg.title || pg.concept_id);
        if (pg.url) a.href = siteRoot + pg.url;
        li.appendChild(a);
        if (pg.partial) li.appendChild(el('span', 'okf-missing', 'Missing: ' + pg.missing_terms.join(', ')));
        var ol = el('ol', 'okf-sections');
        pg.hits.forEach(function (h) { ol.appendChild(hitItem(h, result, norm, stem, true)); });
        li.appendChild(ol);
        list.appendChild(li);
      });
      if (more) more.hidden = !(result.truncated && n < 100);
    }
    function render(result, norm, stem) {
      if (result.mode === 'smart') return renderSmart(result, norm, stem);
      list.textContent = '';
      if (related) renderRelated([]);
      var n = result.hits.length;
      if (!result.total) say('No section contains all of: ' + result.terms.join(', ') + '.');
      else say(result.total + (result.total === 1 ? ' section matches' : ' sections match') + (result.truncated ? '; showing the first ' + n + '.' : '; showing all ' + n + '.'));
      result.hits.forEach(function (h) { list.appendChild(hitItem(h, result, norm, null, false)); });
      if (more) more.hidden = !(result.truncated && n < 100);
    }
    function run(q) {
      var mine = ++token;
      current = q;
      if (!q) { list.textContent = ''; say(''); if (more) more.hidden = true; if (related) renderRelated([]); return Promise.resolve(); }
      say('Searching\u2026');
      var eng = api.engine();
      var opts = { mode: mode, limit: Math.min(shown, 100), present: true };
      if (mode === 'smart' && under) opts.under = under;
      if (mode === 'smart' && kinds.length) opts.kind = kinds;
      if (mode === 'smart' && expand) opts.expand = true;
      return eng.search(q, opts).then(function (result) {
        return eng.normaliser(q).then(function (norm) {
          var stem = result.mode === 'smart' ? eng.stemmer() : null;
          segmented = result.mode === 'smart' ? eng.segmenter() : null;
          if (mine === token) render(result, norm, stem);
        });
      }, function (err) {
        if (mine !== token) return;
        list.textContent = '';
        if (more) more.hidden = true;
        if (related) renderRelated([]);
        say(err instanceof OkfError ? err.message : 'Search failed: ' + err, true);
      }).then(function () { if (mine === token) box.setAttribute('data-okf-state', 'done'); });
    }
    // The whole state is in the URL: ?q=…&mode=…&n=…&under=…&kind=… (mode only when not the
    // page's default, n only past the first page), so reload, Back/Forward and a shared link
    // show the same results.
    function fromUrl() {
      var p = new URLSearchParams(root.location.search), m = p.get('mode'), n = parseInt(p.get('n'), 10);
      mode = m === 'smart' || m === 'keyword' ? m : defaultMode;
      var k = pageSize();
      shown = n > k ? Math.min(100, Math.ceil(n / k) * k) : k;
      under = p.get('under') || null;
      kinds = p.getAll('kind').filter(function (k) { return k; });
      expand = p.get('expand') === '1';
      return p.get('q') || '';
    }
    function toUrl(q) {
      var p = new URLSearchParams();
      p.set('q', q);
      if (mode !== defaultMode) p.set('mode', mode);
      if (shown > pageSize()) p.set('n', String(shown));
      if (under) p.set('under', under);
      kinds.forEach(function (k) { p.append('kind', k); });
      if (expand) p.set('expand', '1');
      return '?' + p.toString();
    }
    function record(q, replace) {
      var next = toUrl(q);
      if (next === root.location.search) return;
      try { root.history[replace ? 'replaceState' : 'pushState']({ okf: q }, '', next); } catch (e) { /* file:// in some browsers */ }
    }
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var q = input.value;
      shown = pageSize();
      record(q, false);
      box.setAttribute('data-okf-state', 'busy');
      run(q);
    });
    if (more) more.addEventListener('click', function () {
      shown += pageSize();
      record(current, true);  // how many are shown: reload and a shared link show as many
      box.setAttribute('data-okf-state', 'busy');
      run(current).then(function () {
        // the first result the click added: a section (keyword mode) or a page (smart mode)
        var first = list.children[shown - pageSize()], link = first && first.querySelector('a');
        if (link) link.focus();
      });
    });
    root.addEventListener('popstate', function () {
      input.value = fromUrl();
      box.setAttribute('data-okf-state', 'busy');
      run(input.value);
    });
    input.value = fromUrl();
    if (input.value) { box.setAttribute('data-okf-state', 'busy'); run(input.value); }
    else box.setAttribute('data-okf-state', 'done');
  }
  if (doc) {
    if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', initPage);
    else initPage();
  }
  return api;
});
