/**
 * The one card check the hosted card-number field makes itself (the brand table, which each card form would load
 * twice with the field's script, stays in the widget and the gateway: widget/shared/cards.ts).
 */

/** The Luhn check every card number passes: 8 to 32 digits whose weighted sum ends in 0. */
export function passesLuhn(number: string): boolean {
  if (!/^[0-9]{8,32}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = number.charCodeAt(number.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}
