/**
 * The standard ARC palette for symbols 0-9, as in the original ARC testing interface, with a
 * name for each colour (shown in tooltips and read out by screen readers).
 */
export const ARC_PALETTE: readonly { readonly hex: string; readonly name: string }[] = [
  { hex: '#000000', name: 'black' },
  { hex: '#0074D9', name: 'blue' },
  { hex: '#FF4136', name: 'red' },
  { hex: '#2ECC40', name: 'green' },
  { hex: '#FFDC00', name: 'yellow' },
  { hex: '#AAAAAA', name: 'grey' },
  { hex: '#F012BE', name: 'magenta' },
  { hex: '#FF851B', name: 'orange' },
  { hex: '#7FDBFF', name: 'sky' },
  { hex: '#870C25', name: 'maroon' },
];

/** A text colour that stays readable on top of symbol `v`'s cell colour. */
export function symbolTextColor(v: number): string {
  return v === 0 || v === 1 || v === 2 || v === 6 || v === 9 ? '#ffffff' : '#000000';
}
