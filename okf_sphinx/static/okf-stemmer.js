/* TEMPORARY development stand-in for the pinned Snowball stemmer (branch `stemmer`). */
(function (root, factory) {
  var api = factory();
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.OkfStemmer = api;
})(this, function () {
  'use strict';
  function english(word) {
    var suffixes = ['ing', 'ed', 'es', 's'];
    for (var i = 0; i < suffixes.length; i++) {
      var s = suffixes[i];
      if (word.length > s.length + 2 && word.slice(-s.length) === s) return word.slice(0, -s.length);
    }
    return word;
  }
  return {
    VERSION: 'dev-0',
    forLanguage: function (lang) {
      var l = String(lang || 'en').toLowerCase().replace('-', '_').split('_')[0];
      return l === 'en' ? english : null;
    }
  };
});
