import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { Locale } from '../i18n/i18n.ts';
import type { ShopData } from './shop.service.ts';

/**
 * The waiting list's buyer pages: the join form under each sold-out type of the event page, the
 * confirmation after joining, and the page behind the mailed link to leave (a button that posts:
 * following the link alone changes nothing).
 */

const CSS = raw(`<style>
.admit-waitlist{border:1px solid var(--admit-text-color-muted);border-radius:var(--admit-card-radius);margin:1rem 0;padding:.75rem 1rem}
.admit-waitlist h2{font-size:1.1rem;margin:.25rem 0 .5rem}
.admit-waitlist label{display:block;font-weight:600}
.admit-waitlist .field{margin:.6rem 0}
.admit-waitlist input,.admit-waitlist select{font:inherit;padding:.55rem;border:1px solid var(--admit-text-color-muted);border-radius:6px;background:var(--admit-text-background-color);color:var(--admit-text-color);max-width:100%;min-height:2.75rem;box-sizing:border-box}
.admit-waitlist input[type=text],.admit-waitlist input[type=email]{width:100%}
.admit-waitlist button{width:100%;font-size:1.05rem;min-height:2.75rem}
.admit-waitlist .admit-error{color:var(--admit-error-color);font-weight:600;display:block}
</style>`);

export interface JoinFormView {
  data: Pick<ShopData, 'types' | 'salesOpen'>;
  loc: Locale;
  action: string;
  csrf: string;
  preview?: boolean;
  /** after a refused join: the type it was for, what was sent and what was wrong */
  failed?: { typeId: number; form: Record<string, string>; fields: Record<string, string[]> };
}

/** One join form per sold-out type with the waiting list on (none while sales are closed). */
export function joinForms(v: JoinFormView): SafeHtml {
  if (!v.data.salesOpen) return html``;
  const types = v.data.types.filter((t) => t.waitlistMax !== null);
  if (!types.length) return html``;
  const { m } = v.loc;
  return html`${CSS}${types.map((t) => {
    const failed = v.failed?.typeId === t.id ? v.failed : undefined;
    const val = (k: string) => failed?.form[k] ?? '';
    const err = (k: string) =>
      failed?.fields[k] ? html`<span class="admit-error" id="wl-err-${t.id}-${k}">${failed.fields[k].join(' ')}</span>` : html``;
    const invalid = (k: string) =>
      failed?.fields[k] ? raw(` aria-invalid="true" aria-describedby="wl-err-${t.id}-${k}"`) : raw('');
    const chosen = Number(val('quantity')) || 1;
    return html`<section class="admit-waitlist" aria-labelledby="wl-${t.id}">
      <h2 id="wl-${t.id}">${m.waitlistJoin}: ${t.name}</h2>
      <p>${m.waitlistJoinLead(t.name)}</p>
      <form method="post" action="${v.action}" novalidate>
        <input type="hidden" name="csrf" value="${v.csrf}" />
        <input type="hidden" name="lang" value="${v.loc.tag}" />
        <input type="hidden" name="ticket_type_id" value="${String(t.id)}" />
        <div class="field">
          <label for="wl-name-${t.id}">${m.waitlistName}</label
          ><input type="text" id="wl-name-${t.id}" name="name" autocomplete="name" required maxlength="200" value="${val('name')}"${invalid('name')} />${err('name')}
        </div>
        <div class="field">
          <label for="wl-email-${t.id}">${m.waitlistEmail}</label
          ><input type="email" id="wl-email-${t.id}" name="email" autocomplete="email" required maxlength="254" value="${val('email')}"${invalid('email')} />${err('email')}
        </div>
        <div class="field">
          <label for="wl-qty-${t.id}">${m.waitlistQuantity}</label
          ><select id="wl-qty-${t.id}" name="quantity"${invalid('quantity')}>
            ${Array.from({ length: t.waitlistMax! }, (_, i) => i + 1).map(
              (n) => html`<option value="${String(n)}"${n === chosen ? raw(' selected') : ''}>${String(n)}</option>`,
            )}</select
          >${err('quantity')}
        </div>
        <button type="submit"${v.preview ? raw(' disabled') : ''}>${m.waitlistJoin}</button>
      </form>
    </section>`;
  })}`;
}

/** After joining (or trying again with an address already on the list: the same words, so nobody learns who waits). */
export function joinedBody(loc: Locale, info: { quantity: number; type: string; event: string; eventPath: string }): SafeHtml {
  const { m } = loc;
  return html`<section aria-labelledby="wl-title">
    <h1 id="wl-title">${m.waitlistJoinedTitle}</h1>
    <p role="status">${m.waitlistJoinedLead(info.quantity, info.type, info.event)}</p>
    <p>${m.waitlistCheckMail}</p>
    <p><a href="${info.eventPath}">${info.event}</a></p>
  </section>`;
}

/** Behind the mailed link: the place, and a button that posts the removal. */
export function leaveBody(
  loc: Locale,
  info: { quantity: number; type: string; event: string; open: boolean; left: boolean },
  csrf: string,
  action: string,
): SafeHtml {
  const { m } = loc;
  if (info.left)
    return html`<section aria-labelledby="wl-title">
      <h1 id="wl-title">${m.waitlistLeftTitle}</h1>
      <p role="status">${m.waitlistLeftLead}</p>
    </section>`;
  return html`${CSS}<section class="admit-waitlist" aria-labelledby="wl-title">
    <h1 id="wl-title">${m.waitlistLeaveTitle}</h1>
    <p>${m.waitlistLeaveLead(info.quantity, info.type, info.event)}</p>
    ${
      info.open
        ? html`<form method="post" action="${action}">
            <input type="hidden" name="csrf" value="${csrf}" />
            <input type="hidden" name="lang" value="${loc.tag}" />
            <button type="submit">${m.waitlistLeaveButton}</button>
          </form>`
        : html`<p role="status">${m.waitlistClosedLead}</p>`
    }
  </section>`;
}
