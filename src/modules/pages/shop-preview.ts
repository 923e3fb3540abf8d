import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { loadPageTheme } from '../themes/page-theme.service.ts';
import { frameOf, pageLocale } from './page-language.ts';
import { loadShop } from './shop.service.ts';
import { shopPage } from './shop.view.ts';

/**
 * The event page as buyers would see it, for staff in the console (a draft included): the same
 * view in the account's theme, with a preview banner and a form that cannot be sent. Rendered
 * afresh (never from the event page cache), without the running-total script.
 */
export async function shopPreviewPage(
  ctx: AppContext,
  request: FastifyRequest,
  accountSlug: string,
  eventSlug: string,
): Promise<string> {
  const shop = await loadShop(ctx, accountSlug, eventSlug, {}, undefined, { preview: true });
  const theme = await loadPageTheme(ctx.db, shop.account.id);
  const loc = pageLocale(request, shop.event.locale);
  const body = shopPage({
    data: shop,
    action: '#',
    csrf: '',
    form: {},
    fields: {},
    message: null,
    loc,
    path: request.url.split('?')[0]!,
    preview: true,
  });
  return theme.wrap(body.value, shop.event.name, frameOf(loc));
}
