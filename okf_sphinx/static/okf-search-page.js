/* okf_sphinx search page: the results page of the theme's search box (#okf-search, from
 * templates/okf-search-body.html), on window.OkfSearch (okf-search.js, loaded before it).
 * The page has no search dialog (okf-boot.js is not loaded on it): Ctrl/Cmd+K and "/" focus its
 * field, and a theme's search box (a form leading to this page; MkDocs: the boxes data-okf-box
 * selects) searches in place.  The whole state is in the URL (?q=, mode=, n=, under=, kind=,
 * expand=, as_typed=); index text is inserted as text only, never as HTML.  Its words are PAGE_STRINGS (English), replaced by
 * the site language's from #okf-search's data-okf-strings (capture/ui_strings.py
 * PAGE_STRINGS, the same catalogue as the dialog's).  In Node, the file exports {PAGE_STRINGS}. */
(function (root) {
  'use strict';
  // -- UI strings (English defaults; the build passes translations in data-okf-strings) ------
  var PAGE_STRINGS = {
    label: 'Search the documentation',
    label_keyword: 'Search the documentation (every word must appear in a section)',
    more: 'Show more results',
    noscript: 'Search needs JavaScript. You can still browse the pages from the table of contents.',
    searching: 'Searching',
    failed: 'Search failed: {error}',
    none: 'No page contains {terms}.',
    partial: 'No page contains all of: {terms}. {n} pages have some of them.',
    partial_one: 'No page contains all of: {terms}. 1 page has some of them.',
    match: '{n} pages match.',
    match_one: '1 page matches.',
    sections_none: 'No section contains all of: {terms}.',
    sections_match: '{n} sections match.',
    sections_match_one: '1 section matches.',
    meaning_none: 'No page is near in meaning to: {terms}.',
    meaning: '{n} pages by meaning.',
    meaning_one: '1 page by meaning.',
    first: 'Showing the first {n}.',
    shown_all: 'Showing all {n}.',
    filters: 'Filters: {filters}.',
    filter_under: 'under {path}',
    filter_kind: 'kind {kinds}',
    suggest_said: 'No page has \u201c{term}\u201d: did you mean {words}?',
    missing: 'Missing: {terms}',
    related: 'Linked from these results',
    via_ref: 'linked from a result',
    via_doc: 'a page a result links to',
    via_toctree: 'in a result\u2019s table of contents',
    via_object: 'an object a result names',
    by_meaning: 'by meaning',
    corrected: 'Showing results for \u201c{query}\u201d.',
    as_typed: 'Search for \u201c{query}\u201d instead'
  };
  if (typeof module === 'object' && module.exports) { module.exports = { PAGE_STRINGS: PAGE_STRINGS }; return; }
  var doc = root.document, okf = root.OkfSearch, boxes = doc && doc.currentScript && doc.currentScript.getAttribute('data-okf-box');
  if (!doc || !okf) return;
  // results per step: 10 sections in keyword mode; 5 pages (each with up to 3 sections) in
  // smart mode, as Pagefind's UI shows 5 — the first answer reads the sections it shows
  var PAGE = 10, SMART_PAGE = 5;
  function initPage() {
    var box = doc.getElementById('okf-search');
    if (!box) return;
    var words = {};
    Object.keys(PAGE_STRINGS).forEach(function (k) { words[k] = PAGE_STRINGS[k]; });
    try {
      var given = JSON.parse(box.getAttribute('data-okf-strings') || '{}');
      Object.keys(given).forEach(function (k) { if (typeof given[k] === 'string' && words.hasOwnProperty(k)) words[k] = given[k]; });
    } catch (e) { /* a malformed attribute: English */ }
    function t(key, vars) {
      return words[key].replace(/\{(\w+)\}/g, function (all, k) { return vars && vars.hasOwnProperty(k) ? String(vars[k]) : all; });
    }
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
      if (h.matched === 'meaning') li.appendChild(el('span', 'okf-matched', t('by_meaning')));
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
      var title = el('h2', 'okf-related-title', t('related'));
      title.id = 'okf-related-title';
      related.appendChild(title);
      var ol = el('ol', 'okf-sections');
      items.forEach(function (e) {
        var li = el('li', 'okf-related-hit'), a = el(e.url ? 'a' : 'span', 'okf-link');
        if (e.url) a.href = siteRoot + e.url;
        a.appendChild(el('span', 'okf-heading', e.heading || e.title || e.concept_id));
        li.appendChild(a);
        if (e.heading && e.title && e.heading !== e.title) li.appendChild(el('span', 'okf-page', e.title));
        li.appendChild(el('span', 'okf-via', words.hasOwnProperty('via_' + e.via) ? t('via_' + e.via) : e.via));
        ol.appendChild(li);
      });
      related.appendChild(ol);
    }
    // a misspelt word searched as the site's word: say so, with a link to the words as typed
    function renderCorrected(result) {
      if (correction) { correction.remove(); correction = null; }
      if (!result.corrected) return;
      correction = el('p', 'okf-corrected', t('corrected', { query: result.corrected.query }) + ' ');
      var typed = el('a', 'okf-as-typed', t('as_typed', { query: result.query }));
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
      var terms = result.terms.join(', '), one = result.total === 1, said = [];
      if (result.corrected) said.push(t('corrected', { query: result.corrected.query }));
      if (result.mode === 'semantic') said.push(!result.total ? t('meaning_none', { terms: terms }) : t(one ? 'meaning_one' : 'meaning', { n: result.total }));
      else if (!result.total) said.push(t('none', { terms: terms }));
      else if (partial) said.push(t(one ? 'partial_one' : 'partial', { terms: terms, n: result.total }));
      else said.push(t(one ? 'match_one' : 'match', { n: result.total }));
      if (result.total && result.truncated) said.push(t('first', { n: n }));
      else if (result.total && result.mode !== 'semantic' && !partial) said.push(t('shown_all', { n: n }));
      if (under || kinds.length) {
        var filters = (under ? [t('filter_under', { path: under })] : []).concat(kinds.length ? [t('filter_kind', { kinds: kinds.join(', ') })] : []);
        said.push(t('filters', { filters: filters.join('; ') }));
      }
      result.suggestions.forEach(function (s) {
        if (s.candidates.length) said.push(t('suggest_said', { term: s.term, words: s.candidates.join(', ') }));
      });
      say(said.join(' '));
      result.pages.forEach(function (pg) {
        var li = el('li', 'okf-page-result'), a = el(pg.url ? 'a' : 'span', 'okf-page-link', pg.title || pg.concept_id);
        if (pg.url) a.href = siteRoot + pg.url;
        li.appendChild(a);
        if (pg.partial) li.appendChild(el('span', 'okf-missing', t('missing', { terms: pg.missing_terms.join(', ') })));
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
      if (!result.total) say(t('sections_none', { terms: result.terms.join(', ') }));
      else say(t(result.total === 1 ? 'sections_match_one' : 'sections_match', { n: result.total }) + ' '
               + t(result.truncated ? 'first' : 'shown_all', { n: n }));
      result.hits.forEach(function (h) { list.appendChild(hitItem(h, result, norm, null, false)); });
      if (more) more.hidden = !(result.truncated && n < 100);
    }
    function run(q) {
      var mine = ++token;
      current = q;
      if (!q) { list.textContent = ''; say(''); if (more) more.hidden = true; if (related) renderRelated([]); return Promise.resolve(); }
      say(t('searching') + '\u2026');
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
        say(err instanceof okf.OkfError ? err.message : t('failed', { error: err }), true);
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
    // this page has no search dialog (okf-boot.js is not loaded here: its code is the dialog's):
    // the dialog's shortcuts (Ctrl/Cmd+K, "/" outside text fields) come to this page's field, and
    // the theme's own search box searches in place
    var mac = /Mac|iPhone|iPad/.test(root.navigator.platform || root.navigator.userAgent || '');
    root.addEventListener('keydown', function (ev) {
      var k = ev.key, t = ev.target, tag = t && t.tagName;
      // okf-boot.js's rule (typing), which this page does not load: a field one types into, not
      // a checkbox, radio or button a theme's page holds (Material's drawer toggle)
      var field = !!t && (t.isContentEditable || tag === 'TEXTAREA' || tag === 'SELECT'
        || (tag === 'INPUT' && !/^(button|submit|reset|checkbox|radio|range|color|file|image)$/i.test(t.type)));
      if ((/^k$/i.test(k) && !ev.shiftKey && !ev.altKey && (mac ? ev.metaKey : ev.ctrlKey))
          || (k === '/' && !ev.ctrlKey && !ev.metaKey && !ev.altKey && !field)) {
        ev.preventDefault();
        ev.stopImmediatePropagation();
        input.focus();
        input.select();
      }
    }, true);
    // a theme's own search box (MkDocs: data-okf-box, the selectors of its themes' boxes)
    if (boxes) root.addEventListener('focusin', function (ev) {
      var t = ev.target;
      if (!t || !t.closest || t.closest('#okf-search') || !t.closest(boxes)) return;
      if (t.tagName === 'INPUT' && t.value) input.value = t.value;
      input.focus();
      input.select();
    }, true);
    doc.addEventListener('submit', function (ev) {
      var other = ev.target, q = other !== form && other.elements && other.elements.namedItem('q');
      if (!q || typeof q.value !== 'string' || new URL(other.action, doc.baseURI).pathname !== root.location.pathname) return;
      ev.preventDefault();
      ev.stopImmediatePropagation();
      input.value = q.value;
      form.requestSubmit ? form.requestSubmit() : form.dispatchEvent(new Event('submit', { cancelable: true }));
    }, true);
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
