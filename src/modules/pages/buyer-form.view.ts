import { raw } from '../../platform/http/html.ts';

/**
 * How a small form on a buyer page looks (inside `.admit-form`): a card, labels above full-width
 * fields large enough for a thumb, problems in the theme's error colour, a full-width button.
 * The theme's derived colours (page-theme.service) keep every text at 4.5:1.
 */
export const BUYER_FORM_CSS = raw(`<style>
.admit-form{border:1px solid var(--admit-text-color-muted);border-radius:var(--admit-card-radius);margin:1.25rem 0;padding:.75rem 1rem}
.admit-form summary{cursor:pointer;list-style-position:outside;margin-left:1rem}
.admit-form summary h2{display:inline;font-size:1.15rem;margin:0}
.admit-form fieldset{border:0;margin:0;padding:0}
.admit-form legend{font-weight:600;padding:0;margin:.5rem 0 .25rem}
.admit-form label{display:block;font-weight:600}
.admit-form .field{margin:.6rem 0}
.admit-form input{font:inherit;padding:.55rem;border:1px solid var(--admit-text-color-muted);border-radius:6px;background:var(--admit-text-background-color);color:var(--admit-text-color);width:100%;min-height:2.75rem;box-sizing:border-box}
.admit-form input[maxlength="2"]{width:5rem}
.admit-form button{width:100%;font-size:1.05rem;min-height:2.75rem;margin-top:.5rem}
.admit-form .admit-error{color:var(--admit-error-color);font-weight:600;display:block}
.admit-form [aria-invalid=true]{border-color:var(--admit-error-color);outline:2px solid var(--admit-error-color)}
@media (min-width:48rem){.admit-form button{width:auto;padding-left:2rem;padding-right:2rem}}
</style>`);
