import type { AuthorizationRequest } from '../acquirers/types.ts';
import type { CreatePaymentCommand } from '../domain/commands.ts';
import { withQuery } from '../domain/urls.ts';
import { forwardedParameters } from '../params/echo.ts';

/**
 * Where a payment's shopper goes after a page (the gateway's own 3-D Secure challenge or provider page, or a
 * connector's provider's): the checkout's result URL, or the merchant's shopperResultUrl with the payment (spec doc 3
 * §2.8) — and what a connector's provider is sent so that it can run those pages itself.
 */

/** A checkout's result URL, or `shopperResultUrl` with the payment's id and resourcePath. */
export function returnUrlOf(command: Pick<CreatePaymentCommand, 'checkout'>, paymentId: string, shopperResultUrl: string): string {
  return command.checkout?.returnUrl ?? withQuery(new URL(shopperResultUrl), { id: paymentId, resourcePath: `/v1/payments/${paymentId}` }).href;
}

/** The shopper's return URL when the shopper is there to be sent to a page (a checkout, or a shopperResultUrl sent). */
export function shopperReturnUrlOf(command: Pick<CreatePaymentCommand, 'checkout' | 'shopperResultUrl'>, paymentId: string): string | undefined {
  if (command.checkout?.returnUrl !== undefined) return command.checkout.returnUrl;
  return command.shopperResultUrl === undefined ? undefined : returnUrlOf(command, paymentId, command.shopperResultUrl);
}

/** The gateway's address a connector's provider sends the shopper back to, for one attempt (providers/routes.ts). */
export function providerReturnUrl(publicUrl: string, acquirer: string, attemptId: string): string {
  return `${publicUrl}/v1/acquirers/${acquirer}/returns/${attemptId}`;
}

/**
 * What a connector sends besides the instrument (a simulated acquirer needs none of it): the merchant's data as sent,
 * and, when the shopper is there, the gateway's return address for this attempt and the browser's data for 3-D Secure.
 */
export function providerFields(
  command: Pick<CreatePaymentCommand, 'echo' | 'browser'>,
  target: { readonly publicUrl: string; readonly acquirer: string; readonly attemptId: string },
  shopperPresent: boolean,
): Pick<AuthorizationRequest, 'forwarded' | 'shopper'> {
  return {
    forwarded: forwardedParameters(command.echo),
    ...(shopperPresent ? { shopper: { returnUrl: providerReturnUrl(target.publicUrl, target.acquirer, target.attemptId), browser: command.browser } } : {}),
  };
}
