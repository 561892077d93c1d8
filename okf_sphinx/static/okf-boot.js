/* okf_sphinx search, the page-side snippet: all a page loads of okf until the reader reaches
 * for search (docs/browser.md, "The search dialog").
 *
 * It opens the search dialog at once — Ctrl/Cmd+K, "/" outside text fields, the theme's own
 * search box focused or clicked, window.OkfDialog.open(query) — as a native <dialog> whose
 * field takes the reader's keys from the first one, and only then loads what answers them:
 * the stemmer of the site's language, the runtime (okf-search.js) and the dialog's behaviour
 * (okf-dialog.js), one after another in this order, each once (a script the page already has
 * is not loaded again).  Keys typed before they arrive are in the field; the first answer is
 * for all of them.  A page opened from a result (?okf-hl=…) loads them at once to mark the
 * words.  The site build writes the files to load (with their versions) into FILES below.
 *
 * Configuration (attributes of this <script> tag, all optional):
 *   data-okf-root         the site root, relative to the page (default: the folder above this script's)
 *   data-okf-index        the index folder, relative to the page (default: <root>/_okf/)
 *   data-okf-search-page  the search page, relative to the site root (default search.html)
 *   data-okf-strings      JSON object of UI strings replacing the English defaults (STRINGS)
 *   data-okf-box          CSS selectors of more theme search boxes and buttons to take over
 *   data-okf-slash        "theme": leave "/" to the theme, whose own search stays
 * In Node, the file exports {STRINGS, FILES} for tests.
 */
