/* okf_sphinx stemmers: the JavaScript port of okf_sphinx/stemmer.py, stem for stem.
 * The index stores stems made at build time; queries in the browser must be stemmed
 * identically, so this file implements the same pinned algorithm version
 * (Snowball 3.0.1 English / Porter2) and tests/test_stemmer.py proves the two equal on
 * a large word list.  Plain script, no dependencies: browser global OkfStemmer, or
 * require() in Node.  OkfStemmer.forLanguage(lang) -> function(term) -> stem, or null.
 * Input is a casefolded NFC term; positions count code points, as in Python. */
(function (root, factory) {
  var api = factory();
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.OkfStemmer = api;
})(this, function () {
  'use strict';
  var VERSION = 'snowball-3.0.1';
  var own = Object.prototype.hasOwnProperty;

  // --- Snowball English (Porter2), Snowball 3.0.1 -----------------------------------
  function isVowel(c) {
    return c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u' || c === 'y';
  }
  // a short syllable's last letter may not be a vowel, w, x, or a y that prelude marked
  function notShortEnd(c) { return !isVowel(c) && c !== 'w' && c !== 'x' && c !== 'Y'; }
  function set(words) {
    var s = Object.create(null);
    for (var i = 0; i < words.length; i++) s[words[i]] = true;
    return s;
  }
  var DOUBLES = set(['bb', 'dd', 'ff', 'gg', 'mm', 'nn', 'pp', 'rr', 'tt']);
  var VALID_LI = set('cdeghkmnrt'.split(''));
  var EXCEPTIONS = {
    skies: 'sky', idly: 'idl', gently: 'gentl', ugly: 'ugli', early: 'earli',
    only: 'onli', singly: 'singl',
    sky: 'sky', news: 'news', howe: 'howe', atlas: 'atlas', cosmos: 'cosmos',
    bias: 'bias', andes: 'andes'
  };
  // words starting with these have R1 right after them (3.1 adds "inter"; 3.0.1 does not)
  var R1_PREFIXES = ['arsen', 'commun', 'emerg', 'gener', 'later', 'organ', 'past', 'univers'];
  var ING_KEEP = set(['even', 'cann', 'inn', 'earr', 'herr', 'out']);
  var EED_KEEP = set(['succ', 'proc', 'exc']);
  // Step 1b suffixes, longest first: kind 1 = eed, 2 = ed, 3 = ing
  var STEP1B = [['eedly', 1], ['ingly', 2], ['edly', 2], ['eed', 1], ['ing', 3], ['ed', 2]];
  var STEP2 = {
    tional: 'tion', enci: 'ence', anci: 'ance', abli: 'able', entli: 'ent',
    izer: 'ize', ization: 'ize', ational: 'ate', ation: 'ate', ator: 'ate',
    alism: 'al', aliti: 'al', alli: 'al', fulness: 'ful', ousli: 'ous',
    ousness: 'ous', iveness: 'ive', iviti: 'ive', biliti: 'ble', bli: 'ble',
    ogist: 'og', fulli: 'ful', lessli: 'less', ogi: 'og', li: ''
  };
  var STEP3 = {
    tional: 'tion', ational: 'ate', alize: 'al', icate: 'ic', iciti: 'ic',
    ical: 'ic', ful: '', ness: '', ative: ''
  };
  var STEP4 = {};
  ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent',
    'ism', 'ate', 'iti', 'ous', 'ive', 'ize', 'ion'].forEach(function (s) { STEP4[s] = ''; });

  // Suffix lengths, longest first: Snowball's `among` takes the longest suffix that
  // matches, and if its condition then fails nothing else is tried.
  function lengths(table) {
    var seen = {}, out = [];
    for (var k in table) if (!seen[k.length]) { seen[k.length] = true; out.push(k.length); }
    return out.sort(function (a, b) { return b - a; });
  }
  var STEP2_LENS = lengths(STEP2), STEP3_LENS = lengths(STEP3), STEP4_LENS = lengths(STEP4);

  function longest(w, table, lens) {
    for (var i = 0; i < lens.length; i++) {
      var n = lens[i];
      if (w.length >= n) {
        var tail = w.slice(w.length - n);
        if (own.call(table, tail)) return tail;
      }
    }
    return null;
  }
  function endsWith(w, s) { return w.endsWith(s); }
  function hasVowel(text) {
    for (var i = 0; i < text.length; i++) if (isVowel(text.charAt(i))) return true;
    return false;
  }
  // the position after the first non-vowel that follows a vowel, from `start`
  function afterVowelConsonant(w, start) {
    var n = w.length, i = start;
    while (i < n && !isVowel(w.charAt(i))) i++;
    while (i < n && isVowel(w.charAt(i))) i++;
    return i < n ? i + 1 : n;
  }
  function shortSyllableBefore(w, end) {
    if (end >= 3 && notShortEnd(w.charAt(end - 1)) && isVowel(w.charAt(end - 2)) &&
        !isVowel(w.charAt(end - 3))) return true;
    if (end === 2 && !isVowel(w.charAt(1)) && isVowel(w.charAt(0))) return true;
    return end >= 4 && w.slice(end - 4, end) === 'past';
  }

  function step1a(w) {
    var apos = ["'s'", "'s", "'"];
    for (var i = 0; i < apos.length; i++) {
      if (endsWith(w, apos[i])) { w = w.slice(0, w.length - apos[i].length); break; }
    }
    if (endsWith(w, 'sses')) return w.slice(0, -2);
    if (endsWith(w, 'ied') || endsWith(w, 'ies')) return w.slice(0, -3) + (w.length >= 5 ? 'i' : 'ie');
    if (endsWith(w, 'ss') || endsWith(w, 'us')) return w;
    if (endsWith(w, 's') && hasVowel(w.slice(0, -2))) return w.slice(0, -1);
    return w;
  }
  function step1b(w, p1) {
    var suffix = null, kind = 0;
    for (var i = 0; i < STEP1B.length; i++) {
      if (endsWith(w, STEP1B[i][0])) { suffix = STEP1B[i][0]; kind = STEP1B[i][1]; break; }
    }
    if (suffix === null) return w;
    var stem = w.slice(0, w.length - suffix.length);
    if (kind === 1) {
      if (own.call(EED_KEEP, stem) || stem.length < p1) return w;
      return stem + 'ee';
    }
    if (kind === 3) {
      if (own.call(ING_KEEP, stem)) return w;
      if (stem.length === 2 && stem.charAt(1) === 'y' && !isVowel(stem.charAt(0))) return stem.charAt(0) + 'ie';
    }
    if (!hasVowel(stem)) return w;
    if (endsWith(stem, 'at') || endsWith(stem, 'bl') || endsWith(stem, 'iz')) return stem + 'e';
    if (own.call(DOUBLES, stem.slice(-2))) {
      if (stem.length === 3 && 'aeo'.indexOf(stem.charAt(0)) >= 0) return stem;
      return stem.slice(0, -1);
    }
    if (stem.length === p1 && shortSyllableBefore(stem, stem.length)) return stem + 'e';
    return stem;
  }
  function step1c(w) {
    var last = w.charAt(w.length - 1);
    if (w.length >= 3 && (last === 'y' || last === 'Y') && !isVowel(w.charAt(w.length - 2))) {
      return w.slice(0, -1) + 'i';
    }
    return w;
  }
  function step2(w, p1) {
    var suffix = longest(w, STEP2, STEP2_LENS);
    if (suffix === null) return w;
    var start = w.length - suffix.length;
    if (start < p1) return w;
    if (suffix === 'ogi' && (start === 0 || w.charAt(start - 1) !== 'l')) return w;
    if (suffix === 'li' && (start === 0 || !own.call(VALID_LI, w.charAt(start - 1)))) return w;
    return w.slice(0, start) + STEP2[suffix];
  }
  function step3(w, p1, p2) {
    var suffix = longest(w, STEP3, STEP3_LENS);
    if (suffix === null) return w;
    var start = w.length - suffix.length;
    if (start < p1 || (suffix === 'ative' && start < p2)) return w;
    return w.slice(0, start) + STEP3[suffix];
  }
  function step4(w, p2) {
    var suffix = longest(w, STEP4, STEP4_LENS);
    if (suffix === null) return w;
    var start = w.length - suffix.length;
    if (start < p2) return w;
    if (suffix === 'ion' && (start === 0 || 'st'.indexOf(w.charAt(start - 1)) < 0)) return w;
    return w.slice(0, start);
  }
  function step5(w, p1, p2) {
    var start = w.length - 1;
    if (endsWith(w, 'e')) {
      if (start >= p2 || (start >= p1 && !shortSyllableBefore(w, start))) return w.slice(0, start);
    } else if (endsWith(w, 'l')) {
      if (start >= p2 && start > 0 && w.charAt(start - 1) === 'l') return w.slice(0, start);
    }
    return w;
  }

  // The algorithm on a string of BMP characters (one char = one code point).
  function stemBmp(word) {
    if (own.call(EXCEPTIONS, word)) return EXCEPTIONS[word];
    if (word.length < 3) return word;
    var w = word.charAt(0) === "'" ? word.slice(1) : word;
    // prelude: a y that starts the word or follows a vowel is a consonant; mark it Y
    var marked = false;
    if (w.indexOf('y') >= 0) {
      var chars = w.split('');
      if (chars[0] === 'y') { chars[0] = 'Y'; marked = true; }
      for (var i = 1; i < chars.length; i++) {
        if (chars[i] === 'y' && isVowel(chars[i - 1])) { chars[i] = 'Y'; marked = true; }
      }
      w = chars.join('');
    }
    var p1 = -1;
    for (var j = 0; j < R1_PREFIXES.length; j++) {
      if (w.slice(0, R1_PREFIXES[j].length) === R1_PREFIXES[j]) { p1 = R1_PREFIXES[j].length; break; }
    }
    if (p1 < 0) p1 = afterVowelConsonant(w, 0);
    var p2 = afterVowelConsonant(w, p1);
    w = step1a(w);
    w = step1b(w, p1);
    w = step1c(w);
    w = step2(w, p1);
    w = step3(w, p1, p2);
    w = step4(w, p2);
    w = step5(w, p1, p2);
    return marked ? w.replace(/Y/g, 'y') : w;
  }

  // Python counts code points, JS strings count UTF-16 units.  The algorithm never
  // changes or removes a character outside a-z, so each astral character (and any
  // U+FFFF already there) stands in as one U+FFFF while stemming and is put back after.
  var ASTRAL = /[\uD800-\uDBFF][\uDC00-\uDFFF]|\uFFFF/g;
  function stemEnglish(word) {
    if (word.indexOf('\uFFFF') < 0 && !/[\uD800-\uDFFF]/.test(word)) return stemBmp(word);
    var held = word.match(ASTRAL), k = 0;
    return stemBmp(word.replace(ASTRAL, '\uFFFF')).replace(/\uFFFF/g, function () { return held[k++]; });
  }

  // --- languages ----------------------------------------------------------------------
  // Sphinx `language` primary subtag -> stemmer; the same table as stemmer.py.
  var STEMMERS = { en: stemEnglish };
  var ALGORITHMS = { en: 'english' };
  var MEMO_MAX = 65536;

  function primary(language) {
    if (!language) return 'en';
    return String(language).replace(/-/g, '_').split('_')[0].toLowerCase();
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
  var made = Object.create(null);
  function forLanguage(language) {
    var key = primary(language);
    if (!own.call(STEMMERS, key)) return null;
    if (!made[key]) made[key] = memoise(STEMMERS[key]);
    return made[key];
  }
  function algorithmFor(language) {
    var key = primary(language);
    return own.call(ALGORITHMS, key) ? ALGORITHMS[key] : null;
  }
  function supportedLanguages() { return Object.keys(STEMMERS).sort(); }

  return {
    VERSION: VERSION,
    forLanguage: forLanguage,
    algorithmFor: algorithmFor,
    supportedLanguages: supportedLanguages,
    stemEnglish: stemEnglish
  };
});
