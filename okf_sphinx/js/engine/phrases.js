/* Mirrors okf_sphinx/engine/phrases.py: quoted phrases of a smart query, and the sections that
 * hold one; a query that is a sentence, and the sections of a shown page that hold it. */
define('engine/phrases', function (use) {
  'use strict';
  var C = use('core/constants'), S = use('core/strings'), terms = use('core/terms');

  // The quoted phrases of a query ("…", “…”; marks pair up in order), as terms: those of at
  // least two terms, distinct, in order, at most MAX_PHRASES.
  function phrases(normaliser, query) {
    var marks = [], re = /["\u201c\u201d]/g, m, out = [];
    while ((m = re.exec(query)) !== null) marks.push(m.index);
    for (var i = 0; i + 1 < marks.length; i += 2) {
      var t = normaliser.terms(query.slice(marks[i] + 1, marks[i + 1]));
      if (t.length >= 2 && !out.some(function (o) { return o.join('\u0000') === t.join('\u0000'); }) && out.length < C.MAX_PHRASES) out.push(t);
    }
    return out;
  }
  // Do words hold phrase's terms consecutively, in order?
  function holdsPhrase(words, phrase) {
    return holdsSentence(words, phrase, false);
  }
  // Sections (that keep allows) holding the phrase's words in order, checked in their text: the
  // first MAX_PHRASE_SECTIONS by sid that hold all its words exactly; later ones count as holding it.
  async function phraseSections(index, phrase, keep) {
    var postings = await Promise.all(phrase.map(function (t) { return index.posting(t); }));
    if (postings.some(function (p) { return p === null; })) return new Set();
    var rest = postings.slice(1).map(function (p) { return p.positions; });
    var both = postings[0].sids.filter(function (sid) { return rest.every(function (r) { return r.has(sid); }) && keep(sid); });
    var found = await sectionsHolding(index, both.slice(0, C.MAX_PHRASE_SECTIONS), phrase, false);
    both.slice(C.MAX_PHRASE_SECTIONS).forEach(function (sid) { found.add(sid); });
    return found;
  }

  // Do words hold sentence's terms consecutively, in order (with prefix, its last term as the
  // start of a term)?
  function holdsSentence(words, sentence, prefix) {
    var n = sentence.length, last = sentence[n - 1];
    for (var i = 0; i + n <= words.length; i++) {
      var j = 0;
      while (j < n - 1 && words[i + j] === sentence[j]) j++;
      if (j === n - 1 && (words[i + j] === last || (prefix && words[i + j].startsWith(last)))) return true;
    }
    return false;
  }
  // Those of sids whose text, as terms, holds run (holdsSentence).
  async function sectionsHolding(index, sids, run, prefix) {
    var secs = await Promise.all(sids.map(function (sid) { return index.section(sid); }));
    // the tables only for a text that needs them
    var normaliser = secs.some(function (s) { return !S.isAscii(s.text); }) ? await index.normaliser() : terms.ASCII;
    var found = new Set();
    secs.forEach(function (s, i) {
      if (holdsSentence((S.isAscii(s.text) ? terms.ASCII : normaliser).terms(s.text), run, prefix)) found.add(sids[i]);
    });
    return found;
  }
  // Does section sid's text, as terms, hold run (holdsSentence)?
  async function sectionHolds(index, sid, run, prefix) {
    return (await sectionsHolding(index, [sid], run, prefix)).has(sid);
  }

  return {
    phrases: phrases, holdsPhrase: holdsPhrase, phraseSections: phraseSections,
    holdsSentence: holdsSentence, sectionsHolding: sectionsHolding, sectionHolds: sectionHolds
  };
});
