/* okf_sphinx stemmers: the JavaScript port of okf_sphinx/core/stemmer.py, stem for stem.
 * The index stores stems made at build time; queries in the browser must be stemmed
 * identically, so this file implements the same pinned algorithm version
 * (Snowball 3.0.1: English / Porter2, German, Spanish) and tests/test_stemmer.py proves the two
 * equal on a large word list per language.  Plain script, no dependencies: browser global OkfStemmer, or
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
  function afterVowelConsonant(w, start, vowel) {
    var n = w.length, i = start;
    vowel = vowel || isVowel;
    while (i < n && !vowel(w.charAt(i))) i++;
    while (i < n && vowel(w.charAt(i))) i++;
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

  // --- Snowball German, Snowball 3.0.1 -----------------------------------------------
  function deVowel(c) { return isVowel(c) || c === 'ä' || c === 'ö' || c === 'ü'; }
  var DE_S_ENDING = set('bdfghklmnrt'.split(''));
  var DE_ST_ENDING = set('bdfghklmnt'.split(''));
  var DE_ET_ENDING = set('dfgklmnrstUzä'.split(''));
  // "-et" stays after these (Paket, Planet, geordnet, Internet, Tritt ...)
  var DE_ET_KEEP = ['tick', 'plan', 'geordn', 'intern', 'tr'];
  // prelude, left to right: ß -> ss, ae/oe/ue -> ä/ö/ü, except the u of "qu"
  var DE_PRELUDE = /qu|ae|oe|ue|ß/g;
  var DE_PRELUDE_MAP = { qu: 'qu', ae: 'ä', oe: 'ö', ue: 'ü', 'ß': 'ss' };
  // postlude: undo the marks and drop the umlauts
  var DE_POSTLUDE = /[YUäöü]/g;
  var DE_POSTLUDE_MAP = { Y: 'y', U: 'u', 'ä': 'a', 'ö': 'o', 'ü': 'u' };
  function table(words) {
    var t = {};
    words.forEach(function (k) { t[k] = ''; });
    return t;
  }
  var DE_STEP1 = table(['e', 'em', 'en', 'erinnen', 'erin', 'ln', 'ern', 'er', 's', 'es', 'lns']);
  var DE_STEP2 = table(['en', 'er', 'et', 'st', 'est']);
  var DE_STEP3 = table(['end', 'ig', 'ung', 'lich', 'isch', 'ik', 'heit', 'keit']);
  var DE_KEIT = table(['ig', 'lich']);
  var DE_STEP1_LENS = lengths(DE_STEP1), DE_STEP2_LENS = lengths(DE_STEP2);
  var DE_STEP3_LENS = lengths(DE_STEP3), DE_KEIT_LENS = lengths(DE_KEIT);
  function endsBefore(w, end, s) { return w.slice(0, end).endsWith(s); }

  function deStep1(w, p1) {
    var suffix = longest(w, DE_STEP1, DE_STEP1_LENS);
    if (suffix === null) return w;
    var start = w.length - suffix.length;
    if (start < p1) return w;
    if (suffix === 'em') return endsBefore(w, start, 'syst') ? w : w.slice(0, start);
    if (suffix === 'e' || suffix === 'en' || suffix === 'es') {
      w = w.slice(0, start);
      return endsWith(w, 'niss') ? w.slice(0, -1) : w;
    }
    if (suffix === 's') return start > 0 && own.call(DE_S_ENDING, w.charAt(start - 1)) ? w.slice(0, start) : w;
    if (suffix === 'ln' || suffix === 'lns') return w.slice(0, start) + 'l';
    return w.slice(0, start); // erinnen, erin, ern, er
  }
  function deStep2(w, p1) {
    var suffix = longest(w, DE_STEP2, DE_STEP2_LENS);
    if (suffix === null) return w;
    var start = w.length - suffix.length;
    if (start < p1) return w;
    if (suffix === 'st') return start >= 4 && own.call(DE_ST_ENDING, w.charAt(start - 1)) ? w.slice(0, start) : w;
    if (suffix === 'et') {
      if (start > 0 && own.call(DE_ET_ENDING, w.charAt(start - 1)) &&
          !DE_ET_KEEP.some(function (k) { return endsBefore(w, start, k); })) return w.slice(0, start);
      return w;
    }
    return w.slice(0, start); // en, er, est
  }
  function deStep3(w, p1, p2) {
    var suffix = longest(w, DE_STEP3, DE_STEP3_LENS);
    if (suffix === null) return w;
    var start = w.length - suffix.length;
    if (start < p2) return w;
    if (suffix === 'ig' || suffix === 'ik' || suffix === 'isch') return endsBefore(w, start, 'e') ? w : w.slice(0, start);
    w = w.slice(0, start);
    if (suffix === 'end' || suffix === 'ung') {
      if (endsWith(w, 'ig') && !endsBefore(w, w.length - 2, 'e') && w.length - 2 >= p2) return w.slice(0, -2);
    } else if (suffix === 'lich' || suffix === 'heit') {
      if ((endsWith(w, 'er') || endsWith(w, 'en')) && w.length - 2 >= p1) return w.slice(0, -2);
    } else { // keit
      var more = longest(w, DE_KEIT, DE_KEIT_LENS);
      if (more !== null && w.length - more.length >= p2) return w.slice(0, w.length - more.length);
    }
    return w;
  }
  function stemGermanBmp(word) {
    var w = word;
    // prelude: u and y between vowels are consonants; mark them U and Y
    if (w.indexOf('u') >= 0 || w.indexOf('y') >= 0) {
      var chars = w.split('');
      for (var j = 1; j < chars.length - 1; j++) {
        if ((chars[j] === 'u' || chars[j] === 'y') && deVowel(chars[j - 1]) && deVowel(chars[j + 1])) {
          chars[j] = chars[j].toUpperCase();
        }
      }
      w = chars.join('');
    }
    w = w.replace(DE_PRELUDE, function (m) { return DE_PRELUDE_MAP[m]; });
    // R1: after the first non-vowel following a vowel, but not before the 4th letter
    var n = w.length, p1 = n, p2 = n;
    if (n >= 3) {
      var after = afterVowelConsonant(w, 0, deVowel);
      p1 = Math.max(after, 3);
      p2 = afterVowelConsonant(w, after, deVowel);
    }
    w = deStep1(w, p1);
    w = deStep2(w, p1);
    w = deStep3(w, p1, p2);
    return w.replace(DE_POSTLUDE, function (c) { return DE_POSTLUDE_MAP[c]; });
  }

  // --- Snowball Spanish, Snowball 3.0.1 ----------------------------------------------
  var ES_VOWELS = set('aeiouáéíóúü'.split(''));
  function esVowel(c) { return own.call(ES_VOWELS, c); }
  var ES_PRONOUNS = table(['me', 'se', 'sela', 'selo', 'selas', 'selos', 'la', 'le', 'lo', 'las', 'les', 'los', 'nos']);
  // a verb form before an attached pronoun -> its unaccented form ("" keeps it)
  var ES_BEFORE_PRONOUN = {
    'iéndo': 'iendo', 'ándo': 'ando', 'ár': 'ar', 'ér': 'er', 'ír': 'ir',
    ando: '', iendo: '', ar: '', er: '', ir: '', yendo: ''
  };
  // standard suffixes -> the rule that removes them (see esStandard)
  var ES_STANDARD = {};
  [
    [1, 'ica osa ista anza ico ismo oso amiento imiento able ible icas osas istas anzas icos ' +
        'ismos osos amientos imientos ables ibles'],
    [2, 'ancia adora ante acion ación ador ancias adoras aciones adores antes'],
    [3, 'logía logías'],
    [4, 'ucion ución uciones'],
    [5, 'encia encias'],
    [6, 'amente'],
    [7, 'mente'],
    [8, 'idad idades'],
    [9, 'iva ivo ivas ivos']
  ].forEach(function (r) { r[1].split(' ').forEach(function (k) { ES_STANDARD[k] = r[0]; }); });
  var ES_AMENTE = table(['ic', 'ad', 'os', 'iv']);
  var ES_MENTE = table(['able', 'ible', 'ante']);
  var ES_IDAD = table(['ic', 'abil', 'iv']);
  var ES_Y_VERB = table(['ya', 'ye', 'yan', 'yen', 'yeron', 'yendo', 'yo', 'yas', 'yes', 'yais', 'yamos', 'yó']);
  // verb suffixes: these four also take a "u" after "g" with them; the rest go alone
  var ES_VERB_GU = set(['en', 'es', 'éis', 'emos']);
  var ES_VERB = table((
    'aba ada ida ara iera ía aría ería iría ad ed id ase iese aste iste an aban aran ieran ' +
    'ían arían erían irían en asen iesen aron ieron arán erán irán ado ido ando iendo ar er ' +
    'ir as abas adas idas aras ieras ías arías erías irías es ases ieses abais arais ierais ' +
    'íais aríais eríais iríais aseis ieseis asteis isteis áis éis aréis eréis iréis ados ' +
    'idos amos ábamos áramos iéramos íamos aríamos eríamos iríamos emos aremos eremos ' +
    'iremos ásemos iésemos imos arás erás irás ís ará erá irá aré eré iré ió').split(' '));
  var ES_RESIDUAL = table(['a', 'e', 'o', 'os', 'á', 'é', 'í', 'ó']);
  var ES_POSTLUDE = /[áéíóú]/g;
  var ES_POSTLUDE_MAP = { 'á': 'a', 'é': 'e', 'í': 'i', 'ó': 'o', 'ú': 'u' };
  var LENS = new Map(); // table -> its suffix lengths, longest first
  function lens(t) {
    var l = LENS.get(t);
    if (!l) { l = lengths(t); LENS.set(t, l); }
    return l;
  }
  // the longest suffix of the table that lies wholly at or after `start` (Snowball's
  // `among` inside `setlimit`: a longer suffix reaching before `start` is not seen)
  function longestFrom(w, t, start) {
    var ls = lens(t);
    for (var i = 0; i < ls.length; i++) {
      var n = ls[i];
      if (w.length - n >= start) {
        var tail = w.slice(w.length - n);
        if (own.call(t, tail)) return tail;
      }
    }
    return null;
  }
  function esPv(w) {
    var n = w.length, j;
    if (n < 2) return n;
    if (!esVowel(w.charAt(1))) { // vowel or consonant, then consonant: after the next vowel
      for (j = 2; j < n; j++) if (esVowel(w.charAt(j))) return j + 1;
      return n;
    }
    if (esVowel(w.charAt(0))) { // two vowels: after the next consonant
      for (j = 2; j < n; j++) if (!esVowel(w.charAt(j))) return j + 1;
      return n;
    }
    return n >= 3 ? 3 : n; // consonant, vowel
  }
  function esAttachedPronoun(w, pv) {
    var pronoun = longest(w, ES_PRONOUNS, lens(ES_PRONOUNS));
    if (pronoun === null) return w;
    var end = w.length - pronoun.length;
    var verb = longest(w.slice(0, end), ES_BEFORE_PRONOUN, lens(ES_BEFORE_PRONOUN));
    if (verb === null) return w;
    var start = end - verb.length;
    if (start < pv) return w;
    if (verb === 'yendo' && !endsBefore(w, start, 'u')) return w;
    var replacement = ES_BEFORE_PRONOUN[verb];
    return replacement ? w.slice(0, start) + replacement : w.slice(0, end);
  }
  function esStrip(w, t, p) {
    var more = longest(w, t, lens(t));
    if (more !== null && w.length - more.length >= p) return w.slice(0, w.length - more.length);
    return w;
  }
  function esStandard(w, p1, p2) {
    var suffix = longest(w, ES_STANDARD, lens(ES_STANDARD));
    if (suffix === null) return null;
    var start = w.length - suffix.length, rule = ES_STANDARD[suffix];
    if (start < (rule === 6 ? p1 : p2)) return null;
    var stem = w.slice(0, start);
    switch (rule) {
      case 1: return stem;
      case 2: return endsWith(stem, 'ic') && stem.length - 2 >= p2 ? stem.slice(0, -2) : stem;
      case 3: return stem + 'log';
      case 4: return stem + 'u';
      case 5: return stem + 'ente';
      case 6: {
        var more = longest(stem, ES_AMENTE, lens(ES_AMENTE));
        if (more === null || stem.length - more.length < p2) return stem;
        stem = stem.slice(0, stem.length - more.length);
        if (more === 'iv' && endsWith(stem, 'at') && stem.length - 2 >= p2) return stem.slice(0, -2);
        return stem;
      }
      case 7: return esStrip(stem, ES_MENTE, p2);
      case 8: return esStrip(stem, ES_IDAD, p2);
      default: return endsWith(stem, 'at') && stem.length - 2 >= p2 ? stem.slice(0, -2) : stem;
    }
  }
  function esYVerb(w, pv) {
    if (w.length < pv) return null;
    var suffix = longestFrom(w, ES_Y_VERB, pv);
    if (suffix === null) return null;
    var start = w.length - suffix.length;
    return endsBefore(w, start, 'u') ? w.slice(0, start) : null;
  }
  function esVerb(w, pv) {
    if (w.length < pv) return null;
    var suffix = longestFrom(w, ES_VERB, pv);
    if (suffix === null) return null;
    var start = w.length - suffix.length;
    if (own.call(ES_VERB_GU, suffix) && endsBefore(w, start, 'gu')) start -= 1;
    return w.slice(0, start);
  }
  function esResidual(w, pv) {
    var suffix = longest(w, ES_RESIDUAL, lens(ES_RESIDUAL));
    if (suffix === null) return w;
    var start = w.length - suffix.length;
    if (start < pv) return w;
    w = w.slice(0, start);
    if ((suffix === 'e' || suffix === 'é') && endsWith(w, 'gu') && w.length - 1 >= pv) return w.slice(0, -1);
    return w;
  }
  function stemSpanishBmp(word) {
    var w = word;
    var pv = esPv(w);
    var p1 = afterVowelConsonant(w, 0, esVowel);
    var p2 = afterVowelConsonant(w, p1, esVowel);
    w = esAttachedPronoun(w, pv);
    var changed = esStandard(w, p1, p2);
    if (changed === null) changed = esYVerb(w, pv);
    if (changed === null) changed = esVerb(w, pv);
    if (changed !== null) w = changed;
    w = esResidual(w, pv);
    return w.replace(ES_POSTLUDE, function (c) { return ES_POSTLUDE_MAP[c]; });
  }

  // Python counts code points, JS strings count UTF-16 units.  No algorithm here changes
  // or removes a character outside the BMP, so each astral character (and any U+FFFF
  // already there) stands in as one U+FFFF while stemming and is put back after.
  var ASTRAL = /[\uD800-\uDBFF][\uDC00-\uDFFF]|\uFFFF/g;
  function byCodePoints(stemBmpWord) {
    return function (word) {
      if (word.indexOf('\uFFFF') < 0 && !/[\uD800-\uDFFF]/.test(word)) return stemBmpWord(word);
      var held = word.match(ASTRAL), k = 0;
      return stemBmpWord(word.replace(ASTRAL, '\uFFFF')).replace(/\uFFFF/g, function () { return held[k++]; });
    };
  }
  var stemEnglish = byCodePoints(stemBmp);
  var stemGerman = byCodePoints(stemGermanBmp);
  var stemSpanish = byCodePoints(stemSpanishBmp);

  // --- languages ----------------------------------------------------------------------
  // Sphinx `language` primary subtag -> stemmer; the same table as stemmer.py.
  var STEMMERS = { en: stemEnglish, de: stemGerman, es: stemSpanish };
  var ALGORITHMS = { en: 'english', de: 'german', es: 'spanish' };
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
    stemEnglish: stemEnglish,
    stemGerman: stemGerman,
    stemSpanish: stemSpanish
  };
});
