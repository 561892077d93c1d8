/* Mirrors okf_sphinx/core/terms.py: terms, the query rules and the snippet rule (contract
 * §2, §3, §5). A query of ASCII characters needs no tables (the Normaliser without tables:
 * fold A-Z, words are [0-9A-Za-z]+); any other text uses the build's tables (unicode.js),
 * so a browser with another Unicode version gets exactly the build's terms. */
define('core/terms', function (use) {
  'use strict';
  var C = use('core/constants'), S = use('core/strings'), errors = use('core/errors'), segment = use('core/segment');
  var OkfError = errors.OkfError, cpAt = S.cpAt, cpLen = S.cpLen, isAscii = S.isAscii;
  var own = Object.prototype.hasOwnProperty;

  // flat = [lo0, hi0, lo1, hi1, ...]; an odd insertion point means inside a range
  function inRanges(flat, cp) {
    var i = S.bisectRight(flat, cp);
    return i % 2 === 1 || (i > 0 && flat[i - 1] === cp);
  }
  function asciiWord(c) { return c >= 48 && c <= 57 || c >= 65 && c <= 90 || c >= 97 && c <= 122; }

  // JavaScript only: code points an ASCII query may take for separators without unicode.js
  // when the build's Unicode is one of ASCII_SEPARATORS_UNICODE (okf_sphinx/surfaces/browser.py
  // ascii_separators; constants.js holds them as "gap.length" hex pairs).
  var SEPARATORS = null;
  function asciiSeparator(cp) {
    if (!SEPARATORS) {
      SEPARATORS = [];
      C.ASCII_SEPARATORS.split(',').reduce(function (end, pair) {
        var g = pair.split('.'), lo = end + parseInt(g[0], 16), hi = lo + parseInt(g[1], 16);
        SEPARATORS.push(lo, hi);
        return hi;
      }, 0);
    }
    return inRanges(SEPARATORS, cp);
  }
  // Letters whose NFC(casefold()) is ASCII (ß ſ ẞ K ﬀ-ﬆ): they can make an ASCII term.
  function foldsToAscii(c) { return c === 0xdf || c === 0x17f || c === 0x1e9e || c === 0x212a || (c >= 0xfb00 && c <= 0xfb06); }

  // The build's terms (tables: a checked unicode.js), or ASCII's without tables (null).
  function Normaliser(tables) {
    this.t = tables;
    this.unicodeVersion = tables ? tables.unicode_version : null;
  }
  Normaliser.prototype.isWord = function (cp) { return this.t ? inRanges(this.t.word, cp) : cp < 128 && asciiWord(cp); };
  // NFC(casefold(text)) with the build's fold table, NFC per run of code points the build knew
  Normaliser.prototype._normalise = function (text) {
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
  Normaliser.prototype.terms = function (text) {
    return this.wordRuns(this._normalise(text)).map(function (r) { return r[2]; });
  };
  // Maximal word runs of raw text: [code-point offset, UTF-16 index, run]; stopAt(run) ends the scan.
  Normaliser.prototype.wordRuns = function (text, stopAt) {
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
  Normaliser.prototype.hasLetterNumber = function (text) {
    if (!this.t) return /[0-9A-Za-z]/.test(text);
    for (var i = 0; i < text.length; i++) {
      var cp = cpAt(text, i);
      if (cp > 0xffff) i++;
      if (inRanges(this.t.letter_number, cp)) return true;
    }
    return false;
  };
  // Validate query (checkQuery first, then the rules that need the tables); its distinct terms.
  Normaliser.prototype.queryTerms = function (query) {
    checkQuery(query);
    if (!this.hasLetterNumber(query)) throw new OkfError('schema_validation', 'query has no letter or number: add at least one word');
    if (this.t) this.checkKnown(query);
    var seen = {}, result = [], words = this.terms(query);
    for (var i = 0; i < words.length; i++) {
      var w = words[i], len = cpLen(w);
      if (len > C.MAX_TERM_CODE_POINTS) {
        throw new OkfError('resource_limit', 'a query term is ' + len + ' characters after normalisation; the limit is ' + C.MAX_TERM_CODE_POINTS,
          { limit: C.MAX_TERM_CODE_POINTS, actual: len });
      }
      if (!own.call(seen, w)) { seen[w] = 1; result.push(w); }
    }
    if (!result.length) throw new OkfError('schema_validation', 'query has no searchable term: add a word');
    if (result.length > C.MAX_QUERY_TERMS) {
      throw new OkfError('resource_limit', 'query has ' + result.length + ' distinct terms; the limit is ' + C.MAX_QUERY_TERMS + ': remove some words',
        { limit: C.MAX_QUERY_TERMS, actual: result.length });
    }
    return result;
  };
  // A code point the build's Unicode assigned but this engine's does not: its NFC is unknown here.
  var UNASSIGNED = null;
  Normaliser.prototype.checkKnown = function (query) {
    if (isAscii(query)) return;
    if (!UNASSIGNED) UNASSIGNED = new RegExp('\\p{Cn}', 'u');
    for (var i = 0; i < query.length; i++) {
      var cp = cpAt(query, i), ch = String.fromCodePoint(cp);
      if (cp > 0xffff) i++;
      if (cp > 0x7f && UNASSIGNED.test(ch) && inRanges(this.t.assigned, cp)) throw unknownCodePoint(cp, this.unicodeVersion);
    }
  };
  // The exact snippet of a range's text for these query terms (contract §5).
  Normaliser.prototype.snippet = function (text, queryTerms) {
    var start = this.snippetStart(text, queryTerms);
    return S.cpSlice(text, start, start + C.SNIPPET_CODE_POINTS);
  };
  // Where the snippet starts, in code points. Without tables (ASCII query terms), a run of ASCII
  // letters/digits counts only when known separators or ASCII punctuation surround it: next to
  // another non-ASCII code point it may be part of a longer run, whose term then holds that
  // code point and so cannot be an ASCII query term, unless that run would have matched.
  // separators: may asciiSeparator() be trusted (the build's Unicode version)? null: the build's
  // tables must decide.
  Normaliser.prototype.snippetStart = function (text, queryTerms, separators) {
    var wanted = {}, found = -1, units = {}, anyUnit = false;
    if (!queryTerms.length) return 0;
    // a part key (" 数据", core/segment.js) matches a run holding CJK text that has its unit
    // among its units: CJK text, so never without the tables
    queryTerms.forEach(function (t) { if (t.charAt(0) === C.PART) { units[t.slice(1)] = 1; anyUnit = true; } else wanted[t] = 1; });
    if (!this.t) {
      if (anyUnit || !queryTerms.every(isAscii) || (!separators && !isAscii(text))) return null;
      for (var i = 0, s = -1, dirty = false, prevOdd = false; i <= text.length; i += c > 0xffff ? 2 : 1) {
        var c = i < text.length ? cpAt(text, i) : 32, odd = c > 127 && !asciiSeparator(c);
        if (odd && foldsToAscii(c)) return null;
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
      var self = this;
      this.wordRuns(text, function (r) {
        var t = self.terms(r[2]);
        if (t.length && (own.call(wanted, t[0]) || (anyUnit && segment.hasCjk(t[0]) && segment.units(t[0]).some(function (u) { return own.call(units, u[1]); })))) {
          found = r[0];
          return true;
        }
        return false;
      });
    }
    return found < 0 ? 0 : Math.max(0, found - C.SNIPPET_LEAD);
  };

  // The query rules that need no tables, checked first, in this order.
  function checkQuery(query) {
    if (typeof query !== 'string') throw new OkfError('schema_validation', 'query must be a string');
    if (!validUnicode(query)) throw new OkfError('schema_validation', 'query is not valid Unicode (it holds a lone surrogate)');
    var n = cpLen(query);
    if (n < 1) throw new OkfError('schema_validation', 'query is empty: give 1 to 512 characters with at least one letter or number');
    if (n > C.MAX_QUERY_CODE_POINTS) {
      throw new OkfError('schema_validation', 'query is ' + n + ' characters long; the limit is ' + C.MAX_QUERY_CODE_POINTS + ': shorten it',
        { limit: C.MAX_QUERY_CODE_POINTS, actual: n });
    }
  }
  function unknownCodePoint(cp, buildVersion) {
    var hex = cp.toString(16).toUpperCase(), u = 'U+' + ('000' + hex).slice(-Math.max(4, hex.length));
    return new OkfError('index_version_unsupported', 'the query holds ' + u + ", which the index's Unicode " + buildVersion +
      " assigns but this engine's Unicode tables do not know, so it cannot normalise the query as the build did: " +
      'query with a newer Python or browser (Unicode ' + buildVersion + ' or later), or leave the character out',
      { unicode_version: buildVersion, code_point: u });
  }
  // False for a string holding a lone surrogate
  function validUnicode(text) { return !/[\ud800-\udbff](?![\udc00-\udfff])|(?:^|[^\ud800-\udbff])[\udc00-\udfff]/.test(text); }
  // limit: an integer (not a boolean, string or fraction) in 1..maximum
  function validateLimit(limit, dflt, maximum) {
    dflt = dflt === undefined ? 20 : dflt;
    maximum = maximum === undefined ? 100 : maximum;
    if (limit === undefined || limit === null) return dflt;
    if (typeof limit !== 'number' || !Number.isInteger(limit)) {
      throw new OkfError('schema_validation', 'limit must be an integer from 1 to ' + maximum + ', got ' + errors.jsonText(limit));
    }
    if (limit < 1 || limit > maximum) throw new OkfError('schema_validation', 'limit must be from 1 to ' + maximum + ', got ' + errors.jsonText(limit));
    return limit;
  }

  return {
    inRanges: inRanges, Normaliser: Normaliser, ASCII: new Normaliser(null), checkQuery: checkQuery, unknownCodePoint: unknownCodePoint,
    validUnicode: validUnicode, validateLimit: validateLimit, asciiSeparator: asciiSeparator
  };
});
