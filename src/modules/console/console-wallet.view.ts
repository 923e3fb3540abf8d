import { html, raw, type SafeHtml } from '../../platform/http/html.ts';
import type { WalletStatus } from '../wallet/wallet-keys.service.ts';
import type { Viewer } from './console.http.ts';
import { t } from './console-lang.ts';
import { buttonForm, consolePage, field, hiddenCsrf, type FieldErrors, type Flash } from './console-layout.view.ts';
import { whenUtc } from './formats.ts';

/**
 * The account's wallet keys (owners). What is stored shows only as "configured, uploaded <date>"
 * with who issues; a PEM is never put back into a page, not even after a refused upload.
 */
export const walletBase = (v: Viewer) => `/console/a/${encodeURIComponent(v.account!.slug)}/wallet`;

function pemArea(name: string, label: string, errors?: FieldErrors, hint?: string): SafeHtml {
  const errs = errors?.[name] ?? [];
  const described = [hint ? `f-${name}-hint` : '', errs.length ? `f-${name}-err` : ''].filter(Boolean).join(' ');
  return html`<div class="field">
    <label for="f-${name}">${label}</label>
    ${hint ? html`<p class="hint" id="f-${name}-hint">${hint}</p>` : ''}
    <textarea id="f-${name}" name="${name}" rows="5" spellcheck="false" autocomplete="off"${errs.length ? raw(' aria-invalid="true"') : raw('')}${described ? html` aria-describedby="${described}"` : ''}></textarea>
    ${errs.length ? html`<p class="error" id="f-${name}-err">${errs.join(' ')}</p>` : ''}
  </div>`;
}

export function walletPage(v: {
  viewer: Viewer;
  status: WalletStatus;
  /** the non-secret fields of a refused form, to fill in again */
  form?: Record<string, string>;
  errors?: FieldErrors;
  flash: Flash | null;
}): string {
  const m = t();
  const base = walletBase(v.viewer);
  const { apple, google } = v.status;
  const val = (k: string, stored: string | undefined) => v.form?.[k] ?? stored ?? '';
  const body = html`<p>${m.walletIntro}</p>
    <section class="card" id="apple">
      <h2>${m.walletAppleHeading}</h2>
      <p>${apple ? html`<strong>${m.walletConfigured(whenUtc(apple.uploaded_at))}</strong> ${m.walletPassTypeId}: <code>${apple.pass_type_id}</code>, ${m.walletTeamId}: <code>${apple.team_id}</code>` : m.walletNotConfigured}</p>
      <form method="post" action="${base}/apple">
        ${hiddenCsrf(v.viewer.csrf)}
        ${field({ name: 'pass_type_id', label: m.walletPassTypeId, value: val('pass_type_id', apple?.pass_type_id), errors: v.errors, hint: m.walletPassTypeIdHint, required: true })}
        ${field({ name: 'team_id', label: m.walletTeamId, value: val('team_id', apple?.team_id), errors: v.errors, required: true })}
        ${pemArea('certificate_pem', m.walletCertificate, v.errors)} ${pemArea('key_pem', m.walletKey, v.errors)}
        ${pemArea('wwdr_pem', m.walletWwdr, v.errors)}
        <button type="submit">${apple ? m.walletReplaceApple : m.walletUploadApple}</button>
      </form>
      ${apple ? buttonForm({ action: `${base}/apple/remove`, csrf: v.viewer.csrf, label: m.walletRemoveApple, kind: 'danger' }) : ''}
    </section>
    <section class="card" id="google">
      <h2>${m.walletGoogleHeading}</h2>
      <p>${google ? html`<strong>${m.walletConfigured(whenUtc(google.uploaded_at))}</strong> ${m.walletIssuerId}: <code>${google.issuer_id}</code>, <code>${google.service_account_email}</code>` : m.walletNotConfigured}</p>
      <form method="post" action="${base}/google">
        ${hiddenCsrf(v.viewer.csrf)}
        ${field({ name: 'issuer_id', label: m.walletIssuerId, value: val('issuer_id', google?.issuer_id), errors: v.errors, required: true })}
        ${field({ name: 'service_account_email', label: m.walletServiceAccountEmail, value: val('service_account_email', google?.service_account_email), errors: v.errors, hint: m.walletServiceAccountEmailHint, type: 'email' })}
        ${pemArea('private_key_pem', m.walletGoogleKey, v.errors)}
        <button type="submit">${google ? m.walletReplaceGoogle : m.walletUploadGoogle}</button>
      </form>
      ${google ? buttonForm({ action: `${base}/google/remove`, csrf: v.viewer.csrf, label: m.walletRemoveGoogle, kind: 'danger' }) : ''}
    </section>
    <p class="hint">${m.walletUpdatesNote}</p>`;
  return consolePage({ title: m.walletTitle, viewer: v.viewer, active: 'wallet', flash: v.flash, body });
}
