/* okf_sphinx search dialog: search as you type from every page (smart mode, page-grouped).
 *
 * Uses only okf-search.js's public API (OkfSearch.engine(), .search, .highlight, .OkfError).
 * Opened by Ctrl/Cmd+K, "/" (outside text fields) and the theme's own search box; a native
 * <dialog> opened with showModal() traps focus; Esc or a click outside closes it and focus
 * returns where it was.  WAI-ARIA 1.2 combobox: the input owns a listbox of page groups whose
 * options are real links.  Index text is inserted as text only, never as HTML.
 */
(function () {
  'use strict';
  var doc = document, win = window;
  var script = doc.currentScript;
  if (!script || !win.OkfSearch || typeof HTMLDialogElement === 'undefined') return;
  var okf = win.OkfSearch;
  // the site root: data-okf-root (relative to the page; MkDocs), else the script lives in <root>/_static/
  var rootAttr = script.getAttribute('data-okf-root');
  var siteRoot = rootAttr ? new URL(rootAttr, doc.baseURI).href : new URL('../', script.src).href;
  var searchPage = script.getAttribute('data-okf-search-page') || 'search.html';
  var extraBoxes = script.getAttribute('data-okf-box');  // CSS selector: more theme search boxes to take over
  var slashToTheme = script.getAttribute('data-okf-slash') === 'theme';  // the theme keeps "/" (its own search stays)
  var PAGES = 8, DEBOUNCE = 40;
  var mac = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || '');
  var dialog = null, input, status, list, more, opener = null, token = 0, timer = 0, active = -1, quiet = false;

  function el(tag, cls, text) {
    var e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function build() {
    dialog = el('dialog', 'okf-dialog');
    dialog.setAttribute('aria-label', 'Search the documentation');
    var box = el('div', 'okf-dialog-box');
    var row = el('div', 'okf-dialog-row');
    input = el('input', 'okf-dialog-input');
    input.type = 'text';
    input.id = 'okf-dialog-q';
    input.setAttribute('role', 'combobox');
    input.setAttribute('aria-expanded', 'false');
    input.setAttribute('aria-controls', 'okf-dialog-list');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-label', 'Search the documentation');
    input.setAttribute('aria-describedby', 'okf-dialog-hint');
    input.setAttribute('autocomplete', 'off');
    input.setAttribute('autocapitalize', 'off');
    input.setAttribute('spellcheck', 'false');
    input.placeholder = 'Search the documentation';
    row.appendChild(input);
    var close = el('button', 'okf-dialog-close', 'Close');
    close.type = 'button';
    close.addEventListener('click', function () { dialog.close(); });
    row.appendChild(close);
    box.appendChild(row);
    status = el('p', 'okf-dialog-status');
    status.id = 'okf-dialog-status';
    status.setAttribute('role', 'status');
    status.setAttribute('aria-live', 'polite');
    box.appendChild(status);
    list = el('div', 'okf-dialog-list');
    list.id = 'okf-dialog-list';
    list.setAttribute('role', 'listbox');
    list.setAttribute('aria-label', 'Search results');
    box.appendChild(list);
    more = el('a', 'okf-dialog-more', 'All results');
    more.hidden = true;
    box.appendChild(more);
    var hint = el('p', 'okf-dialog-hint', '\u2191\u2193 to move, Enter to open, ' + (mac ? '\u2318' : 'Ctrl') + '+Enter for a new tab, Esc to close. Open with ' + (mac ? '\u2318K' : 'Ctrl+K') + ' or /.');
    hint.id = 'okf-dialog-hint';
    box.appendChild(hint);
    dialog.appendChild(box);
    doc.body.appendChild(dialog);

    input.addEventListener('input', function () {
      clearTimeout(timer);
      dialog.setAttribute('data-okf-state', 'busy');
      timer = setTimeout(run, DEBOUNCE);
    });
    input.addEventListener('keydown', onKey);
    dialog.addEventListener('click', function (ev) { if (ev.target === dialog) dialog.close(); });  // the backdrop
    dialog.addEventListener('close', function () {
      var back = opener;
      opener = null;
      if (back && back.focus && doc.contains(back)) {
        quiet = true;  // focusing the theme's box again must not reopen the dialog
        try { back.focus(); } finally { quiet = false; }
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

  function onKey(ev) {
    var opts = options();
    if (ev.key === 'ArrowDown') { ev.preventDefault(); select(active < 0 ? 0 : (active + 1) % opts.length); }
    else if (ev.key === 'ArrowUp') { ev.preventDefault(); select(active <= 0 ? opts.length - 1 : active - 1); }
    else if (ev.key === 'Escape') { ev.preventDefault(); dialog.close(); }
    else if (ev.key === 'Enter') {
      ev.preventDefault();
      var href = active >= 0 && opts[active] ? opts[active].href : (input.value.trim() ? searchUrl(input.value) : null);
      if (!href) return;
      if (ev.ctrlKey || ev.metaKey) win.open(href, '_blank', 'noopener');
      else { dialog.close(); win.location.href = href; }
    }
  }

  function say(text) { status.textContent = text; }
  function searchUrl(q) { return new URL(searchPage, siteRoot).href + '?q=' + encodeURIComponent(q); }

  function render(q, result, norm, stem) {
    list.textContent = '';
    active = -1;
    input.removeAttribute('aria-activedescendant');
    var n = 0, msg;
    if (!result.total) msg = 'No page contains ' + result.terms.join(', ') + '.';
    else if (result.pages[0].partial) msg = 'No page contains all of: ' + result.terms.join(', ') + '. ' + result.total + (result.total === 1 ? ' page has' : ' pages have') + ' some of them.';
    else msg = result.total + (result.total === 1 ? ' page matches.' : ' pages match.');
    result.pages.forEach(function (pg, p) {
      var group = el('div', 'okf-dialog-group');
      group.setAttribute('role', 'group');
      group.setAttribute('aria-label', pg.title || pg.concept_id);
      var title = el('div', 'okf-dialog-page', pg.title || pg.concept_id);
      title.setAttribute('aria-hidden', 'true');
      group.appendChild(title);
      if (pg.partial) {
        var miss = el('div', 'okf-dialog-missing', 'Missing: ' + pg.missing_terms.join(', '));
        miss.setAttribute('aria-hidden', 'true');
        group.appendChild(miss);
      }
      pg.hits.slice(0, 3).forEach(function (h) {
        if (!h.url) return;  // a section this build renders nowhere (singlehtml orphans)
        var a = el('a', 'okf-dialog-option');
        a.id = 'okf-dialog-opt-' + n++;
        a.href = new URL(h.url, siteRoot).href;
        a.tabIndex = -1;
        a.setAttribute('role', 'option');
        a.setAttribute('aria-selected', 'false');
        var head = el('span', 'okf-dialog-heading');
        if (h.kind) head.appendChild(el('span', 'okf-kind', h.kind));
        head.appendChild(doc.createTextNode(h.heading || h.title || h.concept_id));
        a.appendChild(head);
        var snip = okf.highlight(norm, h.snippet, result.terms, stem);
        if (h.snippet_offset > 0) snip.insertBefore(doc.createTextNode('\u2026 '), snip.firstChild);
        if (h.snippet_offset + Array.from(h.snippet).length < h.text_length) snip.appendChild(doc.createTextNode(' \u2026'));
        a.appendChild(snip);
        a.addEventListener('mousemove', function () { var i = Array.prototype.indexOf.call(options(), a); if (i !== active) select(i); });
        group.appendChild(a);
      });
      list.appendChild(group);
    });
    var sugg = el('p', 'okf-dialog-suggest');
    result.suggestions.forEach(function (s) {
      if (!s.candidates.length) return;
      sugg.appendChild(doc.createTextNode((sugg.firstChild ? ' ' : '') + 'Did you mean '));
      s.candidates.forEach(function (c, i) {
        var b = el('button', 'okf-dialog-did', c);
        b.type = 'button';
        b.addEventListener('click', function () { input.value = input.value.replace(new RegExp('(^|\\s)' + s.term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '(?=\\s|$)', 'i'), '$1' + c); input.focus(); run(); });
        if (i) sugg.appendChild(doc.createTextNode(', '));
        sugg.appendChild(b);
      });
      sugg.appendChild(doc.createTextNode('?'));
      msg += ' No page has \u201c' + s.term + '\u201d: did you mean ' + s.candidates.join(', ') + '?';
    });
    if (sugg.firstChild) list.parentNode.insertBefore(sugg, list);
    say(msg);
    input.setAttribute('aria-expanded', n ? 'true' : 'false');
    more.href = searchUrl(q);
    more.hidden = !result.total;
  }

  function clear() {
    list.textContent = '';
    var old = dialog.querySelector('.okf-dialog-suggest');
    if (old) old.remove();
    active = -1;
    input.removeAttribute('aria-activedescendant');
    input.setAttribute('aria-expanded', 'false');
    more.hidden = true;
  }

  function run() {
    clearTimeout(timer);
    var q = input.value, mine = ++token;
    dialog.setAttribute('data-okf-state', 'busy');
    function done() { if (mine === token) { dialog.setAttribute('data-okf-query', q); dialog.setAttribute('data-okf-state', 'done'); } }
    if (!q.trim()) { clear(); say(''); done(); return; }
    var eng = okf.engine();
    eng.search(q, { mode: 'smart', limit: PAGES, prefix: true, present: true }).then(function (result) {
      return eng.normaliser(q).then(function (norm) {
        if (mine !== token) return;  // a newer keystroke has its own answer coming
        clear();
        render(q, result, norm, eng.stemmer());
      });
    }, function (err) {
      if (mine !== token) return;
      clear();
      say(err instanceof okf.OkfError ? err.message : 'Search failed: ' + err);
    }).then(done, done);
  }

  function open(from, text) {
    if (!dialog) build();
    if (dialog.open) { input.focus(); return; }
    opener = from || doc.activeElement;
    if (text !== undefined && text !== input.value) input.value = text;
    dialog.showModal();
    input.focus();
    input.select();
    if (input.value) run(); else { dialog.setAttribute('data-okf-state', 'done'); dialog.setAttribute('data-okf-query', ''); }
  }

  function typing(t) {
    if (!t || !t.tagName) return false;
    var tag = t.tagName;
    return t.isContentEditable || tag === 'TEXTAREA' || tag === 'SELECT' || (tag === 'INPUT' && !/^(button|submit|reset|checkbox|radio|range|color|file|image)$/i.test(t.type));
  }

  // the theme's own search box (alabaster, furo, rtd: a form leading to the search page;
  // pydata: its Ctrl+K dialog and its search buttons)
  function themeBox(t) {
    if (!t || !t.closest || (dialog && dialog.contains(t)) || t.closest('#okf-search')) return null;
    if (t.matches('input[name=q]') && t.form && /search(\.html)?\/?$/.test((t.form.getAttribute('action') || '').split('?')[0])) return t;
    return t.closest('.search-button__button, .search-button-field, button.search-button' + (extraBoxes ? ', ' + extraBoxes : ''));
  }

  // capture phase on window: runs before the theme's own handlers (pydata's Ctrl+K toggle)
  win.addEventListener('keydown', function (ev) {
    var k = ev.key;
    if (/^k$/i.test(k) && !ev.shiftKey && !ev.altKey && (mac ? ev.metaKey : ev.ctrlKey)) {
      ev.preventDefault();
      ev.stopImmediatePropagation();
      if (dialog && dialog.open) dialog.close(); else open(null, undefined);
    } else if (k === '/' && !ev.ctrlKey && !ev.metaKey && !ev.altKey && !typing(ev.target) && !(dialog && dialog.open)) {
      // Read the Docs' addons search answers "/" on its own: never stack two dialogs
      // (and Sphinx's own "/" shortcut, which focuses the theme's box, must not open ours either)
      if (slashToTheme || doc.querySelector('readthedocs-search')) { quiet = true; setTimeout(function () { quiet = false; }, 0); return; }
      ev.preventDefault();
      ev.stopImmediatePropagation();
      open(null, undefined);
    }
  }, true);
  // for a theme's own shortcuts (okf-mkdocs.js): open the dialog, optionally with a query
  win.OkfDialog = { open: function (text) { open(null, text); } };
  win.addEventListener('focusin', function (ev) {
    if (quiet) return;
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
})();
