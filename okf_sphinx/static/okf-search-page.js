/* okf_sphinx search page: the results page of the theme's search box (#okf-search, from
 * templates/okf-search-body.html), on window.OkfSearch (okf-search.js, loaded before it).
 * The whole state is in the URL (?q=, mode=, n=, under=, kind=, expand=, as_typed=); index text is
 * inserted as text only, never as HTML. */
(function (root) {
  'use strict';
  var doc = root.document, okf = root.OkfSearch;
  if (!doc || !okf) return;
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
    var pageMode = box.getAttribute('data-okf-mode');
    var defaultMode = pageMode === 'keyword' || pageMode === 'semantic' ? pageMode : 'smart', mode = defaultMode;
    // smart and semantic answers list pages (semantic: by meaning alone, docs/smart.md "Meaning")
    function byPages() { return mode === 'smart' || mode === 'semantic'; }
    function pageSize() { return byPages() ? SMART_PAGE : PAGE; }
    var under = null, kinds = [], expand = false;  // smart options, from the URL (?under=guide&kind=py:function&expand=1)
    var asTyped = false;  // smart: misspelt words searched as typed, not corrected (?as_typed=1)
    var correction = null;  // the line: Showing results for ... Search for ... instead

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
    function highlighted(norm, text, terms, stem, prefix) { return okf.highlight(norm, text, terms, stem, prefix, segmented); }
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
      // a site with semantic vectors: a section found by meaning, not by the words, says so
      if (h.matched === 'meaning') li.appendChild(el('span', 'okf-matched', 'by meaning'));
      // smart: the words the section matched (no stop word; a corrected word as searched), the
      // last one completed where it matched (the page asks with prefix)
      var words = pageTitle && h.matched_terms ? h.matched_terms : result.terms, last = result.terms[result.terms.length - 1];
      // the excerpt as a reader reads it (the snippet is source text: markup dropped, display only);
      // a section's excerpt starts with its heading, already shown above it
      var shown = okf.readable(h.snippet, h.snippet_offset > 0, h.snippet_offset + okf.cpLen(h.snippet) < h.text_length), heading = h.heading || '';
      if (!h.snippet_offset && heading && shown.slice(0, heading.length) === heading && shown.length > heading.length) shown = shown.slice(heading.length).replace(/^\s+/, '');
      var snip = highlighted(norm, shown, words, stem, pageTitle && words.indexOf(last) >= 0 ? last : undefined);
      if (h.snippet_offset > 0) snip.insertBefore(doc.createTextNode('\u2026 '), snip.firstChild);
      if (h.snippet_offset + okf.cpLen(h.snippet) < h.text_length) snip.appendChild(doc.createTextNode(' \u2026'));
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
    // a misspelt word searched as the site's word: say so, with a link to the words as typed
    function renderCorrected(result) {
      if (correction) { correction.remove(); correction = null; }
      if (!result.corrected) return;
      correction = el('p', 'okf-corrected', 'Showing results for \u201c' + result.corrected.query + '\u201d. ');
      var typed = el('a', 'okf-as-typed', 'Search for \u201c' + result.query + '\u201d instead');
      asTyped = true;
      typed.href = toUrl(result.query);
      asTyped = false;
      typed.addEventListener('click', function (ev) {
        ev.preventDefault();
        asTyped = true;
        shown = pageSize();
        record(result.query, false);
        box.setAttribute('data-okf-state', 'busy');
        run(result.query);
      });
      correction.appendChild(typed);
      list.parentNode.insertBefore(correction, list);
    }
    function renderSmart(result, norm, stem) {
      list.textContent = '';
      renderRelated(result.expanded || []);
      renderCorrected(result);
      if (result.corrected) {  // the results are marked for the words as searched
        var fixed = {}, view = {};
        result.corrected.words.forEach(function (w) { fixed[w.from] = w.to; });
        Object.keys(result).forEach(function (k) { view[k] = result[k]; });
        view.terms = result.terms.map(function (t) { return fixed.hasOwnProperty(t) ? fixed[t] : t; });
        result = view;
      }
      var n = result.pages.length, partial = n > 0 && result.pages[0].partial;
      var msg;
      if (result.mode === 'semantic') msg = !result.total ? 'No page is near in meaning to: ' + result.terms.join(', ') + '.'
        : result.total + (result.total === 1 ? ' page' : ' pages') + ' by meaning' + (result.truncated ? '; showing the first ' + n + '.' : '.');
      else if (!result.total) msg = 'No page contains ' + result.terms.join(', ') + '.';
      else if (partial) msg = 'No page contains all of: ' + result.terms.join(', ') + '. ' + result.total + (result.total === 1 ? ' page has' : ' pages have') + ' some of them' + (result.truncated ? '; showing the first ' + n + '.' : '.');
      else msg = result.total + (result.total === 1 ? ' page matches' : ' pages match') + (result.truncated ? '; showing the first ' + n + '.' : '; showing all ' + n + '.');
      if (result.corrected) msg = 'Showing results for \u201c' + result.corrected.query + '\u201d. ' + msg;
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
      if (result.mode === 'smart' || result.mode === 'semantic') return renderSmart(result, norm, stem);
      list.textContent = '';
      if (related) renderRelated([]);
      renderCorrected(result);
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
      var eng = okf.index();
      var opts = { mode: mode, limit: Math.min(shown, 100), present: true };
      if (byPages() && under) opts.under = under;
      if (byPages() && kinds.length) opts.kind = kinds;
      if (byPages() && expand) opts.expand = true;
      if (mode === 'smart') opts.prefix = true;  // the last word completed, as in the dialog and the CLI's text answer
      if (mode === 'smart' && asTyped) opts.correct = false;
      return eng.search(q, opts).then(function (result) {
        return eng.normaliserFor(result.corrected ? result.corrected.query : q).then(function (norm) {  // the words as searched
          var stem = result.mode === 'smart' ? eng.stem() : null;
          segmented = result.mode === 'smart' ? okf.module('engine/smart').segmenter(eng) : null;
          if (mine === token) render(result, norm, stem);
        });
      }, function (err) {
        if (mine !== token) return;
        list.textContent = '';
        if (more) more.hidden = true;
        if (related) renderRelated([]);
        say(err instanceof okf.OkfError ? err.message : 'Search failed: ' + err, true);
      }).then(function () { if (mine === token) box.setAttribute('data-okf-state', 'done'); });
    }
    // The whole state is in the URL: ?q=…&mode=…&n=…&under=…&kind=… (mode only when not the
    // page's default, n only past the first page), so reload, Back/Forward and a shared link
    // show the same results.
    function fromUrl() {
      var p = new URLSearchParams(root.location.search), m = p.get('mode'), n = parseInt(p.get('n'), 10);
      mode = m === 'smart' || m === 'keyword' || m === 'semantic' ? m : defaultMode;
      var k = pageSize();
      shown = n > k ? Math.min(100, Math.ceil(n / k) * k) : k;
      under = p.get('under') || null;
      kinds = p.getAll('kind').filter(function (k) { return k; });
      expand = p.get('expand') === '1';
      asTyped = p.get('as_typed') === '1';
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
      if (asTyped && mode === 'smart') p.set('as_typed', '1');
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
      asTyped = false;  // a new search corrects again
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
})(this);
