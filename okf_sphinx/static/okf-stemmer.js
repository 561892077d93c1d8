/* okf_sphinx stemmers, the shared part: the language table, OkfStemmer.forLanguage and the
 * runtime every generated stemmer (okf-stemmer-<algorithm>.js, one file per language) runs
 * on.  The twin of okf_sphinx/core/stemmer.py and core/snowball/runtime.py: the index stores
 * stems made at build time, so queries must be stemmed identically; tests/test_stemmer.py
 * proves the two equal on a large word list per language.  Plain script, no dependencies:
 * browser global OkfStemmer (load a language's file after this one), or require() in Node
 * (a language's file is loaded from this folder when first asked for).
 * OkfStemmer.forLanguage(lang) -> function(term) -> stem, or null.
 * Input is a casefolded NFC term; positions count code points, as in Python. */
(function (root, factory) {
  var api = factory();
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.OkfStemmer = api;
})(this, function () {
  'use strict';
  var VERSION = 'snowball-3.0.1';
  var own = Object.prototype.hasOwnProperty;
  // Sphinx `language` primary subtag -> Snowball algorithm; the same table as stemmer.py
  var ALGORITHMS = {
    da: 'danish', de: 'german', en: 'english', es: 'spanish', fi: 'finnish', fr: 'french',
    hu: 'hungarian', it: 'italian', nl: 'dutch', no: 'norwegian', pt: 'portuguese',
    ro: 'romanian', ru: 'russian', sv: 'swedish', tr: 'turkish'
  };
  var MEMO_MAX = 65536;

  // --- the runtime: Snowball's primitive commands on a word (runtime.py's Env) ----------
  var ABORT = { abort: true };  // a slice that cannot be taken: its routine answers false
  function Env(word) {
    this.s = word; this.c = 0; this.l = word.length; this.lb = 0; this.bra = 0; this.ket = this.l;
  }
  var P = Env.prototype;
  P.eq = function (t) {
    if (this.l - this.c < t.length || !this.s.startsWith(t, this.c)) return false;
    this.c += t.length; return true;
  };
  P.eq_b = function (t) {
    if (this.c - this.lb < t.length || !this.s.startsWith(t, this.c - t.length)) return false;
    this.c -= t.length; return true;
  };
  P.ing = function (g) {
    if (this.c >= this.l || g.indexOf(this.s.charAt(this.c)) < 0) return false;
    this.c++; return true;
  };
  P.ing_b = function (g) {
    if (this.c <= this.lb || g.indexOf(this.s.charAt(this.c - 1)) < 0) return false;
    this.c--; return true;
  };
  P.outg = function (g) {
    if (this.c >= this.l || g.indexOf(this.s.charAt(this.c)) >= 0) return false;
    this.c++; return true;
  };
  P.outg_b = function (g) {
    if (this.c <= this.lb || g.indexOf(this.s.charAt(this.c - 1)) >= 0) return false;
    this.c--; return true;
  };
  P.next = function () { if (this.c >= this.l) return false; this.c++; return true; };
  P.next_b = function () { if (this.c <= this.lb) return false; this.c--; return true; };
  P.hop = function (n) { if (this.c + n > this.l) return false; this.c += n; return true; };
  P.hop_b = function (n) { if (this.c - n < this.lb) return false; this.c -= n; return true; };
  // goto / gopast a letter of a grouping (g) or a letter outside it (ng)
  function scan(z, g, member, past) {
    var s = z.s, c = z.c, l = z.l;
    for (; c < l; c++) {
      if ((g.indexOf(s.charAt(c)) >= 0) === member) { z.c = past ? c + 1 : c; return true; }
    }
    z.c = c; return false;
  }
  function scanBack(z, g, member, past) {
    var s = z.s, c = z.c, lb = z.lb;
    for (; c > lb; c--) {
      if ((g.indexOf(s.charAt(c - 1)) >= 0) === member) { z.c = past ? c - 1 : c; return true; }
    }
    z.c = c; return false;
  }
  P.goto_g = function (g) { return scan(this, g, true, false); };
  P.gopast_g = function (g) { return scan(this, g, true, true); };
  P.goto_ng = function (g) { return scan(this, g, false, false); };
  P.gopast_ng = function (g) { return scan(this, g, false, true); };
  P.goto_g_b = function (g) { return scanBack(this, g, true, false); };
  P.gopast_g_b = function (g) { return scanBack(this, g, true, true); };
  P.goto_ng_b = function (g) { return scanBack(this, g, false, false); };
  P.gopast_ng_b = function (g) { return scanBack(this, g, false, true); };
  // among: the longest string of the table at the cursor whose condition holds
  function among(groups, conditions) {
    var table = new Map(), seen = {}, lengths = [];
    groups.forEach(function (group) {
      for (var i = 1; i < group.length; i++) {
        var s = group[i];
        table.set(s, [group[0], conditions && own.call(conditions, s) ? conditions[s] : null]);
        if (!seen[s.length]) { seen[s.length] = true; lengths.push(s.length); }
      }
    });
    return { lengths: lengths.sort(function (a, b) { return b - a; }), table: table };
  }
  P.find = function (a) {
    var s = this.s, c = this.c, l = this.l, lengths = a.lengths;
    for (var i = 0; i < lengths.length; i++) {
      var n = lengths[i];
      if (c + n > l) continue;
      var hit = a.table.get(s.slice(c, c + n));
      if (hit === undefined) continue;
      this.c = c + n;
      if (hit[1] === null) return hit[0];
      var ok = hit[1](this);
      this.c = c + n;
      if (ok) return hit[0];
    }
    return 0;
  };
  P.find_b = function (a) {
    var s = this.s, c = this.c, lb = this.lb, lengths = a.lengths;
    for (var i = 0; i < lengths.length; i++) {
      var n = lengths[i];
      if (c - n < lb) continue;
      var hit = a.table.get(s.slice(c - n, c));
      if (hit === undefined) continue;
      this.c = c - n;
      if (hit[1] === null) return hit[0];
      var ok = hit[1](this);
      this.c = c - n;
      if (ok) return hit[0];
    }
    return 0;
  };
  P.replace = function (bra, ket, t) {
    var adjustment = t.length - (ket - bra);
    this.s = this.s.slice(0, bra) + t + this.s.slice(ket);
    this.l += adjustment;
    if (this.c >= ket) this.c += adjustment;
    else if (this.c > bra) this.c = bra;
    return adjustment;
  };
  P.checkSlice = function () {
    if (this.bra < 0 || this.bra > this.ket || this.ket > this.l || this.l > this.s.length) throw ABORT;
  };
  P.slice_from = function (t) { this.checkSlice(); this.replace(this.bra, this.ket, t); };
  P.slice_to = function () {
    this.checkSlice();
    var out = this.s.slice(this.bra, this.ket);
    if (!out) throw ABORT;
    return out;
  };
  P.insert = function (t) {  // t at the cursor, the cursor after it
    var c = this.c, adjustment = this.replace(c, c, t);
    if (c <= this.bra) this.bra += adjustment;
    if (c <= this.ket) this.ket += adjustment;
  };
  P.insert_keep = function (t) { var c = this.c; this.insert(t); this.c = c; };
  var E = { Env: Env, among: among, ABORT: ABORT };

  // --- languages ----------------------------------------------------------------------
  // Python counts code points, JS strings count UTF-16 units.  No algorithm changes or
  // copies a character outside the BMP, so each astral character (and any U+FFFF already
  // there) stands in as one U+FFFF, a letter of no grouping, while stemming and is put back after.
  var ASTRAL = /[\uD800-\uDBFF][\uDC00-\uDFFF]|\uFFFF/g;
  function byCodePoints(stemBmpWord) {
    return function (word) {
      if (word.indexOf('\uFFFF') < 0 && !/[\uD800-\uDFFF]/.test(word)) return stemBmpWord(word);
      var held = word.match(ASTRAL), k = 0;
      return stemBmpWord(word.replace(ASTRAL, '\uFFFF')).replace(/\uFFFF/g, function () { return held[k++]; });
    };
  }
  function memoise(fn) {
    var memo = new Map();
    return function (term) {
      var hit = memo.get(term);
      if (hit !== undefined) return hit;
      if (memo.size >= MEMO_MAX) memo.clear();
      var out = fn(term);
      memo.set(term, out);
      return out;
    };
  }
  function primary(language) {
    if (!language) return 'en';
    return String(language).replace(/-/g, '_').split('_')[0].toLowerCase();
  }
  var defined = Object.create(null), made = Object.create(null);
  // okf-stemmer-<algorithm>.js calls this: factory(E) -> function(state) running the algorithm
  function define(algorithm, factory) { defined[algorithm] = factory; }
  function algorithmFor(language) {
    var key = primary(language);
    return own.call(ALGORITHMS, key) ? ALGORITHMS[key] : null;
  }
  function forLanguage(language) {
    var algorithm = algorithmFor(language);
    if (algorithm === null) return null;
    if (made[algorithm]) return made[algorithm];
    if (!defined[algorithm] && typeof require === 'function' && typeof module === 'object') {
      try { require('./okf-stemmer-' + algorithm + '.js'); } catch (e) { /* not shipped here: null */ }
    }
    if (!defined[algorithm]) return null;
    var run = defined[algorithm](E);
    made[algorithm] = memoise(byCodePoints(function (word) {
      var z = new Env(word);
      run(z);
      return z.s;
    }));
    return made[algorithm];
  }
  function supportedLanguages() { return Object.keys(ALGORITHMS).sort(); }

  return {
    VERSION: VERSION,
    forLanguage: forLanguage,
    algorithmFor: algorithmFor,
    supportedLanguages: supportedLanguages,
    define: define
  };
});