(function () {
  'use strict';
  // -- UI strings (English defaults; the build passes translations in data-okf-strings) ------
  var STRINGS = {
    label: 'Search', placeholder: 'Search the documentation', results: 'Search Results',
    searching: 'Searching', close: 'Close', none: 'No page contains {terms}.',
    partial: 'No page contains all of: {terms}. {n} pages have some of them.',
    partial_one: 'No page contains all of: {terms}. 1 page has some of them.',
    match: '{n} pages match.', match_one: '1 page matches.', missing: 'Missing: {terms}',
    suggest: 'Did you mean', suggest_said: 'No page has \u201c{term}\u201d: did you mean {words}?',
    all: 'All results', more: 'Load more', recent: 'Recent searches', clear_recent: 'Clear recent searches',
    hint: '\u2191\u2193 to move, Enter to open, {mod}+Enter for a new tab, Esc to close. Open with {key} or /.',
    failed: 'Search failed: {error}', matches: 'Search matches', hide: 'Hide Search Matches',
    next: 'next', previous: 'previous', count: '{i} of {n}', count_none: 'No match on this page'
  };
  // the files the dialog needs, beside this script, in load order (written by the site build)
  var FILES = /*okf:files*/[];
  if (typeof module === 'object' && module.exports) { module.exports = { STRINGS: STRINGS, FILES: FILES }; return; }

  var doc = document, win = window, script = doc.currentScript;
  if (!script || typeof HTMLDialogElement === 'undefined' || win.OkfDialog) return;
  function attr(name) { return script.getAttribute('data-okf-' + name); }
  // relative attributes are resolved now: a theme that swaps pages in place (Material's instant
  // loading) changes the page's URL, not these scripts
  var rootAttr = attr('root'), indexAttr = attr('index');
  var boot = {
    strings: STRINGS,
    root: rootAttr ? new URL(rootAttr, doc.baseURI).href : new URL('../', script.src).href,
    searchPage: attr('search-page') || 'search.html',
    mac: /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || ''),
    ui: null,  // the dialog's elements, once built
    quiet: false  // focusing the theme's box again must not reopen the dialog
  };
  var extraBoxes = attr('box'), slashToTheme = attr('slash') === 'theme', index = indexAttr ? new URL(indexAttr, doc.baseURI).href : null;
  try {
    var given = JSON.parse(attr('strings') || '{}');
    Object.keys(given).forEach(function (k) { if (typeof given[k] === 'string' && STRINGS.hasOwnProperty(k)) STRINGS[k] = given[k]; });
  } catch (e) { /* malformed: English */ }
  boot.tr = function (key, vars) {
    return STRINGS[key].replace(/\{(\w+)\}/g, function (all, k) { return vars && vars.hasOwnProperty(k) ? String(vars[k]) : all; });
  };
  boot.searchUrl = function (q) { return new URL(boot.searchPage, boot.root).href + '?q=' + encodeURIComponent(q); };
  // right-to-left pages: dir on <html>/<body>, else the language
  boot.direction = function () {
    var d = doc.documentElement.getAttribute('dir') || (doc.body && doc.body.getAttribute('dir'));
    if (d === 'rtl' || d === 'ltr') return d;
    return /^(ar|he|iw|fa|ur|ps|yi|ji|ckb|dv|sd|ug)(-|_|$)/i.test(doc.documentElement.lang || '') ? 'rtl' : 'ltr';
  };
  var perf = win.performance && win.performance.mark ? win.performance : null;
  var impl = null, loading = false, opener = null;

  // -- the code that answers: loaded once, when the reader reaches for search -----------------
  function load() {
    if (loading) return;
    loading = true;
    var have = {};
    Array.prototype.forEach.call(doc.scripts, function (s) { if (s.src) have[s.src.split('?')[0]] = 1; });
    FILES.forEach(function (f) {
      var url = new URL(f, script.src).href;
      if (have[url.split('?')[0]]) return;  // the search page has the runtime already
      var s = doc.createElement('script');
      s.src = url;
      s.async = false;  // run in order, as they are listed
      if (index && /^okf-search\.js/.test(f)) s.setAttribute('data-okf-index', index);
      s.onerror = function () { if (boot.ui) boot.ui.status.textContent = boot.tr('failed', { error: f.split('?')[0] }); };
      doc.head.appendChild(s);
    });
  }
  // okf-dialog.js calls this when it runs: from then on it answers
  boot.ready = function (code) {
    impl = code;
    boot.loaded = true;  // (tests and benchmarks wait for it)
    if (boot.ui) impl.attach(boot.ui);
    if (boot.ui && boot.ui.dialog.open) impl.opened();
    if (landing) impl.land();
  };

  function el(tag, cls, text) {
    var e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function button(cls, text) { var b = el('button', cls, text); b.type = 'button'; return b; }
  boot.el = el;
  boot.button = button;

  function build() {
    var ui = {}, dialog = ui.dialog = el('dialog', 'okf-dialog');
    dialog.setAttribute('aria-label', STRINGS.label);
    dialog.dir = boot.direction();
    var box = el('div', 'okf-dialog-box');
    var row = el('div', 'okf-dialog-row');
    var input = ui.input = el('input', 'okf-dialog-input');
    input.type = 'text';
    input.id = 'okf-dialog-q';
    input.setAttribute('role', 'combobox');
    input.setAttribute('aria-expanded', 'false');
    input.setAttribute('aria-controls', 'okf-dialog-list');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-label', STRINGS.label);
    input.setAttribute('aria-describedby', 'okf-dialog-hint');
    input.setAttribute('autocomplete', 'off');
    input.setAttribute('autocapitalize', 'off');
    input.setAttribute('spellcheck', 'false');
    input.placeholder = STRINGS.placeholder;
    row.appendChild(input);
    var close = button('okf-dialog-close', STRINGS.close);
    close.addEventListener('click', function () { dialog.close(); });
    row.appendChild(close);
    box.appendChild(row);
    var status = ui.status = el('p', 'okf-dialog-status');
    status.id = 'okf-dialog-status';
    status.setAttribute('role', 'status');
    status.setAttribute('aria-live', 'polite');
    box.appendChild(status);
    var recentBar = ui.recentBar = el('div', 'okf-dialog-recent-bar');
    recentBar.hidden = true;
    recentBar.appendChild(ui.clearRecent = button('okf-dialog-clear-recent', STRINGS.clear_recent));
    box.appendChild(recentBar);
    var list = ui.list = el('div', 'okf-dialog-list');
    list.id = 'okf-dialog-list';
    list.setAttribute('role', 'listbox');
    list.setAttribute('aria-label', STRINGS.results);
    box.appendChild(list);
    var foot = el('div', 'okf-dialog-foot');
    var more = ui.more = button('okf-dialog-load', STRINGS.more);
    more.hidden = true;
    foot.appendChild(more);
    var all = ui.all = el('a', 'okf-dialog-more', STRINGS.all);
    all.hidden = true;
    foot.appendChild(all);
    box.appendChild(foot);
    var hint = el('p', 'okf-dialog-hint', boot.tr('hint', { mod: boot.mac ? '\u2318' : 'Ctrl', key: boot.mac ? '\u2318K' : 'Ctrl+K' }));
    hint.id = 'okf-dialog-hint';
    box.appendChild(hint);
    dialog.appendChild(box);
    doc.body.appendChild(dialog);

    input.addEventListener('input', function () {
      if (perf) perf.mark('okf-input');
      if (impl) impl.input();
    });
    // before the code arrives, Enter opens the search page for the query (what it does with no
    // result chosen); Esc closes the dialog natively
    input.addEventListener('keydown', function (ev) {
      if (impl || ev.key !== 'Enter' || ev.isComposing || !input.value.trim()) return;
      ev.preventDefault();
      win.location.href = boot.searchUrl(input.value);
    });
    dialog.addEventListener('click', function (ev) { if (ev.target === dialog) dialog.close(); });  // the backdrop
    dialog.addEventListener('close', function () {
      var back = opener;
      opener = null;
      if (back && back.focus && doc.contains(back)) {
        boot.quiet = true;
        try { back.focus(); } finally { boot.quiet = false; }
      }
    });
    boot.ui = ui;
    if (impl) impl.attach(ui);
  }

  function open(from, text) {
    if (!boot.ui) build();
    var ui = boot.ui;
    if (ui.dialog.open) { ui.input.focus(); return; }
    opener = from || doc.activeElement;
    if (text !== undefined && text !== ui.input.value) ui.input.value = text;
    ui.dialog.showModal();
    ui.input.focus();
    ui.input.select();
    if (impl) impl.opened(); else load();
  }

  function typing(t) {
    if (!t || !t.tagName) return false;
    var tag = t.tagName;
    return t.isContentEditable || tag === 'TEXTAREA' || tag === 'SELECT' || (tag === 'INPUT' && !/^(button|submit|reset|checkbox|radio|range|color|file|image)$/i.test(t.type));
  }

  // the theme's own search box (alabaster, furo, rtd: a form leading to the search page;
  // pydata: its Ctrl+K dialog and its search buttons)
  function themeBox(t) {
    if (!t || !t.closest || (boot.ui && boot.ui.dialog.contains(t)) || t.closest('#okf-search') || t.closest('.okf-hl-bar')) return null;
    if (t.matches('input[name=q]') && t.form && /search(\.html)?\/?$/.test((t.form.getAttribute('action') || '').split('?')[0])) return t;
    return t.closest('.search-button__button, .search-button-field, button.search-button' + (extraBoxes ? ', ' + extraBoxes : ''));
  }

  // capture phase on window: runs before the theme's own handlers (pydata's Ctrl+K toggle)
  win.addEventListener('keydown', function (ev) {
    var k = ev.key, shown = boot.ui && boot.ui.dialog.open;
    if (/^k$/i.test(k) && !ev.shiftKey && !ev.altKey && (boot.mac ? ev.metaKey : ev.ctrlKey)) {
      ev.preventDefault();
      ev.stopImmediatePropagation();
      if (shown) boot.ui.dialog.close(); else open(null, undefined);
    } else if (k === '/' && !ev.ctrlKey && !ev.metaKey && !ev.altKey && !typing(ev.target) && !shown) {
      // Read the Docs' addons search answers "/" on its own: never stack two dialogs
      // (and Sphinx's own "/" shortcut, which focuses the theme's box, must not open ours either)
      if (slashToTheme || doc.querySelector('readthedocs-search')) { boot.quiet = true; setTimeout(function () { boot.quiet = false; }, 0); return; }
      ev.preventDefault();
      ev.stopImmediatePropagation();
      open(null, undefined);
    }
  }, true);
  win.addEventListener('focusin', function (ev) {
    if (boot.quiet) return;
    var box = themeBox(ev.target);
    if (box && box.tagName === 'INPUT') { box.blur(); open(box, box.value || undefined); }
  }, true);
  win.addEventListener('click', function (ev) {
    var box = themeBox(ev.target);
    if (!box) return;
    ev.preventDefault();
    ev.stopImmediatePropagation();
    open(box, box.value || undefined);
  }, true);

  // a page a result opened (?okf-hl=…): its words are marked (okf-dialog.js), so load at once;
  // land() again for a page a theme loaded in place (okf-mkdocs.js, Material's instant loading)
  var landing = false;
  function land() {
    try { if (!new URLSearchParams(win.location.search).get('okf-hl')) return; } catch (e) { return; }
    if (impl) { impl.land(); return; }
    landing = true;
    load();
  }
  // for a theme's own shortcuts (okf-mkdocs.js): open the dialog, optionally with a query
  win.OkfDialog = { open: function (text) { open(null, text); }, land: land, boot: boot };
  if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', land);
  else land();
})();
