// The console's seating page: clicking a free seat on the drawing keeps it off sale, clicking a
// blocked one sells it again; the "Seats kept off sale" field follows (and is what the form
// sends, so the page works without this script). A plan file chosen is read into the plan field.
(() => {
  const svg = document.querySelector('svg[data-seating-plan]');
  const blocked = document.getElementById('f-blocked');
  if (svg && blocked) {
    const read = () => new Set(blocked.value.split(/[\s,]+/).filter(Boolean));
    svg.addEventListener('click', (e) => {
      const seat = e.target.closest('circle[data-g]');
      if (!seat || (seat.dataset.state !== 'a' && seat.dataset.state !== 'b')) return;
      const set = read();
      const guid = seat.dataset.g;
      if (seat.dataset.state === 'a') {
        set.add(guid);
        seat.dataset.state = 'b';
        seat.setAttribute('fill', '#ffffff');
        seat.setAttribute('stroke', '#333333');
        seat.setAttribute('stroke-width', '2');
      } else {
        set.delete(guid);
        seat.dataset.state = 'a';
        seat.setAttribute('fill', seat.dataset.c);
        seat.removeAttribute('stroke');
      }
      blocked.value = [...set].join(', ');
    });
  }
  const file = document.getElementById('f-plan-file');
  const plan = document.getElementById('f-plan');
  if (file && plan) {
    document.querySelectorAll('[data-plan-file]').forEach((el) => (el.hidden = false));
    file.addEventListener('change', async () => {
      const f = file.files && file.files[0];
      if (f) plan.value = await f.text();
    });
  }
})();
