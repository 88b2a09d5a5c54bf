/**
 * The one script of the runs app (`/assets/live.js`, allowed by the CSP as `script-src 'self'`):
 * it keeps a live page (the running run, the runs list while a run on it runs) up to date in place.
 *
 * @remarks
 * A page is live when its `<body>` carries `data-live-seconds`. Every that many seconds the script
 * reads the same address again (same origin, the app's own cookie), and for each element marked
 * `data-live-region` whose markup changed it replaces the element's children — the element stays, so
 * an `aria-live` region keeps announcing and the page keeps its scroll position. A region that holds
 * the keyboard focus gets the focus back on the same control (by `id` or `data-action`) when the
 * control is still there, and a region in which the reader has selected text is left alone until the
 * selection is gone. The note (`data-live-note`) says whether updates are on, paused, failing or
 * over, and its button pauses and resumes them (kept for the tab in sessionStorage). A hidden tab is
 * not polled; a failed read is retried less often. When the answer is no longer live (the run
 * ended), its regions are put in once more and the polling stops.
 *
 * Without JavaScript the pages are whole: nothing updates by itself, and the note's `<noscript>`
 * offers a reload link instead. Plain ES2020 for the browser, no dependencies; kept as text so the
 * build serves exactly these bytes.
 *
 * @internal
 */
export const LIVE_SCRIPT = String.raw`(function () {
  'use strict';
  var body = document.body;
  var seconds = Number(body.getAttribute('data-live-seconds'));
  var note = document.querySelector('[data-live-note]');
  if (!(seconds > 0) || note === null) return;
  var state = note.querySelector('[data-live-state]');
  var toggle = note.querySelector('button[data-live-toggle]');
  var KEY = 'runledger.live.paused';
  var paused = false;
  try { paused = sessionStorage.getItem(KEY) === '1'; } catch (e) { paused = false; }
  var failures = 0;
  var timer = null;
  var over = false;
  var busy = false;

  function say(which) {
    var text = note.getAttribute('data-text-' + which) || '';
    if (state.textContent !== text) state.textContent = text;
    note.setAttribute('data-live', which);
  }
  function showToggle() {
    toggle.textContent = note.getAttribute(paused ? 'data-text-resume' : 'data-text-pause') || '';
    toggle.setAttribute('aria-pressed', paused ? 'true' : 'false');
  }
  function schedule() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (paused || over || document.hidden) return;
    timer = setTimeout(tick, seconds * 1000 * Math.min(8, Math.pow(2, failures)));
  }
  function focusKey(el) {
    if (el.id) return '#' + CSS.escape(el.id);
    var action = el.getAttribute('data-action');
    return action ? '[data-action="' + CSS.escape(action) + '"]' : null;
  }
  function holdsSelection(region) {
    var selection = window.getSelection();
    return selection !== null && !selection.isCollapsed && selection.anchorNode !== null && region.contains(selection.anchorNode);
  }
  function apply(doc) {
    var fresh = doc.querySelectorAll('[data-live-region]');
    for (var i = 0; i < fresh.length; i++) {
      var name = fresh[i].getAttribute('data-live-region');
      var current = document.querySelector('[data-live-region="' + CSS.escape(name) + '"]');
      if (current === null || current.innerHTML === fresh[i].innerHTML || holdsSelection(current)) continue;
      var active = document.activeElement;
      var key = active !== null && active !== body && current.contains(active) ? focusKey(active) : null;
      current.replaceChildren.apply(current, Array.prototype.map.call(fresh[i].childNodes, function (node) { return document.importNode(node, true); }));
      if (key !== null) {
        var again = current.querySelector(key);
        if (again !== null) again.focus({ preventScroll: true });
      }
    }
  }
  function tick() {
    timer = null;
    if (busy || paused || over || document.hidden) return;
    busy = true;
    fetch(location.href, { credentials: 'same-origin', cache: 'no-store', headers: { accept: 'text/html' } })
      .then(function (response) {
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.text();
      })
      .then(function (text) {
        if (paused) return;
        var doc = new DOMParser().parseFromString(text, 'text/html');
        apply(doc);
        failures = 0;
        if (!(Number(doc.body.getAttribute('data-live-seconds')) > 0)) {
          over = true;
          body.removeAttribute('data-live-seconds');
          toggle.hidden = true;
          say('over');
          return;
        }
        say('on');
      })
      .catch(function () {
        failures += 1;
        say('failed');
      })
      .then(function () {
        busy = false;
        schedule();
      });
  }

  toggle.addEventListener('click', function () {
    paused = !paused;
    try { sessionStorage.setItem(KEY, paused ? '1' : '0'); } catch (e) { /* private mode: this page only */ }
    showToggle();
    say(paused ? 'paused' : 'on');
    if (paused) schedule();
    else tick();
  });
  document.addEventListener('visibilitychange', function () {
    if (!document.hidden && timer === null) tick();
  });
  note.hidden = false;
  showToggle();
  say(paused ? 'paused' : 'on');
  schedule();
})();
`;
