/* Mirrors okf_sphinx/core/index_format.py: the on-disk format of docs/index-format.md as a
 * reader needs it: the okfLoad wrapper, shards, integer lists, section records, the canonical
 * JSON whose size the 1 MiB cap counts, smart mode's keys, and BM25's one formula. */
define('core/index_format', function (use) {
  'use strict';
  var C = use('core/constants'), S = use('core/strings'), errors = use('core/errors');
  var OkfError = errors.OkfError;
  var own = Object.prototype.hasOwnProperty;

  // an integer (JSON has one number type: true is never 1)
  function isInt(v) { return typeof v === 'number' && Number.isInteger(v); }

  // Compact JSON as Python's json.dumps writes it (floats as Python's repr) with the HTML-unsafe
  // characters escaped; sortKeys (default true) orders object keys by code point.
  var UNSAFE = /[<>&\u2028\u2029]/g;
  function canonicalJson(value, sortKeys) {
    sortKeys = sortKeys === undefined ? true : sortKeys;
    if (typeof value === 'number') return Number.isInteger(value) ? String(value) : floatRepr(value);
    if (typeof value === 'string') {
      return JSON.stringify(value).replace(UNSAFE, function (c) { return '\\u' + ('000' + c.charCodeAt(0).toString(16)).slice(-4); });
    }
    if (value === null || typeof value !== 'object') return String(value);
    if (Array.isArray(value)) return '[' + value.map(function (v) { return canonicalJson(v, sortKeys); }).join(',') + ']';
    var keys = Object.keys(value);
    if (sortKeys) keys.sort(S.cpCompare);
    return '{' + keys.map(function (k) { return canonicalJson(k) + ':' + canonicalJson(value[k], sortKeys); }).join(',') + '}';
  }
  // Python's repr of a float (json.dumps writes floats so): the shortest digits, placed by
  // Python's rule (exponent form below 1e-4 and from 1e16)
  function floatRepr(v) {
    if (v !== v) return 'NaN';
    if (!isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
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

  // The value of index file name from its bytes, never evaluated.
  function unwrap(name, data) { return unwrapFile(name, data)[1]; }
  // [build, value] of index file name from its bytes (okfLoad("<name>","<build>",<json>);\n exactly):
  // the identity of the build that wrote it (null before format 5, which names none) and its value.
  var BUILD = new RegExp('^"([0-9a-f]{' + C.BUILD_DIGITS + '})",');
  function unwrapFile(name, data) {
    var text;
    try { text = new TextDecoder('utf-8', { fatal: true }).decode(data); } catch (e) {
      throw new OkfError('index_corrupt', 'index file ' + name + '.js is not UTF-8; rebuild the site', { file: name + '.js' });
    }
    var head = 'okfLoad(' + JSON.stringify(name) + ',';
    if (text.slice(0, head.length) !== head || text.slice(-3) !== ');\n') {
      throw new OkfError('index_corrupt', 'index file ' + name + '.js does not have the okfLoad wrapper for ' + errors.jsonText(name) +
        ' (truncated or foreign); rebuild the site', { file: name + '.js' });
    }
    var build = BUILD.exec(text.slice(head.length, head.length + C.BUILD_DIGITS + 3));
    try { return [build ? build[1] : null, JSON.parse(text.slice(head.length + (build ? build[0].length : 0), -3))]; } catch (e) {
      throw new OkfError('index_corrupt', 'index file ' + name + '.js holds invalid JSON; rebuild the site', { file: name + '.js' });
    }
  }

  function fnv1a32(term) {
    var h = 0x811c9dc5, b = S.utf8(term);
    for (var i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 0x01000193) >>> 0;
    return h;
  }
  // What picks the t/ shard of posting key key: its first POSTING_SHARD_CODE_POINTS code points,
  // or more when the manifest's shard_depths (depths) names that start (format_version 8).
  function shardKey(key, depths) {
    var points = Array.from(key), start = points.slice(0, C.POSTING_SHARD_CODE_POINTS).join('');
    return depths && own.call(depths, start) ? points.slice(0, depths[start]).join('') : start;
  }
  // The posting shard of key: t/<hex> (a term's stem group, by shardKey; depths: the manifest's
  // shard_depths) or x/<hex> (identifiers as written, by the whole key).
  function shardName(key, shards, folder, depths) {
    folder = folder || 't';
    return folder + '/' + (fnv1a32(folder === 't' ? shardKey(key, depths) : key) % shards).toString(16);
  }
  // What places a term's posting list: its stem when the build stemmed; else the term. A part
  // key (" 数据", core/segment.js) is placed by its unit.
  function postingKey(term, stem) {
    if (term.charAt(0) === C.PART) term = term.slice(1);
    return stem ? stem(term) : term;
  }

  // Integer lists written as text (encode_ints): null unless canonical.
  var DIGIT = [];
  for (var dv = 0; dv < 128; dv++) DIGIT.push(C.INT_DIGITS.indexOf(String.fromCharCode(dv)));
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
      } else if (shift === 5 * (C.MAX_INT_DIGITS - 1)) return null;
      else { n += (d - 32) * mult; mult *= 32; shift += 5; }
    }
    return shift ? null : out;
  }

  // A section's URL from its page's base and its anchor.
  function sectionUrl(base, anchor) { return anchor ? base.split('#')[0] + '#' + anchor : base; }
  // The first sid of each section file, from the manifest's (checked) section_files.
  function sectionStarts(sectionFiles) {
    var counts = decodeInts(sectionFiles) || [], out = [], at = 0;
    counts.forEach(function (n) { out.push(at); at += n; });
    return out;
  }
  // The number k of the section file s/<k> holding sid.
  function sectionFileOf(starts, sid) { return S.bisectRight(starts, sid) - 1; }
  // The section records a checked section file holds, in sid order.
  function sectionRecords(chunk) {
    var pages = chunk.pages, files = chunk.files, first = chunk.first;
    return chunk.sections.map(function (row, i) {
      var p = pages[row[0]], f = files[row[1]];
      var rec = {
        sid: first + i, concept_id: p[0], title: p[1], path: f[0], heading: row[2], level: row[3], line_start: row[4],
        line_end: row[5], locator: (f.length === 3 ? f[2] : f[0]) + '#L' + row[4] + '-L' + row[5], content_sha256: f[1],
        url: sectionUrl(p[3], row[6]), anchor: row[6], searchable: p[2], text: row[7], page_path: p[4]
      };
      if (row.length > 8) Object.keys(row[8]).forEach(function (k) { rec[k] = row[8][k]; });
      return rec;
    });
  }

  // One term's score in one section: BM25 with the index's k1 and b, in the fixed operation order.
  function bm25Part(idf, f, length, avglen, k1, b) { return idf * (f * (k1 + 1)) / (f + k1 * ((1 - b) + b * length / avglen)); }

  // [[term, df]…] from encode_word_list's pair (a d/ or e/ entry), or null when it is not one.
  function decodeWordList(value) {
    if (!(Array.isArray(value) && value.length === 2 && typeof value[0] === 'string')) return null;
    var terms = value[0].split(' '), dfs = decodeInts(value[1]);
    if (dfs === null || terms.length !== dfs.length || terms.indexOf('') >= 0) return null;
    return terms.map(function (t, i) { return [t, dfs[i]]; });
  }

  // The tables unicode_file wrote (each an integer list), in unicode_tables' shape, or null when
  // value is not such a file (the ranges' order and bounds are the validator's).
  var RANGE_TABLES = ['word', 'letter_number', 'assigned'];
  function readUnicodeFile(value) {
    var keys = value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).sort() : [];
    if (keys.join() !== 'assigned,casefold,letter_number,unicode_version,word' || typeof value.unicode_version !== 'string') return null;
    var out = { unicode_version: value.unicode_version };
    for (var r = 0; r < RANGE_TABLES.length; r++) {
      var gaps = decodeInts(value[RANGE_TABLES[r]]);
      if (gaps === null) return null;
      var at = 0;
      out[RANGE_TABLES[r]] = gaps.map(function (g) { at += g; return at; });
    }
    var flat = decodeInts(value.casefold);
    if (flat === null) return null;
    var fold = {}, i = 0, cp = 0;
    while (i < flat.length) {
      var n = flat[i + 1];
      if (i + 2 > flat.length || (i && !flat[i]) || !(n >= 1 && n <= C.MAX_FOLD_CODE_POINTS) || i + 2 + n > flat.length) return null;
      cp += flat[i];
      var targets = flat.slice(i + 2, i + 2 + n).map(function (z) { return cp + (z % 2 === 0 ? z / 2 : -(z + 1) / 2); });
      if (cp > 0x10ffff || !targets.every(function (c) { return c >= 0 && c <= 0x10ffff; })) return null;
      fold[cp.toString(16)] = String.fromCodePoint.apply(null, targets);
      i += 2 + n;
    }
    out.casefold = fold;
    return out;
  }

  // idf from df (format 7): BM25's idf within a unit or two in the last place by + - * / alone
  // (each correctly rounded: the same bits in every runtime), in idf_base's operation order.
  var SQRT2 = 1.4142135623730951, LN2_HI = 0.6931471803691238, LN2_LO = 1.9082149292705877e-10;
  function idfBase(n, df) {
    var x = 1 + (n - df + 0.5) / (df + 0.5), k = 0;
    while (x > SQRT2) { x = x / 2; k += 1; }
    var f = x - 1, s = f / (2 + f), z = s * s, r = 0.0;
    for (var j = C.IDF_SERIES_TERMS; j > 0; j--) r = z * (2 / (2 * j + 1) + r);
    var hf = 0.5 * f * f;
    return k * LN2_HI - ((hf - (s * (hf + r) + k * LN2_LO)) - f);
  }
  // The double steps units in the last place above (below, when negative) positive x.
  var ULP = new DataView(new ArrayBuffer(8));
  function stepUlps(x, steps) {
    ULP.setFloat64(0, x);
    var hi = ULP.getUint32(0), lo = ULP.getUint32(4) + steps;
    if (lo > 0xffffffff) { lo -= 0x100000000; hi += 1; } else if (lo < 0) { lo += 0x100000000; hi -= 1; }
    ULP.setUint32(0, hi); ULP.setUint32(4, lo);
    return ULP.getFloat64(0);
  }
  // {df: step} (a Map) from the manifest's idf steps, or null when they are not such a list.
  function readIdfSteps(text) {
    var flat = decodeInts(text);
    if (flat === null || flat.length % 2) return null;
    var steps = new Map(), df = 0;
    for (var i = 0; i < flat.length; i += 2) {
      var z = flat[i + 1];
      if (flat[i] === 0 || z === 0 || z > 2 * C.MAX_IDF_STEP) return null;
      df += flat[i];
      steps.set(df, z % 2 ? (z + 1) / 2 : -(z / 2));
    }
    return steps;
  }
  // The build's idf of df among n, from idfBase and the recorded steps.
  function storedIdf(n, df, steps) {
    var step = steps.get(df) || 0, base = idfBase(n, df);
    return step ? stepUlps(base, step) : base;
  }

  // smart mode's keys
  function dictKey(term) { return Array.from(term).slice(0, C.DICT_KEY_CODE_POINTS).join(''); }
  function dictShardName(key, shards) { return 'd/' + (fnv1a32(key) % shards).toString(16); }
  // The keys a word is filed under for corrections (e/), distinct, in this order: its first two
  // code points, its second and third, its first and third.
  function editKeys(term) {
    var cps = Array.from(term), keys = [cps.slice(0, 2).join(''), cps.slice(1, 3).join(''), cps.slice(0, 1).join('') + cps.slice(2, 3).join('')];
    return keys.filter(function (k, i) { return k && keys.slice(0, i).indexOf(k) < 0; });
  }
  function editShardName(key, shards) { return 'e/' + (fnv1a32(key) % shards).toString(16); }
  // Is term a word corrections may lead to, or be asked for? MIN_EDIT_TERM to MAX_EDIT_TERM
  // code points, with no digit 0-9.
  function correctable(term) {
    var n = Array.from(term).length;
    return C.MIN_EDIT_TERM <= n && n <= C.MAX_EDIT_TERM && !/[0-9]/.test(term);
  }
  function nameShardName(key, shards) { return 'n/' + (fnv1a32(key) % shards).toString(16); }
  function headingShardName(key, shards) { return 'h/' + (fnv1a32(key) % shards).toString(16); }
  function asciiLower(text) { return text.replace(/[A-Z]/g, function (c) { return String.fromCharCode(c.charCodeAt(0) + 32); }); }
  // The object name a whole query may be: without ASCII white space at its ends and a trailing ().
  function objectNameQuery(query) {
    var q = query.replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, '');
    if (q.slice(-2) === '()') q = q.slice(0, -2);
    return q || null;
  }
  function nameKey(name) { return name.slice(name.lastIndexOf('.') + 1); }
  // Identifiers as written (SECRET_KEY, url_for, QuerySet.filter, --no-deps), lower-cased.
  function identifiers(text) {
    var out = [], re = /[A-Za-z0-9_.:-]+/g, m;
    while ((m = re.exec(text)) !== null) {
      var token = m[0], rest = token.replace(/^-+/, ''), lead = token.length - rest.length;
      var core = token.replace(/^[.:-]+|[.:-]+$/g, '');
      if (core.length < 2 || !/[A-Za-z]/.test(core) || !(lead || /[_.:-]/.test(core))) continue;
      out.push(('--'.slice(0, Math.min(lead, 2)) + core).toLowerCase());
    }
    return out;
  }

  return {
    isInt: isInt, canonicalJson: canonicalJson, unwrap: unwrap, unwrapFile: unwrapFile, fnv1a32: fnv1a32, shardKey: shardKey, shardName: shardName, postingKey: postingKey,
    decodeInts: decodeInts, sectionUrl: sectionUrl, sectionStarts: sectionStarts, sectionFileOf: sectionFileOf,
    sectionRecords: sectionRecords, bm25Part: bm25Part, decodeWordList: decodeWordList, readUnicodeFile: readUnicodeFile, idfBase: idfBase, stepUlps: stepUlps, readIdfSteps: readIdfSteps, storedIdf: storedIdf, dictKey: dictKey, dictShardName: dictShardName,
    editKeys: editKeys, editShardName: editShardName, correctable: correctable,
    nameShardName: nameShardName, headingShardName: headingShardName, asciiLower: asciiLower, objectNameQuery: objectNameQuery, nameKey: nameKey,
    identifiers: identifiers
  };
});
