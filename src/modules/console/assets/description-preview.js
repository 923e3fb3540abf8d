// The event form's description preview, kept up to date as the organiser types: the Markdown goes
// to the account's preview endpoint, which answers the sanitised HTML the buyer page shows (the
// same renderDescription). Without this script the form's Preview button sends the whole form
// back and the page comes again with the preview; with it, that button previews in place.
(() => {
  const area = document.querySelector('textarea[data-preview-url]');
  const box = document.getElementById('description-preview');
  const body = box && box.querySelector('[data-preview-body]');
  const form = area && area.form;
  if (!area || !box || !body || !form) return;
  const button = form.querySelector('button[name="intent"][value="preview"]');
  const csrf = form.querySelector('input[name="csrf"]');
  const WAIT_MS = 300;
  let timer = 0;
  let sent = 0;
  // once the endpoint has failed, the button sends the form as it would without this script
  let broken = false;

  const say = (text) => {
    const p = document.createElement('p');
    p.className = 'muted';
    p.textContent = text;
    body.replaceChildren(p);
  };

  async function refresh() {
    clearTimeout(timer);
    const mine = ++sent;
    let html;
    try {
      const res = await fetch(area.dataset.previewUrl, {
        method: 'POST',
        credentials: 'same-origin',
        cache: 'no-store',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf ? csrf.value : '' },
        body: JSON.stringify({ markdown: area.value }),
      });
      if (!res.ok) throw new Error(`preview answered ${res.status}`);
      html = (await res.json()).html;
    } catch {
      broken = true;
      if (mine === sent) {
        box.hidden = false;
        say(box.dataset.failed);
      }
      return;
    }
    // an older answer arriving after a newer one is dropped
    if (mine !== sent) return;
    box.hidden = false;
    const note = box.querySelector('[data-preview-note]');
    if (note) note.remove();
    // the server's sanitised HTML, exactly as the buyer page shows it
    if (typeof html === 'string' && html !== '') body.innerHTML = html;
    else say(box.dataset.empty);
  }

  area.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, WAIT_MS);
  });
  if (button) {
    button.addEventListener('click', (e) => {
      if (broken) return;
      e.preventDefault();
      void refresh();
    });
  }
})();
