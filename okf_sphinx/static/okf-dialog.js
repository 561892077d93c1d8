/* okf_sphinx search dialog: search as you type from every page (smart mode, page-grouped),
 * and the landing highlights on the page a result opens.
 *
 * Loaded by okf-boot.js (the page-side snippet) when the reader reaches for search, after the
 * runtime: the boot builds the dialog and opens it at once, this file answers in it.  Uses only
 * okf-search.js's public API (OkfSearch.index(), .search, .highlight, .matches, .OkfError).
 * A native <dialog> opened with showModal() traps focus; Esc or a click outside closes it and
 * focus returns where it was.  WAI-ARIA 1.2 combobox: the input owns a listbox of page groups
 * whose options are real links.  Index text is inserted as text only, never as HTML.
 * The page's direction (dir="rtl" on <html>/<body>, or an RTL lang) lays the dialog out RTL.
 * The excerpts' readable text is the runtime's (OkfSearch.readable, js/surfaces/readable.js).
 */
(function () {
  'use strict';

  var doc = document, win = window;
  var boot = win.OkfDialog && win.OkfDialog.boot;  // okf-boot.js: the page's settings and the dialog's elements
  if (!boot || !win.OkfSearch) return;
  var okf = win.OkfSearch, STRINGS = boot.strings, tr = boot.tr, siteRoot = boot.root, searchUrl = boot.searchUrl;
  var el = boot.el, button = boot.button, direction = boot.direction;
  var PAGES = 5, MAX = 100, RECENT = 8, HL = 'okf-hl', CRUMB_IDLE = 250, XHTML = 'http://www.w3.org/1999/xhtml';
  var dialog = null, input, status, list, more, all, recentBar, token = 0, active = -1;
  var asTyped = null;  // the query the reader asked to search as typed (no correction)
  var spelling = null;  // the spelling part of the runtime (okf-spelling.js), once asked for
  var limit = PAGES, focusAt = -1;
  var perf = win.performance && win.performance.mark ? win.performance : null;
  var outlines = {};

  // -- recent searches: localStorage, one list per site; nothing when storage is unavailable --
  var RECENT_KEY = 'okf-recent:' + siteRoot;
  function storage() {
    try { var s = win.localStorage, k = 'okf-probe'; s.setItem(k, k); s.removeItem(k); return s; } catch (e) { return null; }
  }
  function recent() {
    var s = storage();
    try { var v = s ? JSON.parse(s.getItem(RECENT_KEY) || '[]') : []; return Array.isArray(v) ? v.filter(function (x) { return typeof x === 'string' && x; }).slice(0, RECENT) : []; } catch (e) { return []; }
  }
  function remember(q) {
    q = q.trim();
    var s = storage();
    if (!q || !s) return;
    var v = recent().filter(function (x) { return x !== q; });
    v.unshift(q);
    try { s.setItem(RECENT_KEY, JSON.stringify(v.slice(0, RECENT))); } catch (e) { /* full or denied */ }
  }
  function forget() { var s = storage(); if (s) try { s.removeItem(RECENT_KEY); } catch (e) { /* denied */ } }

  // the boot's dialog (okf-boot.js builds it): what the reader does in it
  function attach(ui) {
    dialog = ui.dialog; input = ui.input; status = ui.status; list = ui.list; more = ui.more; all = ui.all; recentBar = ui.recentBar;
    ui.clearRecent.addEventListener('click', function () { forget(); showRecent(); input.focus(); });
    more.addEventListener('click', function () {
      focusAt = options().length;
      limit = Math.min(MAX, limit + PAGES);
      input.focus();
      run();
    });
    all.addEventListener('click', function () { remember(input.value); });
    input.addEventListener('keydown', onKey);
    list.addEventListener('click', function (ev) {
      var a = ev.target.closest && ev.target.closest('a[role=option]');
      if (!a) return;
      if (a.hasAttribute('data-okf-recent')) {
        if (ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button) return;  // a new tab: the link's own search page
        ev.preventDefault();
        useRecent(a.getAttribute('data-okf-recent'));
      } else {
        remember(input.value);
        // a theme that swaps pages in place (Material's instant loading) keeps this page: close
        if (!(ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button)) dialog.close();
      }
    });
  }

  function options() { return list.querySelectorAll('[role=option]'); }

  function select(i) {
    var opts = options();
    if (active >= 0 && opts[active]) opts[active].setAttribute('aria-selected', 'false');
    active = opts.length ? Math.max(-1, Math.min(i, opts.length - 1)) : -1;
    if (active >= 0) {
      opts[active].setAttribute('aria-selected', 'true');
      input.setAttribute('aria-activedescendant', opts[active].id);
      opts[active].scrollIntoView({ block: 'nearest' });
    } else input.removeAttribute('aria-activedescendant');
  }

  function useRecent(q) { input.value = q; limit = PAGES; input.focus(); run(); }

  function onKey(ev) {
    var opts = options();
    if (ev.key === 'ArrowDown') { ev.preventDefault(); if (opts.length) select(active < 0 ? 0 : (active + 1) % opts.length); }
    else if (ev.key === 'ArrowUp') { ev.preventDefault(); if (opts.length) select(active <= 0 ? opts.length - 1 : active - 1); }
    else if (ev.key === 'Escape') { ev.preventDefault(); dialog.close(); }
    else if (ev.key === 'Enter') {
      ev.preventDefault();
      var a = active >= 0 ? opts[active] : null;
      if (a && a.hasAttribute('data-okf-recent') && !(ev.ctrlKey || ev.metaKey)) { useRecent(a.getAttribute('data-okf-recent')); return; }
      var href = a ? a.href : (input.value.trim() ? searchUrl(input.value) : null);
      if (!href) return;
      remember(input.value);
      if (ev.ctrlKey || ev.metaKey) win.open(href, '_blank', 'noopener');
      else { dialog.close(); follow(href); }
    }
  }

  // go to href as a click on a link would, so a theme that loads pages in place (Material's
  // instant loading) does so here too; elsewhere it is an ordinary navigation
  function follow(href) {
    var a = doc.createElement('a');
    a.href = href;
    a.hidden = true;
    doc.body.appendChild(a);
    a.click();
    a.remove();
  }

  function say(text) { status.textContent = text; }
  // the section's URL with the query for the landing highlights (?okf-hl=…#anchor)
  function landingUrl(url, q) {
    var u = new URL(url, siteRoot);
    u.searchParams.set(HL, q.replace(/\s+/g, ' ').replace(/^ /, ''));
    return u.href;
  }

  // the parents of a deep section (level 3 and more): the page outline (concepts + p/<k>),
  // loaded after the answer is shown; level 1-2 sections need none (the group is the page)
  function outline(eng, cid) {
    if (!outlines[cid]) {
      outlines[cid] = eng.concepts().then(function (rows) {
        var row = rows.filter(function (r) { return r[0] === cid; })[0];
        return row ? eng.page(row[2]) : null;
      });
      outlines[cid].catch(function () { delete outlines[cid]; });
    }
    return outlines[cid];
  }
  // asked for once typing pauses (CRUMB_IDLE ms without a newer answer): the outlines of the
  // pages of every intermediate answer are not worth their bytes.  data-okf-crumbs = the query
  // whose breadcrumbs are all in place.
  function crumbs(eng, jobs, q, mine) {
    setTimeout(function () {
      if (mine !== token) return;
      Promise.all(jobs.map(function (j) { return crumbsNow(eng, j[0], j[1], j[2], mine); })).then(function () {
        if (mine === token) dialog.setAttribute('data-okf-crumbs', q);
      });
    }, jobs.length ? CRUMB_IDLE : 0);
  }
  function crumbsNow(eng, h, pageTitle, into, mine) {
    return outline(eng, h.concept_id).then(function (p) {
      if (mine !== token || !p || !Array.isArray(p.sections)) return;
      var secs = p.sections, i = -1;
      for (var k = 0; k < secs.length; k++) if (secs[k].path === h.path && secs[k].line_start === h.line_start) { i = k; break; }
      if (i < 0) return;
      var chain = [], seen = 0;
      for (var j = secs[i].parent; typeof j === 'number' && secs[j] && seen++ < 32; j = secs[j].parent) chain.unshift(secs[j].heading);
      if (chain.length && chain[0] !== pageTitle) chain.unshift(pageTitle);
      if (chain.length > 1) into.textContent = chain.join(' \u203a ');
    }, function () { /* no breadcrumb */ });
  }

  function showRecent() {
    clear();
    var past = recent();
    recentBar.hidden = !past.length;
    if (!past.length) return;
    var group = el('div', 'okf-dialog-group');
    group.setAttribute('role', 'group');
    group.setAttribute('aria-label', STRINGS.recent);
    var title = el('div', 'okf-dialog-page', STRINGS.recent);
    title.setAttribute('aria-hidden', 'true');
    group.appendChild(title);
    past.forEach(function (q, i) {
      var a = el('a', 'okf-dialog-option okf-dialog-recent', q);
      a.id = 'okf-dialog-opt-' + i;
      a.href = searchUrl(q);
      a.tabIndex = -1;
      a.setAttribute('role', 'option');
      a.setAttribute('aria-selected', 'false');
      a.setAttribute('data-okf-recent', q);
      a.addEventListener('mousemove', function () { var n = Array.prototype.indexOf.call(options(), a); if (n !== active) select(n); });
      group.appendChild(a);
    });
    list.appendChild(group);
    input.setAttribute('aria-expanded', 'true');
  }

  function render(q, result, norm, stem, eng, mine) {
    clear();
    // a misspelt word searched as the site's word: its results are marked and opened with the word as searched
    var fixed = {}, said = result.corrected ? result.corrected.query : q;
    if (result.corrected) result.corrected.words.forEach(function (w) { fixed[w.from] = w.to; });
    var marked = result.terms.map(function (t) { return fixed.hasOwnProperty(t) ? fixed[t] : t; });
    var n = 0, msg, jobs = [], prefix = /\s$/.test(q) || !marked.length ? null : marked[marked.length - 1];
    var seg = okf.module('engine/smart').segmenter(eng);  // a Chinese, Japanese or Korean site: mark the words inside runs
    var terms = { terms: marked.join(', '), n: result.total, k: result.pages.length };
    if (!result.total) msg = tr('none', terms);
    else if (result.pages[0].partial) msg = tr(result.total === 1 ? 'partial_one' : 'partial', terms);
    else msg = tr(result.total === 1 ? 'match_one' : result.truncated ? 'match_shown' : 'match', terms);
    result.pages.forEach(function (pg) {
      var pageTitle = pg.title || pg.concept_id;
      var group = el('div', 'okf-dialog-group');
      group.setAttribute('role', 'group');
      group.setAttribute('aria-label', pageTitle);
      var title = el('div', 'okf-dialog-page', pageTitle);
      title.setAttribute('aria-hidden', 'true');
      group.appendChild(title);
      if (pg.partial) {
        var miss = el('div', 'okf-dialog-missing', tr('missing', { terms: pg.missing_terms.join(', ') }));
        miss.setAttribute('aria-hidden', 'true');
        group.appendChild(miss);
      }
      // the words each section matched (no stop word, a corrected word as searched) are the ones
      // marked, in its excerpt and on the page it opens; the last word is completed where it matched
      var pageWords = [];
      pg.hits.forEach(function (h) { (h.matched_terms || []).forEach(function (t) { if (pageWords.indexOf(t) < 0) pageWords.push(t); }); });
      var completes = prefix !== null && pageWords.indexOf(prefix) >= 0;  // the landing page completes the last word it gets
      if (completes) pageWords = pageWords.filter(function (t) { return t !== prefix; }).concat([prefix]);
      var landing = pageWords.join(' ') + (completes ? '' : ' ');
      pg.hits.slice(0, 3).forEach(function (h) {
        if (!h.url) return;  // a section this build renders nowhere (singlehtml orphans)
        var a = el('a', 'okf-dialog-option');
        a.id = 'okf-dialog-opt-' + n++;
        a.href = landingUrl(h.url, pageWords.length ? landing : said);
        a.tabIndex = -1;
        a.setAttribute('role', 'option');
        a.setAttribute('aria-selected', 'false');
        var head = el('span', 'okf-dialog-heading'), headText = h.heading || h.title || h.concept_id;
        if (h.kind) head.appendChild(el('span', 'okf-kind', h.kind));
        head.appendChild(doc.createTextNode(headText));
        // a site with semantic vectors: a section found by meaning, not by the words, says so
        if (h.matched === 'meaning') head.appendChild(el('span', 'okf-matched', 'by meaning'));
        // a page's first section is headed by the page title, already shown above: its excerpt alone
        if (h.kind || h.matched === 'meaning' || headText !== pageTitle) a.appendChild(head);
        if (h.level >= 3) {
          var crumb = el('span', 'okf-dialog-crumbs');
          a.appendChild(crumb);
          jobs.push([h, pageTitle, crumb]);
        }
        var cutEnd = h.snippet_offset + okf.cpLen(h.snippet) < h.text_length;
        var shown = okf.readable(h.snippet, h.snippet_offset > 0, cutEnd), heading = h.heading || '';
        // the excerpt of a section starts with its heading, already shown above it
        if (!h.snippet_offset && heading && shown.slice(0, heading.length) === heading && shown.length > heading.length) shown = shown.slice(heading.length).replace(/^\s+/, '');
        var words = h.matched_terms || marked;
        var snip = okf.highlight(norm, shown, words, stem, words.indexOf(prefix) >= 0 ? prefix : null, seg);
        if (h.snippet_offset > 0) snip.insertBefore(doc.createTextNode('\u2026 '), snip.firstChild);
        if (cutEnd) snip.appendChild(doc.createTextNode(' \u2026'));
        a.appendChild(snip);
        a.addEventListener('mousemove', function () { var i = Array.prototype.indexOf.call(options(), a); if (i !== active) select(i); });
        group.appendChild(a);
      });
      list.appendChild(group);
    });
    var sugg = el('p', 'okf-dialog-suggest');
    if (result.corrected) {  // "Showing results for parametrize. Search for paramterize instead"
      var corrected = tr('corrected', { query: result.corrected.query });
      sugg.appendChild(doc.createTextNode(corrected + ' '));
      var typed = button('okf-dialog-did okf-dialog-as-typed', tr('as_typed', { query: q }));
      typed.addEventListener('click', function () { asTyped = q; input.focus(); limit = PAGES; run(); });
      sugg.appendChild(typed);
      msg = corrected + ' ' + msg;
    }
    result.suggestions.forEach(function (s) {
      if (!s.candidates.length) return;
      sugg.appendChild(doc.createTextNode((sugg.firstChild ? ' ' : '') + STRINGS.suggest + ' '));
      s.candidates.forEach(function (c, i) {
        var b = button('okf-dialog-did', c);
        b.addEventListener('click', function () { input.value = input.value.replace(new RegExp('(^|\\s)' + s.term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '(?=\\s|$)', 'i'), '$1' + c); input.focus(); limit = PAGES; run(); });
        if (i) sugg.appendChild(doc.createTextNode(', '));
        sugg.appendChild(b);
      });
      sugg.appendChild(doc.createTextNode('?'));
      msg += ' ' + tr('suggest_said', { term: s.term, words: s.candidates.join(', ') });
    });
    if (sugg.firstChild) list.parentNode.insertBefore(sugg, list);
    say(msg);
    input.setAttribute('aria-expanded', n ? 'true' : 'false');
    all.href = searchUrl(q) + (q === asTyped ? '&as_typed=1' : '');
    all.hidden = !result.total;
    more.hidden = !(result.truncated && limit < MAX);
    if (focusAt >= 0) { select(Math.min(focusAt, n - 1)); focusAt = -1; }
    crumbs(eng, jobs, q, mine);
  }

  function clear() {
    list.textContent = '';
    var old = dialog.querySelector('.okf-dialog-suggest');
    if (old) old.remove();
    active = -1;
    input.removeAttribute('aria-activedescendant');
    input.setAttribute('aria-expanded', 'false');
    all.hidden = true;
    more.hidden = true;
    recentBar.hidden = true;
  }

  // Each keystroke asks at once (no debounce: a warm answer takes a few milliseconds); the
  // answers are numbered and one that is not the newest is dropped, so an older answer never
  // overwrites a newer one.  Files are cached by the engine, so overlapping searches share them.
  function run() {
    var q = input.value, mine = ++token;
    dialog.setAttribute('data-okf-state', 'busy');
    function done() {
      if (mine !== token) return;
      dialog.setAttribute('data-okf-query', q);
      dialog.setAttribute('data-okf-state', 'done');
      if (perf) {
        perf.mark('okf-rendered');
        win.requestAnimationFrame(function () { setTimeout(function () { if (mine === token) perf.mark('okf-painted'); }, 0); });
      }
    }
    if (!q.trim()) { focusAt = -1; showRecent(); say(''); done(); return; }
    var eng = okf.index();
    if (!spelling) {  // read beside the first query: a word typed letter by letter is no word of the site at first
      spelling = okf.module('engine/source').loadPart('okf-spelling.js');
      spelling.catch(function () { spelling = null; });  // read again when a query needs it
    }
    eng.search(q, { mode: 'smart', limit: limit, prefix: true, correct: q !== asTyped, present: true }).then(function (result) {
      // (the words as searched: a correction may hold what an ASCII query does not)
      return eng.normaliserFor(result.corrected ? result.corrected.query : q).then(function (norm) {
        if (mine !== token) return;  // a newer keystroke has its own answer coming
        render(q, result, norm, eng.stem(), eng, mine);
      });
    }, function (err) {
      if (mine !== token) return;
      clear();
      say(err instanceof okf.OkfError ? err.message : tr('failed', { error: err }));
    }).then(done, done);
  }

  // -- landing: ?okf-hl=<query> marks the query's words on this page -------------------------
  // Text nodes are split around the matches (text only; the query is never parsed as HTML);
  // a bar offers previous / next match (starting at the section the link points to) and
  // "Hide Search Matches", which removes the marks and the parameter from the URL.
  function container() {
    return doc.querySelector('[role=main]') || doc.querySelector('main') || doc.querySelector('article') || doc.querySelector('div.body') || doc.body;
  }
  function land() {
    var q, stale = doc.querySelector('.okf-hl-bar');
    if (stale) stale.remove();  // the bar of the page this one replaced in place
    try { q = new URLSearchParams(win.location.search).get(HL); } catch (e) { return; }
    if (!q || !q.trim() || q.length > 512) return;
    var eng = okf.index(), box = container();
    // the manifest first: a query that is not ASCII reads the build's tables through it
    eng.open().then(function () { return eng.normaliserFor(q); }).then(function (norm) {
      var stem = null, seg = null, terms = norm.terms(q).slice(0, 32);
      try { stem = eng.stem(); seg = okf.module('engine/smart').segmenter(eng); } catch (e) { stem = null; }  // an index without smart data: exact words
      if (!terms.length) return;
      var prefix = /\s$/.test(q) ? null : terms[terms.length - 1];
      var walker = doc.createTreeWalker(box, NodeFilter.SHOW_TEXT, {
        acceptNode: function (t) {
          // HTML text only: an HTML <mark> inside SVG or MathML (a diagram's <text>) makes the word vanish
          var p = t.parentNode;
          return p && p.namespaceURI === XHTML && !p.closest('script, style, noscript, textarea, template, .okf-dialog, .okf-hl-bar, mark.okf-hl') ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT;
        }
      });
      var texts = [];
      for (var t = walker.nextNode(); t; t = walker.nextNode()) if (/\S/.test(t.nodeValue)) texts.push(t);
      var marks = [];
      texts.forEach(function (t) {
        var text = t.nodeValue, found = okf.matches(norm, text, terms, stem, prefix, seg);
        if (!found.length) return;
        var frag = doc.createDocumentFragment(), at = 0;
        found.forEach(function (r) {
          if (r[0] > at) frag.appendChild(doc.createTextNode(text.slice(at, r[0])));
          var m = el('mark', 'okf-hl', text.slice(r[0], r[1]));
          frag.appendChild(m);
          marks.push(m);
          at = r[1];
        });
        if (at < text.length) frag.appendChild(doc.createTextNode(text.slice(at)));
        t.parentNode.replaceChild(frag, t);
      });
      bar(q, marks, box);
    }).catch(function () { /* no index, or a corrupt one: nothing to mark */ });
  }
  function bar(q, marks, box) {
    var current = -1;
    var region = el('div', 'okf-hl-bar');
    region.dir = direction();
    region.setAttribute('role', 'region');
    region.setAttribute('aria-label', STRINGS.matches);
    var count = el('span', 'okf-hl-count');
    count.setAttribute('role', 'status');
    var prev = button('okf-hl-prev', STRINGS.previous), next = button('okf-hl-next', STRINGS.next);
    var hide = button('okf-hl-hide', STRINGS.hide);
    function go(i, scroll) {
      if (!marks.length) { count.textContent = STRINGS.count_none; return; }
      if (current >= 0) marks[current].classList.remove('okf-hl-current');
      current = (i + marks.length) % marks.length;
      marks[current].classList.add('okf-hl-current');
      count.textContent = tr('count', { i: current + 1, n: marks.length }) + ' \u2014 ' + q;
      if (scroll) marks[current].scrollIntoView({ block: 'center' });
      region.setAttribute('data-okf-current', String(current));
    }
    prev.addEventListener('click', function () { go(current - 1, true); });
    next.addEventListener('click', function () { go(current + 1, true); });
    prev.disabled = next.disabled = !marks.length;
    hide.addEventListener('click', function () {
      marks.forEach(function (m) {
        var p = m.parentNode;
        if (!p) return;
        p.replaceChild(doc.createTextNode(m.textContent), m);
        p.normalize();
      });
      region.remove();
      try {
        var u = new URL(win.location.href);
        u.searchParams.delete(HL);
        win.history.replaceState(win.history.state, '', u.href);
      } catch (e) { /* some file:// pages refuse replaceState: the marks are gone anyway */ }
      if (!box.hasAttribute('tabindex')) box.setAttribute('tabindex', '-1');
      box.focus({ preventScroll: true });
    });
    region.appendChild(count);
    region.appendChild(prev);
    region.appendChild(next);
    region.appendChild(hide);
    doc.body.appendChild(region);
    // the first match at or after the section the link points to
    var target = null, start = 0;
    try { target = win.location.hash ? doc.getElementById(decodeURIComponent(win.location.hash.slice(1))) : null; } catch (e) { target = null; }
    if (target) {
      for (start = 0; start < marks.length; start++) {
        if (target.contains(marks[start]) || (target.compareDocumentPosition(marks[start]) & Node.DOCUMENT_POSITION_FOLLOWING)) break;
      }
      if (start === marks.length) start = 0;
    }
    go(start, false);
    region.setAttribute('data-okf-state', 'done');
  }
  if (perf) perf.mark('okf-ready');  // the dialog's code runs (bench/bench_page_weight.py)
  boot.ready({
    attach: attach,
    input: function () { limit = PAGES; run(); },  // a keystroke
    opened: function () { limit = PAGES; run(); },  // the dialog shown, with what the field holds
    land: land
  });
})();
