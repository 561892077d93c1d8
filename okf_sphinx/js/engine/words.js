/* Mirrors okf_sphinx/engine/words.py: which of a smart query's words count, and how much (stop
 * words and question words never decide; words count by their page idf). Every float operation
 * runs in the Python twin's order. */
define('engine/words', function (use) {
  'use strict';
  var C = use('core/constants');
  var own = Object.prototype.hasOwnProperty;

  // The stop words of a site language ("en", "en_GB", "pt-BR" …): those of its primary subtag.
  function stopWords(language) {
    var primary = (language || 'en').replace(/_/g, '-').split('-')[0].toLowerCase();
    return new Set(own.call(C.STOP_WORDS, primary) ? C.STOP_WORDS[primary] : []);
  }
  // Per word: does it count? A stop word does not, unless its index is in kept (a Set) or every
  // word is a stop word.
  function counting(words, stops, kept) {
    var out = words.map(function (w, i) { return !stops.has(w) || kept.has(i); });
    return out.some(function (x) { return x; }) ? out : words.map(function () { return true; });
  }
  // coverage ** COVERAGE_POWER by repeated multiplication (the same bits in every engine).
  function power(coverage) {
    var out = 1.0;
    for (var i = 0; i < C.COVERAGE_POWER; i++) out = out * coverage;
    return out;
  }
  // The idf share of the query's words and phrases each page holds. weights: each word's (then
  // each phrase's) idf; holders: the pages holding each (anything with has()).
  function Coverage(weights, holders) {
    this.weights = weights;
    this.holders = holders;
    var total = 0.0, top = weights.length ? weights[0] : 0.0;
    weights.forEach(function (w) { total += w; if (w > top) top = w; });
    this.total = total;
    this.rarest = [];  // the most specific words: those of the largest idf
    for (var k = 0; k < weights.length; k++) if (weights[k] === top) this.rarest.push(k);
  }
  // The page's coverage: the idf of what it holds over the idf of all (1 when every idf is 0).
  Coverage.prototype.of = function (page) {
    if (this.total === 0.0) return 1.0;
    var held = 0.0;
    for (var k = 0; k < this.weights.length; k++) if (this.holders[k].has(page)) held += this.weights[k];
    return held / this.total;
  };
  // Is a page that lacks some word shown beside the pages that hold them all?
  Coverage.prototype.shown = function (page, coverage) {
    var self = this;
    return coverage >= C.MIN_COVERAGE || this.rarest.some(function (k) { return self.holders[k].has(page); });
  };

  return { stopWords: stopWords, counting: counting, power: power, Coverage: Coverage };
});
