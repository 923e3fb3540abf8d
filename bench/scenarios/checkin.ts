import { settle } from '../baselines.ts';
import { fmt } from '../lib.ts';
import { seedOrders } from '../seed.ts';
import type { ScenarioContext } from './context.ts';

export async function checkin(c: ScenarioContext): Promise<void> {
  const { url, base, quick, ids, q, add } = c;
  // A scanner's first download of 100,000 tickets in pages of 5,000, against the plain SQL
  // read of the same rows; then uploads of 1,000 offline scans against one plain insert.
  const door = await ids('door');
  const extra = (
    await q<{ good: number; donation: number; audience: number; portal: number; list: number }>(
      `select (select id from goods where event_id = $1) good, (select id from donations where event_id = $1) donation,
                (select id from audiences where event_id = $1) audience, (select id from portals where event_id = $1) portal,
                (select id from checkin_lists where event_id = $1) list`,
      [door.eventId],
    )
  )[0]!;
  const n = quick ? 20_000 : 100_000;
  // one ticket per paid order, n of them
  await seedOrders(
    url,
    {
      accountId: door.accountId,
      eventId: door.eventId,
      gaId: door.typeId,
      goodId: extra.good,
      donationId: extra.donation,
      audienceId: extra.audience,
      portalId: extra.portal,
    },
    Math.ceil(n / 0.87),
    'door',
  );
  await q(
    `insert into tickets (account_id, event_id, order_id, order_line_id, ticket_type_id, ref, attendee_name, qr_token, created_at)
         select o.account_id, o.event_id, o.id, l.id, l.ticket_type_id, o.ref || '-1', 'Guest ' || o.id, md5('t' || o.id), o.created_at
         from orders o join order_lines l on l.order_id = o.id and l.kind = 'tickets'
         where o.event_id = $1 and o.status = 'paid' order by o.id limit $2`,
    [door.eventId, n],
  );
  await settle(url);
  const doorHeaders = { authorization: `Bearer ${c.tokens.door}` };
  const syncBase = `${base}/doors/door/checkin_lists/${extra.list}`;
  const download = async () => {
    const t0 = performance.now();
    let cursor = '';
    let bytes = 0;
    let tickets = 0;
    for (;;) {
      const r = await fetch(`${syncBase}/sync?limit=5000${cursor ? `&cursor=${cursor}` : ''}`, { headers: doorHeaders });
      const text = await r.text();
      if (!r.ok) throw new Error(`sync: ${r.status} ${text.slice(0, 200)}`);
      bytes += Buffer.byteLength(text);
      const page = JSON.parse(text) as { tickets: unknown[]; next_cursor: string; has_more: boolean };
      tickets += page.tickets.length;
      cursor = page.next_cursor;
      if (!page.has_more) break;
    }
    return { ms: performance.now() - t0, bytes, tickets };
  };
  const plainRead = async () => {
    const t0 = performance.now();
    const rows = await q(
      `select t.id, t.ref, tt.name, tt.key, t.attendee_name, encode(sha256(t.qr_token::bytea), 'hex'), t.status, o.status
           from tickets t join orders o on o.id = t.order_id join ticket_types tt on tt.id = t.ticket_type_id
           where t.event_id = $1 order by t.id`,
      [door.eventId],
    );
    return { ms: performance.now() - t0, rows: rows.length };
  };
  await download();
  const downloads = [await download(), await download(), await download()].sort((a, b) => a.ms - b.ms);
  const plains = [await plainRead(), await plainRead(), await plainRead()].sort((a, b) => a.ms - b.ms);
  const d = downloads[1]!;
  add({
    scenario: `offline sync, ${fmt(d.tickets)} tickets`,
    figure: 'ms (all pages)',
    admit: d.ms,
    baseline: plains[1]!.ms,
    baselineName: 'plain SQL read',
    note: `median of 3; ${fmt(d.bytes / 1e6, 1)} MB JSON (${fmt(d.bytes / d.tickets)} bytes a ticket) in ${Math.ceil(d.tickets / 5000)} pages; runs ${downloads.map((x) => fmt(x.ms)).join(' / ')} ms`,
  });
  const tokens = (
    await q<{ qr_token: string }>(`select qr_token from tickets where event_id = $1 order by id limit 6000`, [door.eventId])
  ).map((r) => r.qr_token);
  const uploads: number[] = [];
  for (let b = 0; b < 5; b++) {
    const scans = tokens.slice(b * 1000, b * 1000 + 1000).map((token, i) => ({
      client_id: `bench-${b}-${i}`,
      qr_code_identifier: token,
      scanned_at: new Date(Date.now() - (1000 - i) * 1000).toISOString(),
    }));
    const t0 = performance.now();
    const r = await fetch(`${syncBase}/checkins/batch`, {
      method: 'POST',
      headers: { ...doorHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ device: 'bench', checkins: scans }),
    });
    if (!r.ok) throw new Error(`upload: ${r.status} ${(await r.text()).slice(0, 200)}`);
    await r.text();
    uploads.push(performance.now() - t0);
  }
  const plainInserts: number[] = [];
  for (let b = 0; b < 5; b++) {
    const t0 = performance.now();
    await q(
      `insert into checkins (account_id, checkin_list_id, ticket_id, online, created_at, device, client_id, conflict, reason)
           select t.account_id, $2, t.id, false, now(), 'plain', 'plain-' || $3 || '-' || t.id, true, 'already_checked_in'
           from tickets t where t.qr_token = any($1::text[])`,
      [tokens.slice(b * 1000, b * 1000 + 1000), extra.list, b],
    );
    plainInserts.push(performance.now() - t0);
  }
  uploads.sort((a, b) => a - b);
  plainInserts.sort((a, b) => a - b);
  add({
    scenario: 'offline upload, 1,000 scans',
    figure: 'ms per batch',
    admit: uploads[2]!,
    baseline: plainInserts[2]!,
    baselineName: 'one plain insert',
    note: `median of 5 batches; ${uploads.map((x) => fmt(x)).join(' / ')} ms`,
  });
}
